"""analytics router through the runner: every report, RBAC, the lead_management gate on lead
conversion, foreign ids, bad ranges."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, time
from typing import Any

import pytest

from spotter.auth import Caller
from spotter.db import Database
from spotter.tools.calls import ToolOutcome
from spotter.tools.catalog import load_catalog
from spotter.tools.invoke import invoke_tool
from tests.support.analytics import class_type, plan, session, subscription
from tests.support.callers import caller_for
from tests.support.world import Org, add_person, create_org

ROUTER = "analytics"
NOW = datetime(2026, 12, 5, 12, 0, tzinfo=UTC)
NOVEMBER = {"start": "2026-11-01", "end": "2026-11-30"}


async def _call(db: Database, caller: Caller, action: str, args: dict[str, Any]) -> ToolOutcome:
    return await invoke_tool(db, caller, ROUTER, {"action": action, "args": args}, now=NOW)


def _code(outcome: ToolOutcome) -> str:
    assert outcome.error is not None, outcome.output
    return str(outcome.error.code)


@pytest.fixture
def history(org: Org, clean_db: str) -> dict[str, Any]:
    """Two members, a November of classes, one plan with two subscriptions."""
    ana = add_person(clean_db, org, "Ana").membership_id
    ben = add_person(clean_db, org, "Ben").membership_id
    assert ana is not None and ben is not None
    crossfit = class_type(clean_db, org, "CrossFit")
    session(clean_db, org, crossfit, date(2026, 11, 2), time(18),
            bookings={ana: "checked_in", ben: "no_show"})  # fmt: skip
    session(clean_db, org, crossfit, date(2026, 11, 9), time(18), bookings={ana: "checked_in"})
    basic = plan(clean_db, org, "Basic", 30000)
    subscription(clean_db, org, ana, basic, datetime(2026, 9, 1, tzinfo=UTC))
    subscription(clean_db, org, ben, basic, datetime(2026, 9, 1, tzinfo=UTC),
                 cancelled=datetime(2026, 11, 20, tzinfo=UTC))  # fmt: skip
    return {"ana": str(ana), "crossfit": str(crossfit)}


def _reports(history: dict[str, Any]) -> list[tuple[str, dict[str, Any], str, Any]]:
    """(action, args, a key of the answer, its value for the history above)."""
    return [
        ("attendance", {"range": NOVEMBER}, "totals", None),
        ("fill_rate", {"range": NOVEMBER}, "overall", None),
        ("peak_times", {"range": NOVEMBER}, "busiest", None),
        ("no_shows", {"range": NOVEMBER}, "overall", None),
        ("member", {"range": NOVEMBER, "memberId": history["ana"]}, "checkIns", 2),
        ("top_members", {"range": NOVEMBER}, "members", None),
        ("inactive", {"days": 14}, "inactive", None),
        ("retention", {"range": NOVEMBER}, "visitors", 1),
        ("churn", {"range": NOVEMBER}, "churned", 1),
        ("plans", {"range": NOVEMBER}, "totals", None),
        ("lead_conversion", {"range": NOVEMBER}, "cohort", None),
        ("summary", {"range": NOVEMBER}, "checkIns", None),
    ]


def test_the_router_has_fourteen_reads() -> None:
    specs = [s for s in load_catalog().specs.values() if s.router == ROUTER]
    assert len(specs) == 14 and {s.side_effects for s in specs} == {"read"}


async def test_every_report_answers_for_the_owner(
    db: Database, org: Org, history: dict[str, Any]
) -> None:
    owner = await caller_for(db, org, "owner")
    for action, args, key, value in _reports(history):
        outcome = await _call(db, owner, action, args)
        assert outcome.ok, (action, outcome.error)
        assert key in outcome.output, action
        if value is not None:
            assert outcome.output[key] == value, action


async def test_attendance_counts_the_novembers_check_ins(
    db: Database, org: Org, history: dict[str, Any]
) -> None:
    coach = await caller_for(db, org, "coach")
    out = (await _call(db, coach, "attendance", {"range": NOVEMBER, "grain": "week"})).output
    assert (out["totals"]["checkIns"], out["totals"]["noShows"]) == (2, 1)
    assert out["period"] == {**{"from": "2026-11-01", "to": "2026-11-30"},
                             "timezone": "Asia/Jerusalem"}  # fmt: skip


async def test_summary_compares_with_the_previous_period(
    db: Database, org: Org, history: dict[str, Any]
) -> None:
    owner = await caller_for(db, org, "owner")
    out = (await _call(db, owner, "summary", {"range": NOVEMBER})).output
    assert out["checkIns"] == {"current": 2, "previous": 0, "change": 2}


@pytest.mark.parametrize("action", ["churn", "plans", "lead_conversion"])
async def test_business_reports_are_for_managers(db: Database, org: Org, action: str) -> None:
    coach = await caller_for(db, org, "coach")
    assert _code(await _call(db, coach, action, {})) == "forbidden"


async def test_members_have_no_reports(db: Database, org: Org) -> None:
    member = await caller_for(db, org, "member")
    assert _code(await _call(db, member, "attendance", {})) == "forbidden"


async def test_lead_conversion_needs_lead_management(db: Database, clean_db: str) -> None:
    starter = create_org(clean_db, name="Starter box", tier="starter")
    owner = await caller_for(db, starter, "owner")
    assert _code(await _call(db, owner, "lead_conversion", {})) == "feature_unavailable"


@pytest.mark.parametrize("action", ["member", "attendance", "fill_rate"])
async def test_another_orgs_ids_are_not_found(
    db: Database, org: Org, other_org: Org, clean_db: str, action: str
) -> None:
    theirs_type = class_type(clean_db, other_org, "Theirs")
    theirs = {"member": {"memberId": str(other_org["member"].membership_id)},
              "attendance": {"classTypeId": str(theirs_type)},
              "fill_rate": {"classTypeId": str(theirs_type)}}  # fmt: skip
    owner = await caller_for(db, org, "owner")
    assert _code(await _call(db, owner, action, theirs[action])) == "not_found"
    key = next(iter(theirs[action]))
    assert _code(await _call(db, owner, action, {key: str(uuid.uuid4())})) == "not_found"


@pytest.mark.parametrize(
    ("action", "args"),
    [
        ("attendance", {"range": {"start": "2026-11-30", "end": "2026-11-01"}}),
        ("attendance", {"range": {"start": "2024-01-01", "end": "2026-11-01"}}),
        ("attendance", {"grain": "year"}),
        ("inactive", {"days": 0}),
        ("top_members", {"limit": 500}),
        ("retention", {"range": {"from": "2026-11-01"}}),
    ],
)
async def test_bad_arguments_are_invalid_args(
    db: Database, org: Org, action: str, args: dict[str, Any]
) -> None:
    owner = await caller_for(db, org, "owner")
    assert _code(await _call(db, owner, action, args)) == "invalid_args"
