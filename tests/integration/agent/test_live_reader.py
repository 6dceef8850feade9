"""What is live in a conversation is read once (`agent.chats.live_now`, fix31 item 3): the
conversation read's `liveRun` (the run holding the lease, from its first event) and the AI SDK
chat's resume (the turn: from the first event of the run that answered the newest user
message) are two views of that one read, so they cannot disagree about whether a run is live."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from spotter.agent.chats import Live, Turn, live_now, live_turn
from spotter.agent.conversations import get_conversation
from spotter.db import Database
from tests.support.callers import caller_for
from tests.support.executions import pending_message
from tests.support.world import Org


def _events(owner_url: str, org: Org, conversation: uuid.UUID, run: uuid.UUID, seqs: range) -> None:
    with psycopg.connect(owner_url) as conn:
        conn.execute(
            "INSERT INTO ai_run_events (organization_id, conversation_id, run_id, first_seq,"
            " last_seq, events) VALUES (%s, %s, %s, %s, %s, %s)",
            (org.id, conversation, run, seqs[0], seqs[-1], Jsonb([[s, {}] for s in seqs])),
        )


def _lease(owner_url: str, conversation: uuid.UUID, run: uuid.UUID, age: timedelta) -> None:
    with psycopg.connect(owner_url) as conn:
        conn.execute(
            "UPDATE ai_conversations SET live_run_id = %s,"
            " live_run_claimed_at = clock_timestamp() - %s WHERE id = %s",
            (run, age, conversation),
        )


def _turn_run(owner_url: str, conversation: uuid.UUID) -> uuid.UUID:
    with psycopg.connect(owner_url) as conn:
        row = conn.execute(
            "SELECT run_id FROM ai_messages WHERE conversation_id = %s AND role = 'user'",
            (conversation,),
        ).fetchone()
    assert row is not None
    return uuid.UUID(str(row[0]))


async def _both_readers(
    db: Database, org: Org, conversation: uuid.UUID
) -> tuple[Live | None, dict[str, Any], Turn | None]:
    """The owner's reads: what is live, the conversation read, the chat's resume turn."""
    owner = await caller_for(db, org, "owner")
    async with db.org_tx(org.id) as conn:
        live = await live_now(conn, org.id, owner.user_id, conversation)
        read = await get_conversation(conn, org.id, owner.user_id, conversation)
        return live, read, await live_turn(conn, owner, conversation)


async def test_a_resolution_run_is_live_from_its_first_event_and_its_turn_from_the_turns_first(
    db: Database, org: Org, clean_db: str
) -> None:
    conversation = pending_message(clean_db, org).conversation_id
    asked, resolution = _turn_run(clean_db, conversation), uuid.uuid4()
    _events(clean_db, org, conversation, asked, range(1, 6))  # the send that asked: 1–5
    _events(clean_db, org, conversation, resolution, range(6, 9))  # the approval's run: 6–8
    _lease(clean_db, conversation, resolution, timedelta(seconds=1))
    live, read, turn = await _both_readers(db, org, conversation)
    assert live is not None
    assert (live.run_id, live.after, live.turn_run_id, live.turn_after) == (resolution, 5, asked, 0)
    assert read["liveRun"] == {"runId": str(resolution), "after": 5}
    assert turn == Turn(asked, 0)


async def test_a_run_with_no_events_yet_starts_after_everything_stored(
    db: Database, org: Org, clean_db: str
) -> None:
    conversation = pending_message(clean_db, org).conversation_id
    asked = _turn_run(clean_db, conversation)
    _events(clean_db, org, conversation, uuid.uuid4(), range(1, 4))  # an earlier turn's run
    _lease(clean_db, conversation, asked, timedelta(seconds=1))
    _, read, turn = await _both_readers(db, org, conversation)
    assert read["liveRun"] == {"runId": str(asked), "after": 3}
    assert turn == Turn(asked, 3)


async def test_an_expired_lease_is_nothing_live_for_both_readers_and_for_another_user(
    db: Database, org: Org, clean_db: str
) -> None:
    conversation = pending_message(clean_db, org).conversation_id
    _lease(clean_db, conversation, uuid.uuid4(), timedelta(minutes=3))
    owner, admin = await caller_for(db, org, "owner"), await caller_for(db, org, "admin")
    async with db.org_tx(org.id) as conn:
        read = await get_conversation(conn, org.id, owner.user_id, conversation)
        assert read["liveRun"] is None and await live_turn(conn, owner, conversation) is None
        _lease(clean_db, conversation, uuid.uuid4(), timedelta(seconds=1))
        assert await live_now(conn, org.id, admin.user_id, conversation) is None
        assert await live_now(conn, org.id, owner.user_id, conversation) is not None
