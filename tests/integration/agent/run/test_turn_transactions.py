"""How a turn meets the database (issue 15): few transactions, each doing all it can.

Parallel reads settle in ONE transaction with their results turn; a model call refreshes the
lease only when the run has not confirmed it lately (every fenced write confirms it); a turn
reads only the history a replay sends, never the whole log.
"""

from __future__ import annotations

import uuid
from typing import Any

import psycopg
import pytest
from psycopg.rows import dict_row

from spotter.agent import events as ev
from spotter.agent import run_lease
from spotter.agent.transcript import append_message, load_history, projection
from spotter.auth import Caller
from spotter.db import Database
from spotter.providers.fake import Reply, ScriptedModel, Text, ToolUse, tool_reply
from tests.support.agent import (
    conversation_id_of,
    default_lane_reply,
    deps_for,
    run_turn,
    stored_messages,
)
from tests.support.callers import caller_for
from tests.support.hitl import add_program
from tests.support.world import Org


@pytest.fixture
async def owner(db: Database, org: Org) -> Caller:
    return await caller_for(db, org, "owner")


def _transaction_ids(url: str, conversation: str) -> dict[str, set[int]]:
    with psycopg.connect(url, row_factory=dict_row) as conn:
        executions = conn.execute(
            "SELECT xmin::text::bigint AS tx FROM ai_tool_executions WHERE conversation_id = %s",
            (conversation,),
        ).fetchall()
        results = conn.execute(
            "SELECT xmin::text::bigint AS tx FROM ai_messages"
            " WHERE conversation_id = %s AND role = 'tool_result'",
            (conversation,),
        ).fetchall()
    return {"executions": {r["tx"] for r in executions}, "results": {r["tx"] for r in results}}


async def test_parallel_reads_settle_with_their_results_turn_in_one_transaction(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    add_program(clean_db, org, "Strength")
    reads = [ToolUse("programs", {"action": "list", "args": {}}, id=f"r{i}") for i in range(3)]
    model = ScriptedModel([tool_reply(*reads), Reply([Text("Three lists.")])])
    events = await run_turn(deps_for(db, model), owner, "list programs thrice")
    completed = [e.tool_use_id for e in events if isinstance(e, ev.ToolCompleted)]
    assert completed == ["r0", "r1", "r2"]
    written = _transaction_ids(clean_db, conversation_id_of(events))
    assert len(written["executions"]) == 1, "the three rows were written by one transaction"
    assert written["executions"] == written["results"], "...the one that stored the results"


async def _conversation(db: Database, owner: Caller) -> str:
    """An existing conversation: no title is written beside the next run (the usurper's
    UPDATE below runs on the event loop, so it must not wait for a lock the run holds)."""
    events = await run_turn(deps_for(db, ScriptedModel([Reply([Text("Hi.")])])), owner, "hi")
    return conversation_id_of(events)


def _usurping_router(clean_db: str, usurper: uuid.UUID) -> Any:
    """A quick route during which the run is presumed dead and another run takes over."""

    def lane(lane: str, body: dict[str, Any]) -> Any:
        if lane == "quick_route":
            with psycopg.connect(clean_db) as conn:
                conn.execute("UPDATE ai_conversations SET live_run_id = %s", (usurper,))
        return default_lane_reply(lane, body)

    return lane


async def test_a_lease_not_confirmed_lately_is_refreshed_before_the_next_model_call(
    db: Database, owner: Caller, clean_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    conversation = await _conversation(db, owner)
    monkeypatch.setattr(run_lease, "FENCE_TRUST", run_lease.FENCE_TRUST * 0)
    usurper = uuid.uuid4()
    model = ScriptedModel([Reply([Text("Never asked.")])])
    model.lane_default = _usurping_router(clean_db, usurper)
    events = await run_turn(deps_for(db, model), owner, "hello", conversation_id=conversation)
    busy = [e for e in events if isinstance(e, ev.Error) and e.code == "conversation_busy"]
    assert busy and busy[0].run_id == str(usurper)
    assert model.requests == [], "the loop's call never started: its refresh found the lease lost"


async def test_a_lease_confirmed_lately_costs_the_model_call_no_refresh(
    db: Database, owner: Caller, clean_db: str
) -> None:
    conversation = await _conversation(db, owner)
    usurper = uuid.uuid4()
    model = ScriptedModel([Reply([Text("Answered, never stored.")])])
    model.lane_default = _usurping_router(clean_db, usurper)
    events = await run_turn(deps_for(db, model), owner, "hello", conversation_id=conversation)
    assert len(model.requests) == 1, "no refresh stood between the router and the loop's call"
    busy = [e for e in events if isinstance(e, ev.Error) and e.code == "conversation_busy"]
    assert busy and busy[0].run_id == str(usurper), "...and its reply's fenced write caught it"
    roles = [r["role"] for r in stored_messages(clean_db, conversation)]
    assert roles == ["user", "assistant", "user"], "a run that lost its lease stores no reply"


async def test_a_turn_reads_only_the_history_a_replay_sends(
    db: Database, owner: Caller, clean_db: str
) -> None:
    events = await run_turn(deps_for(db, ScriptedModel([Reply([Text("Hi.")])])), owner)
    conversation = uuid.UUID(conversation_id_of(events))
    org_id, run = owner.org_id, uuid.uuid4()

    async def add(role: Any, text: str, page: dict[str, Any] | None = None) -> int:
        async with db.org_tx(org_id) as conn:
            appended = await append_message(
                conn, org_id, conversation, run_id=run, role=role,
                content=[{"type": "text", "text": text}], page_context=page,
            )  # fmt: skip
        return appended.ordinal

    for i in range(6):
        await add("user", f"question {i}")
        kept_from = await add("assistant", f"answer {i}")
    await add("system_note", "older summary", {"summarizedThroughOrdinal": 2})
    for i in range(4):
        await add("user", f"later {i}")
    await add("system_note", "newest summary", {"summarizedThroughOrdinal": kept_from})
    await add("user", "latest")

    async with db.org_tx(org_id) as conn:
        loaded = await load_history(conn, owner, conversation)
    with psycopg.connect(clean_db, row_factory=dict_row) as conn:
        every_row = conn.execute(
            "SELECT ordinal, role, page_context FROM ai_messages WHERE conversation_id = %s"
            " ORDER BY ordinal",
            (conversation,),
        ).fetchall()
    replayed = [r["ordinal"] for r in projection([m.as_row() for m in loaded])]
    assert replayed == [r["ordinal"] for r in projection(every_row)]
    assert all(m.ordinal > kept_from for m in loaded), "nothing the newest summary covers is read"
