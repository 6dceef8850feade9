"""How many times a turn commits (issue 22 item 6), and what each fold keeps durable.

A writing transaction is assigned a transaction id and a read-only one none, so the ids the
server handed out between before and after a turn are its commits (bench/turn_overhead.py counts
them the same way). The test server is this worker's own, and a turn in an existing conversation
writes no title beside it, so nothing else takes an id meanwhile.
"""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from psycopg.rows import dict_row

from spotter.agent import events as ev
from spotter.auth import Caller
from spotter.db import Database
from spotter.providers.fake import Reply, ScriptedModel, Text, ToolUse, tool_reply
from tests.support.agent import conversation_id_of, deps_for, run_turn, stored_messages
from tests.support.callers import caller_for
from tests.support.hitl import add_program
from tests.support.world import Org, create_org


@pytest.fixture
async def owner(db: Database, org: Org) -> Caller:
    return await caller_for(db, org, "owner")  # a metered tier (growth)


@pytest.fixture
def unmetered_org(clean_db: str) -> Org:
    return create_org(clean_db, name="Box E", tier="enterprise")


@pytest.fixture
async def unmetered(db: Database, unmetered_org: Org) -> Caller:
    return await caller_for(db, unmetered_org, "owner")


def _next_xid(url: str) -> int:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint"
        ).fetchone()
    assert row is not None
    return int(row[0])


async def _commits_of(db: Database, clean_db: str, owner: Caller, *replies: Reply) -> int:
    """The writing transactions of one turn in an existing conversation."""
    first = await run_turn(deps_for(db, ScriptedModel([Reply([Text("Hi.")])])), owner, "hi")
    conversation = conversation_id_of(first)
    before = _next_xid(clean_db)
    events = await run_turn(
        deps_for(db, ScriptedModel(list(replies))), owner, "again", conversation_id=conversation
    )
    assert isinstance(events[-1], ev.Done) and not [e for e in events if isinstance(e, ev.Error)]
    return _next_xid(clean_db) - before


async def test_a_plain_turn_commits_three_times(
    db: Database, unmetered: Caller, clean_db: str
) -> None:
    # prepare (the user turn, the lease); the quick route's usage before the loop's call; the
    # reply with its usage, the last event batch and the lease's release
    assert await _commits_of(db, clean_db, unmetered, Reply([Text("Sure.")])) == 3


async def test_a_plain_turn_of_a_metered_tier_commits_four_times(
    db: Database, owner: Caller, clean_db: str
) -> None:
    # a metered tier holds before each call: the quick route's hold has its own commit (not yet
    # folded into prepare), the loop's rides with the quick route's usage
    assert await _commits_of(db, clean_db, owner, Reply([Text("Sure.")])) == 4


async def test_a_three_read_turn_commits_five_times(
    db: Database, unmetered_org: Org, unmetered: Caller, clean_db: str
) -> None:
    add_program(clean_db, unmetered_org, "Strength")
    reads = [ToolUse("programs", {"action": "list", "args": {}}, id=f"r{i}") for i in range(3)]
    # prepare; the quick route's usage; the reply that calls the reads (before they run); the
    # reads' settle (their rows and the results turn; the reads' own transactions write
    # nothing); the last reply with the last batch and the release
    replies = (tool_reply(*reads), Reply([Text("Three.")]))
    assert await _commits_of(db, clean_db, unmetered, *replies) == 5


def _written_by(url: str, conversation: str) -> dict[str, Any]:
    with psycopg.connect(url, row_factory=dict_row) as conn:
        reply = conn.execute(
            "SELECT xmin::text AS tx FROM ai_messages WHERE conversation_id = %s"
            " AND role = 'assistant' ORDER BY ordinal DESC LIMIT 1",
            (conversation,),
        ).fetchone()
        final = conn.execute(
            "SELECT xmin::text AS tx, events FROM ai_run_events WHERE conversation_id = %s"
            " AND final ORDER BY last_seq DESC LIMIT 1",
            (conversation,),
        ).fetchone()
        lease = conn.execute(
            "SELECT xmin::text AS tx, live_run_id FROM ai_conversations WHERE id = %s",
            (conversation,),
        ).fetchone()
    assert reply and final and lease
    return {"reply": reply, "final": final, "lease": lease}


async def test_the_last_reply_its_done_and_the_lease_release_commit_together(
    db: Database, owner: Caller, clean_db: str
) -> None:
    events = await run_turn(deps_for(db, ScriptedModel([Reply([Text("Hello there.")])])), owner)
    conversation = conversation_id_of(events)
    written = _written_by(clean_db, conversation)
    assert written["lease"]["live_run_id"] is None
    assert written["reply"]["tx"] == written["final"]["tx"] == written["lease"]["tx"], (
        "a follower never finds the conversation free without the reply, nor the reply "
        "without `done`"
    )
    said = [entry[1]["type"] for entry in written["final"]["events"]]
    assert said[-2:] == ["message_done", "done"]


async def test_message_done_is_said_with_done_and_names_the_stored_reply(
    db: Database, owner: Caller, clean_db: str
) -> None:
    events = await run_turn(deps_for(db, ScriptedModel([Reply([Text("Hello there.")])])), owner)
    assert [e.type for e in events][-2:] == ["message_done", "done"]
    done = next(e for e in events if isinstance(e, ev.MessageDone))
    rows = stored_messages(clean_db, conversation_id_of(events))
    assert str(rows[-1]["id"]) == done.message_id and rows[-1]["role"] == "assistant"
