"""Outbound calls through the agent: approved, committed, then delivered once; the model and the
conversation loader see what was delivered; an interrupted send is never re-sent."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import psycopg
import pytest

from spotter.agent import events as ev
from spotter.agent.conversations import get_conversation
from spotter.agent.run import resolve as resolution
from spotter.auth import Caller
from spotter.db import Database
from spotter.domain.outbox import sweep_outbox
from spotter.providers.email import OutboundEmail, RecordingSender
from spotter.providers.fake import Reply, ScriptedModel, Text, ToolUse
from tests.support.agent import deps_for, run_turn
from tests.support.callers import caller_for
from tests.support.hitl import collect, of_type, suspend
from tests.support.memberships import add_member
from tests.support.world import Org, Person

BODY = "Hi Ann,\n\nThe 7:00 class moves to 7:30 tomorrow."


@pytest.fixture
async def owner(db: Database, org: Org) -> Caller:
    return await caller_for(db, org, "owner")


@pytest.fixture
def ann(org: Org, clean_db: str) -> Person:
    return add_member(clean_db, org, "Ann Bar", "ann@example.com")


def message(person: Person, tool_use_id: str = "t1") -> ToolUse:
    args = {"memberId": str(person.membership_id), "subject": "Class moved", "body": BODY}
    return ToolUse("messages", {"action": "send", "args": args}, id=tool_use_id)


async def shown_delivery(db: Database, owner: Caller, conversation: uuid.UUID) -> Any:
    async with db.org_tx(owner.org_id) as conn:
        shown = await get_conversation(conn, owner.org_id, owner.user_id, conversation)
    return [
        (t["toolUseId"], [d["status"] for d in t.get("delivery", [])])
        for t in shown["toolExecutions"]
    ]


def outbox_statuses(url: str) -> list[str]:
    with psycopg.connect(url) as conn:
        return [r[0] for r in conn.execute("SELECT status FROM outbox_messages").fetchall()]


async def test_the_approval_card_shows_the_whole_message_before_anything_is_queued(
    db: Database, owner: Caller, ann: Person, clean_db: str
) -> None:
    _, events = await suspend(db, owner, ScriptedModel(), message(ann))
    [pending] = of_type(events, ev.ConfirmationPending)
    assert pending.confirmation is not None and pending.confirmation.outbound is not None
    assert (pending.confirm, pending.confirmation.outbound["body"]) == ("always", BODY)
    assert pending.confirmation.affected_count == 1
    assert outbox_statuses(clean_db) == []


async def test_an_approved_message_is_delivered_once_and_everyone_sees_it_delivered(
    db: Database, owner: Caller, ann: Person
) -> None:
    model = ScriptedModel()
    conversation, _ = await suspend(db, owner, model, message(ann))
    model.script.append(Reply([Text("Sent to Ann.")]))
    deps = deps_for(db, model)
    events = await collect(resolution.confirm(deps, owner, conversation, "t1", True))
    [completed] = of_type(events, ev.ToolCompleted)
    assert completed.ok and completed.output["delivery"] == {"delivered": 1}
    assert isinstance(deps.email_sender, RecordingSender)
    assert [(e.to_address, e.body) for e in deps.email_sender.sent] == [("ann@example.com", BODY)]
    result = model.requests[-1]["messages"][2]["content"][0]
    assert json.loads(result["content"])["delivery"] == {"delivered": 1}
    assert await shown_delivery(db, owner, conversation) == [("t1", ["delivered"])]
    again = await collect(resolution.confirm(deps, owner, conversation, "t1", True))
    assert of_type(again, ev.Error)[0].code == "tool_already_resolved"
    assert len(deps.email_sender.sent) == 1


async def test_a_declined_message_queues_nothing(
    db: Database, owner: Caller, ann: Person, clean_db: str
) -> None:
    model = ScriptedModel()
    conversation, _ = await suspend(db, owner, model, message(ann))
    model.script.append(Reply([Text("Not sent.")]))
    deps = deps_for(db, model)
    await collect(resolution.confirm(deps, owner, conversation, "t1", False))
    assert outbox_statuses(clean_db) == []
    assert isinstance(deps.email_sender, RecordingSender) and deps.email_sender.sent == []


async def test_a_send_the_provider_may_have_taken_is_shown_unknown_and_never_resent(
    db: Database, owner: Caller, ann: Person
) -> None:
    model = ScriptedModel()
    conversation, _ = await suspend(db, owner, model, message(ann))
    model.script.append(Reply([Text("Not sure it went out.")]))
    deps = deps_for(db, model)
    object.__setattr__(
        deps, "email_sender", RecordingSender(interrupt=TimeoutError("read timeout"))
    )
    events = await collect(resolution.confirm(deps, owner, conversation, "t1", True))
    [completed] = of_type(events, ev.ToolCompleted)
    assert completed.output["delivery"] == {"outcome_unknown": 1}
    healthy = RecordingSender()
    await sweep_outbox(db, healthy)
    assert healthy.sent == []
    assert await shown_delivery(db, owner, conversation) == [("t1", ["outcome_unknown"])]


async def _confirm_killed_during_the_provider_call(
    db: Database, owner: Caller, ann: Person
) -> tuple[ScriptedModel, uuid.UUID]:
    """An outbound call approved, and the process dies while the provider has its message."""
    model = ScriptedModel()
    conversation, _ = await suspend(db, owner, model, message(ann))
    calling = asyncio.Event()

    class Hangs:
        async def send(self, email: OutboundEmail) -> str:
            calling.set()
            await asyncio.sleep(3600)
            raise AssertionError("unreachable")

    deps = deps_for(db, model)
    object.__setattr__(deps, "email_sender", Hangs())
    task = asyncio.create_task(collect(resolution.confirm(deps, owner, conversation, "t1", True)))
    await asyncio.wait_for(calling.wait(), timeout=10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    return model, conversation


async def test_a_delivery_killed_mid_call_is_never_resent(
    db: Database, owner: Caller, ann: Person, clean_db: str
) -> None:
    model, conversation = await _confirm_killed_during_the_provider_call(db, owner, ann)
    assert outbox_statuses(clean_db) == ["sending"]
    assert await shown_delivery(db, owner, conversation) == [("t1", ["sending"])]
    healthy = RecordingSender()
    await sweep_outbox(db, healthy)  # within the claim window: left alone
    with psycopg.connect(clean_db) as conn:
        conn.execute("UPDATE outbox_messages SET claimed_at = claimed_at - interval '10 minutes'")
    await sweep_outbox(db, healthy)
    await sweep_outbox(db, healthy)
    assert healthy.sent == []
    assert outbox_statuses(clean_db) == ["outcome_unknown"]
    again = await collect(resolution.confirm(deps_for(db, model), owner, conversation, "t1", True))
    assert of_type(again, ev.Error)[0].code == "tool_already_resolved"
    assert await shown_delivery(db, owner, conversation) == [("t1", ["outcome_unknown"])]


async def test_what_the_model_and_the_loader_read_is_the_rows_final_state_after_a_crash(
    db: Database, owner: Caller, ann: Person, clean_db: str
) -> None:
    """Issue 30 item 9: after a crash during the provider call the row ended `outcome_unknown`,
    but the tool_result the model read still said `delivery {queued: 1}`, and it told the user
    the mail was sent."""
    model, conversation = await _confirm_killed_during_the_provider_call(db, owner, ann)
    with psycopg.connect(clean_db) as conn:
        conn.execute("UPDATE outbox_messages SET claimed_at = claimed_at - interval '10 minutes'")
        conn.execute(  # two minutes pass: the dead resolution's lease is known gone
            "UPDATE ai_conversations SET live_run_claimed_at = live_run_claimed_at"
            " - interval '10 minutes' WHERE live_run_id IS NOT NULL"
        )
    await sweep_outbox(db, RecordingSender())
    assert outbox_statuses(clean_db) == ["outcome_unknown"]

    async with db.org_tx(owner.org_id) as conn:
        shown = await get_conversation(conn, owner.org_id, owner.user_id, conversation)
    [call] = shown["toolExecutions"]
    assert call["output"]["delivery"] == {"outcome_unknown": 1}
    assert [m["status"] for m in call["output"]["messages"]] == ["outcome_unknown"]

    model.script.append(Reply([Text("I am not sure it went out.")]))
    events = await run_turn(deps_for(db, model), owner, "did it go?", conversation_id=conversation)
    assert not of_type(events, ev.Error)
    [told] = [
        json.loads(b["content"])
        for m in model.requests[-1]["messages"]
        for b in m["content"]
        if isinstance(b, dict) and b.get("type") == "tool_result"
    ]
    assert told["delivery"] == {"outcome_unknown": 1}, "the model reads the row's final state"
