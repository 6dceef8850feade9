"""program_templates router: days, copies from programs, apply with exact undo, gate, RBAC."""

from __future__ import annotations

import uuid
from datetime import date
from typing import Any

import psycopg
import pytest

from spotter.auth import Caller
from spotter.db import Database
from spotter.tools.calls import ToolOutcome
from spotter.tools.catalog import load_catalog
from spotter.tools.errors import DomainError
from spotter.tools.invoke import invoke_tool, preview_tool
from tests.support.callers import caller_for
from tests.support.world import Org, create_org

ROUTER = "program_templates"
DAYS = [
    {"dayOffset": 2, "title": "Squat day", "parts": [{"name": "Lift", "sections": []}]},
    {"dayOffset": 0, "title": "Engine", "description": "Easy aerobic"},
]


async def _call(db: Database, caller: Caller, action: str, args: dict[str, Any]) -> ToolOutcome:
    return await invoke_tool(db, caller, ROUTER, {"action": action, "args": args})


async def _ok(db: Database, caller: Caller, action: str, args: dict[str, Any]) -> Any:
    outcome = await _call(db, caller, action, args)
    assert outcome.ok, outcome.error
    return outcome.output


def _error(outcome: ToolOutcome) -> str:
    assert outcome.error is not None, outcome.output
    return str(outcome.error.code)


async def _undo(db: Database, caller: Caller, action: str, output: dict[str, Any]) -> ToolOutcome:
    """Run the declared inverse of `action` on its output, as the undo endpoint does."""
    inverse = load_catalog().specs[f"{ROUTER}.{action}"].inverse
    assert inverse is not None
    outcome = await invoke_tool(
        db, caller, inverse.router, {"action": inverse.action, "args": inverse.build_input(output)}
    )
    assert outcome.ok, outcome.error
    assert outcome.audit_log_id is not None
    return outcome


def _audit_actions(owner_url: str) -> list[str]:
    with psycopg.connect(owner_url) as conn:
        rows = conn.execute("SELECT action FROM audit_logs ORDER BY created_at, id").fetchall()
    return [r[0] for r in rows]


async def _program(db: Database, caller: Caller, name: str = "CrossFit") -> str:
    outcome = await invoke_tool(
        db, caller, "programs", {"action": "create", "args": {"name": name}}
    )
    assert outcome.ok, outcome.error
    return str(outcome.output["id"])


def _workout(owner_url: str, org: Org, program_id: str, on: date, title: str) -> uuid.UUID:
    with psycopg.connect(owner_url) as conn:
        row = conn.execute(
            "INSERT INTO workouts (organization_id, program_id, scheduled_on, title, parts)"
            ' VALUES (%s, %s, %s, %s, \'[{"name": "Lift"}]\') RETURNING id',
            (org.id, program_id, on, title),
        ).fetchone()
    assert row is not None
    return uuid.UUID(str(row[0]))


def _live_workouts(owner_url: str, program_id: str) -> list[tuple[date, str]]:
    with psycopg.connect(owner_url) as conn:
        rows = conn.execute(
            "SELECT scheduled_on, title FROM workouts WHERE program_id = %s"
            " AND deleted_at IS NULL ORDER BY scheduled_on, title",
            (program_id,),
        ).fetchall()
    return [(r[0], r[1]) for r in rows]


async def _template(db: Database, caller: Caller, name: str = "Beginner 4-week") -> str:
    out = await _ok(db, caller, "create", {"name": name, "days": DAYS})
    return str(out["id"])


async def test_create_get_and_list(db: Database, org: Org) -> None:
    coach = await caller_for(db, org, "coach")
    created = await _ok(db, coach, "create", {"name": "Beginner 4-week", "days": DAYS})
    assert [d["dayOffset"] for d in created["days"]] == [0, 2]
    got = await _ok(db, coach, "get", {"templateId": created["id"]})
    assert got["days"][1] == {
        "dayOffset": 2,
        "title": "Squat day",
        "description": None,
        "parts": [{"name": "Lift", "sections": []}],
    }
    listed = await _ok(db, coach, "list", {"query": "begin"})
    assert listed["templates"] == [
        {
            "id": created["id"],
            "name": "Beginner 4-week",
            "description": None,
            "dayCount": 2,
            "lengthDays": 3,
        }
    ]


