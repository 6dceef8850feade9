"""One run per conversation: a lease on the conversation row, a database fact, not a lock.

A run takes the lease with one conditional UPDATE — the conversation is free, already its own,
or its live run's lease is older than `LEASE_TTL` (the claims' rule: no stream stays silent that
long, so its run is known dead) — and a request that finds it taken is `conversation_busy` with
the live run's id, before it writes anything. Every turn the run writes is fenced on the lease
and refreshes it (a run whose lease was taken over writes nothing more); so do its event log's
flushes; a model call refreshes it first only when the run has not confirmed it for
`FENCE_TRUST`. The lease is cleared at the run's end, so the next send works as soon as `done`
was said.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from uuid import UUID

from psycopg import AsyncCursor

from spotter.agent.errors import ConversationBusy
from spotter.auth.caller import Caller
from spotter.db import Conn, Database
from spotter.errors import NotFoundError

# The same two minutes as the claims' rule, `executions.CLAIM_TTL` (a test keeps them equal): a
# run's lease, like a claim, has no live process behind it once it is that old.
LEASE_TTL = timedelta(minutes=2)

_ACQUIRE_SQL = """
UPDATE ai_conversations SET live_run_id = %(run)s, live_run_claimed_at = clock_timestamp()
 WHERE id = %(conversation)s AND organization_id = %(org)s AND user_id = %(user)s
   AND (live_run_id IS NULL OR live_run_id = %(run)s
        OR live_run_claimed_at < clock_timestamp() - %(ttl)s)
RETURNING id, (SELECT coalesce(max(e.last_seq), 0) FROM ai_run_events e
                WHERE e.conversation_id = %(conversation)s) AS last_seq
"""


async def acquire_lease(
    conn: Conn, caller: Caller, conversation_id: UUID, run_id: UUID, *, ttl: timedelta = LEASE_TTL
) -> int:
    """Take the conversation for `run_id` (in the caller's transaction: a refusal writes
    nothing); `ConversationBusy` when another run holds it, `not_found` for a foreign id.
    Returns the conversation's last SSE id: the run's events follow it (`agent.stream`)."""
    cur = await queue_acquire(conn, caller, conversation_id, run_id, ttl=ttl)
    taken = await cur.fetchone()
    if taken is not None:
        return int(taken["last_seq"])
    raise await _refusal(conn, caller, conversation_id)


async def queue_acquire(
    conn: Conn, caller: Caller, conversation_id: UUID, run_id: UUID, *, ttl: timedelta = LEASE_TTL
) -> AsyncCursor[dict[str, Any]]:
    """The taking statement; its row (`last_seq`) is read by `read_acquired` once the
    pipelined transaction it is in committed (no row: taken by nobody, nothing changed)."""
    return await conn.execute(
        _ACQUIRE_SQL,
        {
            "run": run_id,
            "conversation": conversation_id,
            "org": caller.org_id,
            "user": caller.user_id,
            "ttl": ttl,
        },
    )


async def read_acquired(
    db: Database, cur: AsyncCursor[dict[str, Any]], caller: Caller, conversation_id: UUID
) -> int:
    """`queue_acquire`'s outcome: the conversation's last SSE id, or why it was refused."""
    taken = await cur.fetchone()
    if taken is not None:
        return int(taken["last_seq"])
    raise await refusal(db, caller, conversation_id)


async def refusal(
    db: Database, caller: Caller, conversation_id: UUID, run_id: UUID | None = None
) -> Exception:
    """Why a run may not (or no longer) write to the conversation: `not_found` for a foreign
    id, else `ConversationBusy` naming who holds it now (`run_id`, a run that lost its lease,
    when nobody does)."""
    async with db.org_tx(caller.org_id) as conn:
        return await _refusal(conn, caller, conversation_id, run_id)


async def _refusal(
    conn: Conn, caller: Caller, conversation_id: UUID, run_id: UUID | None = None
) -> Exception:
    cur = await conn.execute(
        "SELECT live_run_id FROM ai_conversations"
        " WHERE id = %s AND organization_id = %s AND user_id = %s",
        (conversation_id, caller.org_id, caller.user_id),
    )
    row = await cur.fetchone()
    if row is None:
        return NotFoundError("No such conversation.")
    live: UUID | None = row["live_run_id"]
    return ConversationBusy(live if live is not None else run_id)


# Within this long of the last statement that confirmed the lease, nobody can have taken it
# over (that needs LEASE_TTL of silence), so a model call needs no refresh of its own.
FENCE_TRUST = LEASE_TTL / 2


@dataclass
class LeaseClock:
    """When this run last knew it held its conversation: the monotonic time just before the
    statement that confirmed it was sent (so the lease is never younger than we think)."""

    confirmed_at: float | None = None

    def confirm(self, sent_at: float) -> None:
        self.confirmed_at = max(self.confirmed_at or sent_at, sent_at)

    @property
    def trusted(self) -> bool:
        return (
            self.confirmed_at is not None
            and time.monotonic() - self.confirmed_at < FENCE_TRUST.total_seconds()
        )


class RunTx:
    """A run's own transaction (`Database.pipelined_tx`) and the fenced statements in it: each
    returns a row only while the run holds its conversation, and they are read once the
    transaction committed — a fence costs no round trip of its own."""

    def __init__(self, conn: Conn) -> None:
        self.conn = conn
        self._fences: list[AsyncCursor[dict[str, Any]]] = []

    def fence(self, cursor: AsyncCursor[dict[str, Any]]) -> None:
        self._fences.append(cursor)

    @property
    def fenced(self) -> bool:
        return bool(self._fences)

    async def refresh_lease(self, org_id: UUID, conversation_id: UUID, run_id: UUID) -> None:
        """The run is alive: its lease starts its two minutes again (fenced)."""
        self.fence(await self.conn.execute(KEEP_ALIVE_SQL, (conversation_id, org_id, run_id)))

    async def fences_held(self) -> bool:
        held = True
        for cursor in self._fences:
            held = await cursor.fetchone() is not None and held
        return held


RELEASE_SQL = (
    "UPDATE ai_conversations SET live_run_id = NULL, live_run_claimed_at = NULL"
    " WHERE id = %s AND organization_id = %s AND live_run_id = %s"
)
# the run is alive (a flush or a heartbeat of its event log), and whether it was asked to stop
KEEP_ALIVE_SQL = (
    "UPDATE ai_conversations SET live_run_claimed_at = clock_timestamp()"
    " WHERE id = %s AND organization_id = %s AND live_run_id = %s"
    " RETURNING stop_requested_run_id = live_run_id AS stop"
)


async def release_lease(db: Database, org_id: UUID, conversation_id: UUID, run_id: UUID) -> None:
    """The run ended: the conversation is free (only if this run still holds it)."""
    async with db.org_tx(org_id) as conn:
        await conn.execute(RELEASE_SQL, (conversation_id, org_id, run_id))


async def live_run(db: Database, org_id: UUID, conversation_id: UUID) -> UUID | None:
    """The conversation's live run, if its lease has not expired (what a follower streams)."""
    async with db.org_tx(org_id) as conn:
        cur = await conn.execute(
            "SELECT live_run_id FROM ai_conversations WHERE id = %s AND organization_id = %s"
            " AND live_run_claimed_at >= clock_timestamp() - %s",
            (conversation_id, org_id, LEASE_TTL),
        )
        row = await cur.fetchone()
    return row["live_run_id"] if row else None
