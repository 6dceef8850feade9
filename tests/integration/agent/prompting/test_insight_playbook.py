"""`<insight_playbook>` (issue 26 item 9, issue 29 item 3) and outcome tracking (issue 29 item 4):
a send opened from a dashboard insight carries that insight's playbook in its turn context, the
actions it takes are linked to the insight on their execution rows, and analytics reports what
followed; any other send carries no playbook and links nothing."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, time, timedelta
from typing import Any

import psycopg
import pytest

from spotter.agent import events as ev
from spotter.agent.run import resolve as resolution
from spotter.auth import Caller
from spotter.db import Database
from spotter.db.scope import OrgScope
from spotter.domain.analytics.period import Period
from spotter.domain.insights import insight_outcomes
from spotter.providers.fake import Reply, ScriptedModel, Text, ToolUse, tool_reply
from tests.support.agent import conversation_id_of, deps_for, run_turn, stored_messages
from tests.support.analytics import TZ, class_type, session
from tests.support.callers import caller_for
from tests.support.hitl import collect
from tests.support.memberships import add_member
from tests.support.world import Org, Person

AT_RISK = {"insight": "members_at_risk"}


@pytest.fixture
async def owner(db: Database, org: Org) -> Caller:
    return await caller_for(db, org, "owner")


@pytest.fixture
def ann(org: Org, clean_db: str) -> Person:
    return add_member(clean_db, org, "Ann Bar", "ann@example.com")


def _check_in_message(person: Person) -> ToolUse:
    args = {"memberId": str(person.membership_id), "subject": "We miss you", "body": "Hi Ann!"}
    return ToolUse("messages", {"action": "send", "args": args}, id="t1")


def _turn_context(owner_url: str, conversation_id: str) -> str:
    user = next(m for m in stored_messages(owner_url, conversation_id) if m["role"] == "user")
    return str(user["content"][1]["text"])


async def _send(
    db: Database, caller: Caller, model: ScriptedModel, selection: dict[str, Any] | None
) -> tuple[str, list[ev.AgentEvent]]:
    events = await run_turn(deps_for(db, model), caller, "tell me more", selection=selection)
    assert isinstance(events[-1], ev.Done)
    return conversation_id_of(events), events


def _insight_kinds(owner_url: str) -> list[Any]:
    with psycopg.connect(owner_url) as conn:
        rows = conn.execute("SELECT insight_kind FROM ai_tool_executions").fetchall()
    return [r[0] for r in rows]


async def test_a_send_from_an_insight_carries_its_playbook_in_the_turn_context(
    db: Database, owner: Caller, clean_db: str
) -> None:
    model = ScriptedModel([Reply([Text("Four members.")])])
    conversation, _ = await _send(db, owner, model, AT_RISK)
    context = _turn_context(clean_db, conversation)
    assert '<insight_playbook kind="members_at_risk">' in context
    assert "messages.send" in context and "comes from a tool result" in context
    # inside the turn context, after the page it was sent from
    assert context.index("</page_context>") < context.index("<insight_playbook")
    assert context.index("</insight_playbook>") < context.index("</turn_context>")
    sent = model.requests[-1]["messages"][0]["content"][1]["text"]
    assert "<insight_playbook" in sent


@pytest.mark.parametrize("selection", [None, {"memberId": "x"}, {"insight": "made_up_kind"}])
async def test_a_send_not_from_a_known_insight_has_no_playbook(
    db: Database, owner: Caller, clean_db: str, selection: dict[str, Any] | None
) -> None:
    conversation, _ = await _send(db, owner, ScriptedModel([Reply([Text("ok")])]), selection)
    assert "insight_playbook" not in _turn_context(clean_db, conversation)


async def test_an_action_taken_from_an_insight_is_linked_to_it_and_its_outcome_reported(
    db: Database, owner: Caller, ann: Person, org: Org, clean_db: str
) -> None:
    model = ScriptedModel([tool_reply(_check_in_message(ann))])
    conversation, _ = await _send(db, owner, model, AT_RISK)
    assert _insight_kinds(clean_db) == ["members_at_risk"]  # linked while still pending
    model.script.append(Reply([Text("Sent.")]))
    deps = deps_for(db, model)
    await collect(resolution.confirm(deps, owner, uuid.UUID(conversation), "t1", True))
    # Ann came back two days after the message
    back = datetime.now(UTC).astimezone(TZ) + timedelta(days=2)
    crossfit = class_type(clean_db, org, "CrossFit")
    session(
        clean_db, org, crossfit, back.date(), time(7), bookings={ann.membership_id: "checked_in"}
    )
    later = datetime.now(UTC) + timedelta(days=5)
    today = later.astimezone(TZ).date()
    async with db.org_tx(org.id) as conn:
        report = await insight_outcomes(
            OrgScope(conn, org.id), Period(today - timedelta(days=29), today, TZ), now=later,
            at_risk_ids=[str(ann.membership_id), str(uuid.uuid4())],
        )  # fmt: skip
    at_risk = report["kinds"]["members_at_risk"]
    assert (at_risk["actions"], at_risk["membersMessaged"], at_risk["membersReturned"]) == (1, 1, 1)
    assert (at_risk["atRiskNow"], at_risk["atRiskNotContacted"]) == (2, 1)


async def test_an_action_from_an_ordinary_send_is_linked_to_no_insight(
    db: Database, owner: Caller, ann: Person, clean_db: str
) -> None:
    await _send(db, owner, ScriptedModel([tool_reply(_check_in_message(ann))]), None)
    assert _insight_kinds(clean_db) == [None]