async def test_create_from_a_programs_date_range(db: Database, org: Org, clean_db: str) -> None:
    owner = await caller_for(db, org, "owner")
    program = await _program(db, owner)
    _workout(clean_db, org, program, date(2026, 12, 7), "Monday grind")
    _workout(clean_db, org, program, date(2026, 12, 9), "Wednesday sprint")
    _workout(clean_db, org, program, date(2026, 12, 20), "Outside the range")
    span = {"startsOn": "2026-12-07", "endsOn": "2026-12-13"}
    out = await _ok(
        db, owner, "create", {"name": "Week one", "fromProgramId": program, "span": span}
    )
    assert [(d["dayOffset"], d["title"]) for d in out["days"]] == [
        (0, "Monday grind"),
        (2, "Wednesday sprint"),
    ]
    assert out["days"][0]["parts"] == [{"name": "Lift"}]


async def test_copy_refuses_a_date_with_several_workouts(
    db: Database, org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, org, "owner")
    program = await _program(db, owner)
    _workout(clean_db, org, program, date(2026, 12, 7), "AM")
    _workout(clean_db, org, program, date(2026, 12, 7), "PM")
    span = {"startsOn": "2026-12-07", "endsOn": "2026-12-08"}
    outcome = await _call(
        db, owner, "create", {"name": "W", "fromProgramId": program, "span": span}
    )
    assert _error(outcome) == "conflict"
    assert outcome.error is not None and outcome.error.details["dates"] == ["2026-12-07"]


