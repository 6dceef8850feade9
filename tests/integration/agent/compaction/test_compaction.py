"""Compaction as visible state: one compaction per span, a summary row, failures leave no trace."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import psycopg
import pytest
from psycopg.rows import dict_row

from spotter.agent.compaction import summary
from spotter.agent.compaction.plan import plan_compaction
from spotter.agent.compaction.summary import Summary, compact
from spotter.agent.conversations import list_conversations
from spotter.agent.transcript.projection import projection
from spotter.db import Database
from tests.support.agent import long_conversation
from tests.support.world import Org


def stored_conversation(url: str, org: Org, exchanges: int = 13) -> uuid.UUID:
    return uuid.UUID(long_conversation(url, org, exchanges=exchanges, usage=None))


def load(url: str, conversation_id: uuid.UUID) -> list[dict[str, Any]]:
    with psycopg.connect(url, row_factory=dict_row) as conn:
        return conn.execute(
            "SELECT id, ordinal, role, content, page_context, usage, stop_reason FROM ai_messages"
            " WHERE conversation_id = %s ORDER BY ordinal",
            (conversation_id,),
        ).fetchall()


async def summary_of(transcript: str) -> Summary:
    return Summary(f"Summary: {transcript.count('User:')} questions asked.")


async def test_a_long_conversation_is_summarized_and_replays_from_the_summary(
    db: Database, org: Org, clean_db: str
) -> None:
    conversation_id = stored_conversation(clean_db, org, exchanges=13)  # 26 messages
    rows = load(clean_db, conversation_id)
    plan = plan_compaction(rows, estimated_tokens=1_000, threshold=150_000)
    assert plan is not None
    done = await compact(db, org.id, conversation_id, uuid.uuid4(), plan, summary_of)
    assert done is not None and done.summarized_messages == 20
    after = load(clean_db, conversation_id)
    note = after[-1]
    assert note["role"] == "system_note"
    assert note["page_context"]["summarizedThroughOrdinal"] == 19
    assert "Summary: 10 questions asked." in note["content"][0]["text"]
    replay = projection(after)
    assert [r["role"] for r in replay] == ["system_note"] + ["user", "assistant"] * 3
    assert replay[1:] == after[20:26]


async def test_two_requests_never_compact_the_same_span(
    db: Database, org: Org, clean_db: str
) -> None:
    conversation_id = stored_conversation(clean_db, org)
    plan = plan_compaction(
        load(clean_db, conversation_id), estimated_tokens=1_000, threshold=150_000
    )
    assert plan is not None
    calls = 0

    async def slow_summary(transcript: str) -> Summary:
        nonlocal calls
        calls += 1
        await asyncio.sleep(0.2)
        return Summary("summary")

    results = await asyncio.gather(
        compact(db, org.id, conversation_id, uuid.uuid4(), plan, slow_summary),
        compact(db, org.id, conversation_id, uuid.uuid4(), plan, slow_summary),
    )
    assert calls == 1
    assert sum(r is not None for r in results) == 1
    assert sum(r["role"] == "system_note" for r in load(clean_db, conversation_id)) == 1


async def test_compacting_is_visible_while_in_flight(db: Database, org: Org, clean_db: str) -> None:
    conversation_id = stored_conversation(clean_db, org)
    plan = plan_compaction(
        load(clean_db, conversation_id), estimated_tokens=1_000, threshold=150_000
    )
    assert plan is not None
    started, release = asyncio.Event(), asyncio.Event()

    async def gated_summary(transcript: str) -> Summary:
        started.set()
        await release.wait()
        return Summary("summary")

    task = asyncio.create_task(
        compact(db, org.id, conversation_id, uuid.uuid4(), plan, gated_summary)
    )
    await started.wait()
    async with db.org_tx(org.id) as conn:
        during = await list_conversations(conn, org.id, org["owner"].user_id)
    release.set()
    await task
    async with db.org_tx(org.id) as conn:
        after = await list_conversations(conn, org.id, org["owner"].user_id)
    assert [c["compacting"] for c in during] == [True]
    assert [c["compacting"] for c in after] == [False]


@pytest.mark.parametrize("failure", ["raises", "times_out", "empty"])
async def test_a_failed_compaction_leaves_the_conversation_as_it_was(
    db: Database, org: Org, clean_db: str, monkeypatch: pytest.MonkeyPatch, failure: str
) -> None:
    monkeypatch.setattr(summary, "SUMMARIZER_BUDGET_SECONDS", 0.2)
    conversation_id = stored_conversation(clean_db, org)
    before = load(clean_db, conversation_id)
    plan = plan_compaction(before, estimated_tokens=1_000, threshold=150_000)
    assert plan is not None

    async def broken(transcript: str) -> Summary:
        if failure == "raises":
            raise ConnectionError("provider down")
        if failure == "times_out":
            await asyncio.sleep(5)
        return Summary("  ")

    assert await compact(db, org.id, conversation_id, uuid.uuid4(), plan, broken) is None
    assert load(clean_db, conversation_id) == before
    async with db.org_tx(org.id) as conn:
        listed = await list_conversations(conn, org.id, org["owner"].user_id)
    assert listed[0]["compacting"] is False
