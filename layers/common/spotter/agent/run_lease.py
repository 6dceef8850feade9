"""One run per conversation: a lease on the conversation row, a database fact, not a lock.

A run takes the lease with one conditional UPDATE — the conversation is free, already its own,
or its live run's lease is older than `LEASE_TTL` (the claims' rule: no stream stays silent that
long, so its run is known dead) — and a request that finds it taken is `conversation_busy` with
the live run's id, before it writes anything. The run refreshes the lease with every turn it
writes (fenced: a run whose lease was taken over writes nothing more) and before every model
call, and clears it at its end, so the next send works as soon as `done` was said.
"""

from __future__ import annotations

from datetime import timedelta
from uuid import UUID

from spotter.agent.errors import ConversationBusy
from spotter.auth.caller import Caller
from spotter.db import Conn, Database
from spotter.errors import NotFoundError

# The same two minutes as `approvals.claims.CLAIM_TTL` (a unit test keeps them equal; importing
# it here would make state → approvals, a cycle).
LEASE_TTL = timedelta(minutes=2)

_ACQUIRE_SQL = """
UPDATE ai_conversations SET live_run_id = %(run)s, live_run_claimed_at = clock_timestamp()
 WHERE id = %(conversation)s AND organization_id = %(org)s AND user_id = %(user)s
   AND (live_run_id IS NULL OR live_run_id = %(run)s
        OR live_run_claimed_at < clock_timestamp() - %(ttl)s)
RETURNING id
"""


async def acquire_lease(
    conn: Conn, caller: Caller, conversation_id: UUID, run_id: UUID, *, ttl: timedelta = LEASE_TTL
) -> None:
    """Take the conversation for `run_id` (in the caller's transaction: a refusal writes
    nothing); `ConversationBusy` when another run holds it, `not_found` for a foreign id."""
    cur = await conn.execute(
        _ACQUIRE_SQL,
        {
            "run": run_id,
            "conversation": conversation_id,
            "org": caller.org_id,
            "user": caller.user_id,
            "ttl": ttl,
        },
    )
    if cur.rowcount == 1:
        return
    cur = await conn.execute(
        "SELECT live_run_id FROM ai_conversations"
        " WHERE id = %s AND organization_id = %s AND user_id = %s",
        (conversation_id, caller.org_id, caller.user_id),
    )
    row = await cur.fetchone()
    if row is None:
        raise NotFoundError("No such conversation.")
    raise ConversationBusy(row["live_run_id"])


async def refresh_lease(conn: Conn, org_id: UUID, conversation_id: UUID, run_id: UUID) -> None:
    """The run is alive: its lease starts its two minutes again. `ConversationBusy` when the
    lease was taken over (this run was presumed dead): the caller's transaction must roll back."""
    cur = await conn.execute(
        "UPDATE ai_conversations SET live_run_claimed_at = clock_timestamp()"
        " WHERE id = %s AND organization_id = %s AND live_run_id = %s",
        (conversation_id, org_id, run_id),
    )
    if cur.rowcount == 1:
        return
    cur = await conn.execute(
        "SELECT live_run_id FROM ai_conversations WHERE id = %s AND organization_id = %s",
        (conversation_id, org_id),
    )
    row = await cur.fetchone()
    raise ConversationBusy(row["live_run_id"] if row else run_id)


async def release_lease(db: Database, org_id: UUID, conversation_id: UUID, run_id: UUID) -> None:
    """The run ended: the conversation is free (only if this run still holds it)."""
    async with db.org_tx(org_id) as conn:
        await conn.execute(
            "UPDATE ai_conversations SET live_run_id = NULL, live_run_claimed_at = NULL"
            " WHERE id = %s AND organization_id = %s AND live_run_id = %s",
            (conversation_id, org_id, run_id),
        )


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