async def test_bad_args_are_invalid_args(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    twice = [{"dayOffset": 1, "title": "A"}, {"dayOffset": 1, "title": "B"}]
    for args in (
        {"name": "X", "days": twice},
        {"name": "X", "fromProgramId": str(uuid.uuid4())},
        {"name": "X", "days": [{"dayOffset": -1, "title": "A"}]},
        {"name": ""},
        {"name": "X", "fromProgramId": str(uuid.uuid4()), "span": {"startsOn": "2026-12-09",
                                                                  "endsOn": "2026-12-01"}},
    ):  # fmt: skip
        assert _error(await _call(db, owner, "create", args)) == "invalid_args", args
    assert _error(await _call(db, owner, "get", {"templateId": "nope"})) == "invalid_args"


async def test_update_renames_and_refuses_a_taken_name(db: Database, org: Org) -> None:
    coach = await caller_for(db, org, "coach")
    first = await _template(db, coach, "Beginner 4-week")
    await _template(db, coach, "Deload week")
    renamed = await _ok(db, coach, "update", {"templateId": first, "name": "Beginner 6-week"})
    assert renamed["name"] == "Beginner 6-week"
    clash = await _call(db, coach, "update", {"templateId": first, "name": "deload WEEK"})
    assert _error(clash) == "conflict"


async def test_add_and_remove_day_each_undo_the_other(
    db: Database, org: Org, clean_db: str
) -> None:
    coach = await caller_for(db, org, "coach")
    template = await _template(db, coach)
    taken = await _call(db, coach, "add_day", {"templateId": template, "day": DAYS[0]})
    assert _error(taken) == "conflict"
    added = await _ok(
        db, coach, "add_day", {"templateId": template, "day": {"dayOffset": 5, "title": "Long"}}
    )
    assert [d["dayOffset"] for d in added["days"]] == [0, 2, 5]
    await _undo(db, coach, "add_day", added)
    got = await _ok(db, coach, "get", {"templateId": template})
    assert [d["dayOffset"] for d in got["days"]] == [0, 2]

    removed = await _ok(db, coach, "remove_day", {"templateId": template, "dayOffset": 2})
    assert [d["dayOffset"] for d in removed["days"]] == [0]
    await _undo(db, coach, "remove_day", removed)
    got = await _ok(db, coach, "get", {"templateId": template})
    assert got["days"][1]["parts"] == [{"name": "Lift", "sections": []}]
    missing = await _call(db, coach, "remove_day", {"templateId": template, "dayOffset": 9})
    assert _error(missing) == "not_found"
    assert _audit_actions(clean_db)[-2:] == [
        "program_template.day_removed",
        "program_template.day_added",
    ]


async def test_set_days_preview_then_replace_and_undo(db: Database, org: Org) -> None:
    coach = await caller_for(db, org, "coach")
    template = await _template(db, coach, "Deload week")
    new_days = [{"dayOffset": 0, "title": "Mobility"}, {"dayOffset": 2, "title": "Squat day"}]
    args = {"templateId": template, "days": new_days}
    card = await preview_tool(db, coach, ROUTER, {"action": "set_days", "args": args})
    assert card.target == "Deload week"
    assert card.affected_count == 2
    assert card.consequences == ["replaces_all_days"]
    assert card.changes == [{"field": "day 0", "old": "Engine", "new": "Mobility"}]
    assert template not in str(card.model_dump(exclude={"arguments"}))

    out = await _ok(db, coach, "set_days", args)
    assert [d["title"] for d in out["days"]] == ["Mobility", "Squat day"]
    await _undo(db, coach, "set_days", out)
    got = await _ok(db, coach, "get", {"templateId": template})
    assert [(d["title"], d["description"]) for d in got["days"]] == [
        ("Engine", "Easy aerobic"),
        ("Squat day", None),
    ]


async def test_duplicate_copies_days_and_undo_deletes_the_copy(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    template = await _template(db, owner)
    copy = await _ok(db, owner, "duplicate", {"templateId": template, "name": "Beginner v2"})
    assert copy["id"] != template
    assert [d["title"] for d in copy["days"]] == ["Engine", "Squat day"]
    await _undo(db, owner, "duplicate", copy)
    listed = await _ok(db, owner, "list", {})
    assert [t["name"] for t in listed["templates"]] == ["Beginner 4-week"]


async def test_delete_previews_the_name_and_hides_the_template(db: Database, org: Org) -> None:
    coach = await caller_for(db, org, "coach")
    template = await _template(db, coach, "Deload week")
    card = await preview_tool(
        db, coach, ROUTER, {"action": "delete", "args": {"templateId": template}}
    )
    assert (card.target, card.affected_count) == ("Deload week", 1)
    assert card.consequences == ["template_deleted"]
    await _ok(db, coach, "delete", {"templateId": template})
    assert _error(await _call(db, coach, "get", {"templateId": template})) == "not_found"
    assert (await _ok(db, coach, "list", {}))["templates"] == []


async def test_members_cannot_use_templates(db: Database, org: Org) -> None:
    member = await caller_for(db, org, "member")
    assert _error(await _call(db, member, "list", {})) == "forbidden"


async def test_starter_tier_has_no_templates(db: Database, clean_db: str) -> None:
    starter = create_org(clean_db, name="Small Box", tier="starter")
    owner = await caller_for(db, starter, "owner")
    outcome = await _call(db, owner, "list", {})
    assert _error(outcome) == "feature_unavailable"
    created = await _call(db, owner, "create", {"name": "Nope", "days": DAYS})
    assert _error(created) == "feature_unavailable"
    with psycopg.connect(clean_db) as conn:
        assert conn.execute("SELECT count(*) FROM program_templates").fetchone() == (0,)


async def test_foreign_org_ids_are_not_found(db: Database, org: Org, other_org: Org) -> None:
    theirs_owner = await caller_for(db, other_org, "owner")
    theirs = await _template(db, theirs_owner)
    their_program = await _program(db, theirs_owner)
    owner = await caller_for(db, org, "owner")
    mine = await _template(db, owner)
    my_program = await _program(db, owner)
    for action, args in (
        ("get", {"templateId": theirs}),
        ("update", {"templateId": theirs, "name": "Mine"}),
        ("add_day", {"templateId": theirs, "day": {"dayOffset": 9, "title": "X"}}),
        ("duplicate", {"templateId": theirs, "name": "Stolen"}),
        ("apply", {"templateId": theirs, "programId": my_program, "startsOn": "2026-12-07"}),
        ("apply", {"templateId": mine, "programId": their_program, "startsOn": "2026-12-07"}),
        ("create", {"name": "Copy", "fromProgramId": their_program,
                    "span": {"startsOn": "2026-12-01", "endsOn": "2026-12-31"}}),
        ("unapply", {"applicationId": str(uuid.uuid4())}),
    ):  # fmt: skip
        assert _error(await _call(db, owner, action, args)) == "not_found", action
    for action, args in (
        ("delete", {"templateId": theirs}),
        ("apply", {"templateId": theirs, "programId": my_program, "startsOn": "2026-12-07"}),
    ):
        with pytest.raises(DomainError) as info:
            await preview_tool(db, owner, ROUTER, {"action": action, "args": args})
        assert info.value.code == "not_found"


async def test_apply_previews_replacements_writes_and_undoes_exactly(
    db: Database, org: Org, clean_db: str
) -> None:
    coach = await caller_for(db, org, "coach")
    program = await _program(db, await caller_for(db, org, "owner"), "CrossFit")
    template = await _template(db, coach, "Beginner 4-week")
    _workout(clean_db, org, program, date(2026, 12, 9), "Old Wednesday")
    _workout(clean_db, org, program, date(2026, 12, 10), "Untouched Thursday")
    args = {"templateId": template, "programId": program, "startsOn": "2026-12-07"}

    card = await preview_tool(db, coach, ROUTER, {"action": "apply", "args": args})
    assert card.target == "Beginner 4-week → CrossFit"
    assert card.affected_count == 2
    assert card.consequences == ["writes_draft_workouts", "replaces_existing_workouts"]
    assert card.changes == [{"field": "2026-12-09", "old": "Old Wednesday", "new": "Squat day"}]
    assert program not in str(card.model_dump(exclude={"arguments"}))

    applied = await _ok(db, coach, "apply", args)
    assert applied["replacedCount"] == 1
    assert [(w["date"], w["title"]) for w in applied["workouts"]] == [
        ("2026-12-07", "Engine"),
        ("2026-12-09", "Squat day"),
    ]
    assert _live_workouts(clean_db, program) == [
        (date(2026, 12, 7), "Engine"),
        (date(2026, 12, 9), "Squat day"),
        (date(2026, 12, 10), "Untouched Thursday"),
    ]
    with psycopg.connect(clean_db) as conn:
        row = conn.execute(
            "SELECT status, parts FROM workouts WHERE title = 'Squat day'"
        ).fetchone()
    assert row == ("draft", [{"name": "Lift", "sections": []}])

    undo_card = await preview_tool(
        db, coach, ROUTER, {"action": "unapply", "args": {"applicationId": applied["id"]}}
    )
    assert (undo_card.target, undo_card.affected_count) == ("Beginner 4-week → CrossFit", 2)
    assert undo_card.consequences == ["removes_applied_workouts", "restores_replaced_workouts"]

    undone = await _undo(db, coach, "apply", applied)
    assert undone.output == {"id": applied["id"], "removedCount": 2, "restoredCount": 1}
    assert _live_workouts(clean_db, program) == [
        (date(2026, 12, 9), "Old Wednesday"),
        (date(2026, 12, 10), "Untouched Thursday"),
    ]
    assert _audit_actions(clean_db)[-2:] == [
        "program_template.applied",
        "program_template.unapplied",
    ]
    again = await _call(db, coach, "unapply", {"applicationId": applied["id"]})
    assert _error(again) == "conflict"


async def test_apply_refuses_archived_programs_and_empty_templates(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    program = await _program(db, owner)
    empty = (await _ok(db, owner, "create", {"name": "Empty"}))["id"]
    args = {"templateId": empty, "programId": program, "startsOn": "2026-12-07"}
    assert _error(await _call(db, owner, "apply", args)) == "conflict"
    await invoke_tool(db, owner, "programs", {"action": "archive", "args": {"programId": program}})
    full = await _template(db, owner)
    args = {"templateId": full, "programId": program, "startsOn": "2026-12-07"}
    assert _error(await _call(db, owner, "apply", args)) == "conflict"


def test_whoever_may_call_a_tool_may_undo_it() -> None:
    catalog = load_catalog()
    for spec in catalog.specs.values():
        if spec.router == ROUTER and spec.inverse is not None:
            inverse = catalog.specs[f"{spec.inverse.router}.{spec.inverse.action}"]
            assert spec.roles <= inverse.roles, spec.name
            assert inverse.feature_gate == spec.feature_gate, spec.name
