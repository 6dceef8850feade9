"""How many times a turn commits (issue 22 item 6), and what each fold keeps durable.

A writing transaction is assigned a transaction id and a read-only one none, so the ids the
server handed out between before and after a turn are its commits (bench/turn_overhead.py counts
them the same way). The test server is this worker's own, a turn in an existing conversation
writes no title beside it, and autovacuum is off meanwhile (its ANALYZE writes pg_statistic, an
id per table: after the suite's churn a loaded run once counted 14 commits for 5), so nothing else
takes an id.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any
from uuid import UUID, uuid4

import psycopg
import pytest
from psycopg.rows import dict_row

from spotter.agent import events as ev
from spotter.agent.executions import CLAIM_TTL
from spotter.agent.run_lease import acquire_lease
from spotter.auth import Caller
from spotter.db import Database
from spotter.providers.fake import FakeUsage, Reply, ScriptedModel, Text, ToolUse, tool_reply
from tests.support.agent import (
    conversation_id_of,
    deps_for,
    run_turn,
    stored_executions,
    stored_messages,
)
from tests.support.callers import caller_for
from tests.support.history import stored_history_violations
from tests.support.hitl import add_program
from tests.support.send_child import SLOW_USAGE, kill_send_at
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


@pytest.fixture(autouse=True)
def no_autovacuum(clean_db: str) -> Iterator[None]:
    """Autovacuum off on this worker's server while a turn's ids are counted, and no worker of
    it still running (one already started finishes its table first)."""
    with psycopg.connect(clean_db, autocommit=True) as conn:
        conn.execute("ALTER SYSTEM SET autovacuum = off")
        conn.execute("SELECT pg_reload_conf()")
        deadline = time.monotonic() + 10
        while (
            time.monotonic() < deadline
            and conn.execute(
                "SELECT 1 FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'"
            ).fetchone()
        ):
            time.sleep(0.05)
    yield
    with psycopg.connect(clean_db, autocommit=True) as conn:
        conn.execute("ALTER SYSTEM RESET autovacuum")
        conn.execute("SELECT pg_reload_conf()")


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


async def test_a_plain_turn_commits_twice(db: Database, unmetered: Caller, clean_db: str) -> None:
    # prepare (the user turn, the lease, the quick route's bound held); the reply with its
    # usage and the route's, the last event batch and the lease's release
    assert await _commits_of(db, clean_db, unmetered, Reply([Text("Sure.")])) == 2


async def test_a_plain_turn_of_a_metered_tier_commits_three_times(
    db: Database, owner: Caller, clean_db: str
) -> None:
    # a metered tier holds before each call: the quick route's hold rides with prepare, the
    # loop's (a budget decision before the call, its bound known only from the history) with
    # the quick route's usage
    assert await _commits_of(db, clean_db, owner, Reply([Text("Sure.")])) == 3


def _three_reads() -> tuple[Reply, Reply]:
    reads = [ToolUse("programs", {"action": "list", "args": {}}, id=f"r{i}") for i in range(3)]
    return tool_reply(*reads), Reply([Text("Three.")])


async def test_a_three_read_turn_commits_three_times(
    db: Database, unmetered_org: Org, unmetered: Caller, clean_db: str
) -> None:
    add_program(clean_db, unmetered_org, "Strength")
    # prepare; the reply that calls the reads (before they run) with the quick route's usage;
    # the last reply with the reads' rows and results turn, the last batch and the release (the
    # reads' own transactions write nothing)
    assert await _commits_of(db, clean_db, unmetered, *_three_reads()) == 3


async def test_a_three_read_turn_of_a_metered_tier_commits_five_times(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    add_program(clean_db, org, "Strength")
    # prepare with the route's hold; the route's usage with the first loop call's hold; the
    # reply that calls the reads; the reads' rows and results with the second call's hold; the
    # last reply with the end
    assert await _commits_of(db, clean_db, owner, *_three_reads()) == 5


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


async def test_the_reads_results_commit_with_the_reply_that_read_them(
    db: Database, unmetered_org: Org, unmetered: Caller, clean_db: str
) -> None:
    add_program(clean_db, unmetered_org, "Strength")
    events = await run_turn(deps_for(db, ScriptedModel(list(_three_reads()))), unmetered, "go")
    assert isinstance(events[-1], ev.Done) and not [e for e in events if isinstance(e, ev.Error)]
    conversation = conversation_id_of(events)
    with psycopg.connect(clean_db, row_factory=dict_row) as conn:
        rows = conn.execute(
            "SELECT role, xmin::text AS tx FROM ai_messages WHERE conversation_id = %s"
            " ORDER BY ordinal",
            (conversation,),
        ).fetchall()
        executions = conn.execute(
            "SELECT DISTINCT xmin::text AS tx FROM ai_tool_executions WHERE conversation_id = %s",
            (conversation,),
        ).fetchall()
    assert [r["role"] for r in rows] == ["user", "assistant", "tool_result", "assistant"]
    called, results, answer = rows[1]["tx"], rows[2]["tx"], rows[3]["tx"]
    assert called != results, "the calls are stored before they run"
    assert results == answer == executions[0]["tx"] and len(executions) == 1, (
        "the answer is never stored without the results it read, nor they without it"
    )


def _holds(url: str) -> list[dict[str, Any]]:
    with psycopg.connect(url, row_factory=dict_row) as conn:
        return conn.execute("SELECT xmin::text AS tx FROM ai_budget_holds").fetchall()


async def test_a_metered_routes_hold_commits_with_the_user_turn(
    db: Database, owner: Caller, clean_db: str
) -> None:
    seen: list[list[dict[str, Any]]] = []

    def route(body: dict[str, Any]) -> Reply:
        seen.append(_holds(clean_db))  # while the route's call runs
        return Reply([Text("LOOP")], usage=FakeUsage(input_tokens=10, output_tokens=2))

    model = ScriptedModel([Reply([Text("Sure.")])], lanes={"quick_route": [route]})
    events = await run_turn(deps_for(db, model), owner, "hi")
    rows = stored_messages(clean_db, conversation_id_of(events))
    with psycopg.connect(clean_db) as conn:
        turn = conn.execute("SELECT xmin::text FROM ai_messages WHERE id = %s", (rows[0]["id"],))
        turn_tx = turn.fetchone()
    assert turn_tx is not None
    assert [[hold["tx"] for hold in holds] for holds in seen] == [[turn_tx[0]]], (
        "one hold while the route ran, written by the transaction that wrote the turn"
    )
    assert _holds(clean_db) == [], "dropped with the route's usage"


def _usage(url: str) -> list[dict[str, Any]]:
    with psycopg.connect(url, row_factory=dict_row) as conn:
        return conn.execute(
            "SELECT xmin::text AS tx, cost_usd_micros, estimated_usd_micros FROM ai_usage_daily"
        ).fetchall()


async def test_the_quick_routes_usage_commits_with_the_reply_its_bound_held_meanwhile(
    db: Database, unmetered: Caller, clean_db: str
) -> None:
    seen: list[tuple[list[dict[str, Any]], list[dict[str, Any]]]] = []

    def loop(body: dict[str, Any]) -> Reply:
        seen.append((_holds(clean_db), _usage(clean_db)))  # while the loop's call runs
        return Reply([Text("Sure.")])

    routed = Reply([Text("LOOP")], usage=FakeUsage(input_tokens=500, output_tokens=3))
    model = ScriptedModel([loop], lanes={"quick_route": [routed]})
    events = await run_turn(deps_for(db, model), unmetered, "hi")
    done = events[-1]
    assert isinstance(done, ev.Done) and not [e for e in events if isinstance(e, ev.Error)]
    conversation = conversation_id_of(events)
    turn = stored_messages(clean_db, conversation)[0]
    with psycopg.connect(clean_db) as conn:
        turn_tx = conn.execute("SELECT xmin::text FROM ai_messages WHERE id = %s", (turn["id"],))
        written = turn_tx.fetchone()
    assert written is not None
    [(holds, usage)] = seen
    assert [hold["tx"] for hold in holds] == [written[0]] and usage == [], (
        "while the loop's call runs, the route's usage is not recorded: its bound is, held by "
        "the transaction that wrote the turn"
    )
    [recorded] = _usage(clean_db)
    assert recorded["tx"] == _written_by(clean_db, conversation)["reply"]["tx"], (
        "the route's usage commits with the reply"
    )
    assert recorded["cost_usd_micros"] == done.usage.cost_usd_micros > 0
    assert recorded["estimated_usd_micros"] == 0 and _holds(clean_db) == []


async def test_a_send_refused_as_busy_holds_nothing(
    db: Database, owner: Caller, clean_db: str
) -> None:
    first = await run_turn(deps_for(db, ScriptedModel([Reply([Text("Hi.")])])), owner, "hi")
    conversation = conversation_id_of(first)
    async with db.org_tx(owner.org_id) as conn:
        await acquire_lease(conn, owner, UUID(conversation), uuid4())  # a live run of it
    model = ScriptedModel()
    events = await run_turn(deps_for(db, model), owner, "again", conversation_id=conversation)
    assert [e.code for e in events if isinstance(e, ev.Error)] == ["conversation_busy"]
    assert _holds(clean_db) == [] and model.lane_requests == {}, (
        "the route's hold is taken only with the turn it is for"
    )


async def test_a_run_killed_after_its_reads_loses_only_the_reads(
    db: Database, unmetered_org: Org, unmetered: Caller, clean_db: str, app_url: str
) -> None:
    """The reads' rows and results wait for the run's next write: killed while the model
    answers them, the run leaves its calls stored (and that call's usage), their results not;
    the next send answers them `interrupted` (a read changed nothing, so the model may simply
    read again) and the history stays valid."""
    first = await run_turn(deps_for(db, ScriptedModel([Reply([Text("Hi.")])])), unmetered, "hi")
    conversation = UUID(conversation_id_of(first))
    before = stored_messages(clean_db, str(conversation))
    seen = await kill_send_at(app_url, unmetered_org, conversation, "reads", "text_delta")
    assert seen.count("tool_completed") == 3, seen
    stored = stored_messages(clean_db, str(conversation))[len(before) :]
    assert [r["role"] for r in stored] == ["user", "assistant"], "the calls, not their results"
    assert stored_executions(clean_db, str(conversation)) == []
    with psycopg.connect(clean_db) as conn:
        spent = conn.execute(
            "SELECT sum(input_tokens) FROM ai_usage_daily WHERE organization_id = %s",
            (unmetered_org.id,),
        ).fetchone()
        conn.execute(
            "UPDATE ai_conversations SET live_run_claimed_at = clock_timestamp() - %s"
            " * interval '1 second' WHERE id = %s",
            (CLAIM_TTL.total_seconds() + 1, conversation),
        )
    assert spent is not None and spent[0] >= SLOW_USAGE.input_tokens, "the calling turn's usage"

    model = ScriptedModel([Reply([Text("Back.")])])
    events = await run_turn(deps_for(db, model), unmetered, "again", conversation_id=conversation)
    assert isinstance(events[-1], ev.Done) and not [e for e in events if isinstance(e, ev.Error)]
    answered = stored_messages(clean_db, str(conversation))[len(before) + 2]
    assert answered["role"] == "tool_result"
    assert ["interrupted" in json.dumps(b["content"]) for b in answered["content"]] == [True] * 3
    assert stored_history_violations(clean_db) == {}
