"""Claim before execute: a tool call runs at most once, across double taps, tabs and crashes.

A claim is one conditional update, pending → running with the claim time, taken for a whole
batch in one short transaction: rows are locked in id order (overlapping batches queue instead of
deadlocking) and if any claim is lost, the transaction rolls back, releasing the ones won.
An executor's final status update is fenced on the claim it holds (status still running, same
claim time): one that finishes after its row was closed changes nothing, and its database-only
effect rolls back with it. A running row whose claim is older than `CLAIM_TTL` has no live
stream behind it; it is closed as failed and never re-run.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from psycopg.types.json import Jsonb

from spotter.agent.call_record import ExecutionStatus
from spotter.db import Conn, Database

CLAIM_TTL = timedelta(minutes=2)
# A database-only write commits with its `succeeded` status, so a stale claim never applied it.
NOT_APPLIED = "interrupted_not_applied"
OUTCOME_UNKNOWN = "interrupted_outcome_unknown"
_INTERRUPTED = {
    NOT_APPLIED: {
        "code": NOT_APPLIED,
        "message": "The call was interrupted before it took effect; nothing changed.",
    },
    OUTCOME_UNKNOWN: {
        "code": OUTCOME_UNKNOWN,
        "message": "The call was interrupted; it may or may not have taken effect. Check first.",
    },
}


def interrupted_error(external_effects: bool) -> dict[str, str]:
    """The error an abandoned claim is closed with (what readers show before the sweep ran)."""
    return dict(_INTERRUPTED[OUTCOME_UNKNOWN if external_effects else NOT_APPLIED])


@dataclass(frozen=True)
class Claim:
    execution_id: UUID
    claimed_at: datetime


class _ClaimLost(Exception):
    pass


_CLAIM_SQL = """
UPDATE ai_tool_executions e SET status = 'running', claimed_at = clock_timestamp()
 WHERE e.id IN (SELECT id FROM ai_tool_executions
                 WHERE organization_id = %(org)s AND id = ANY(%(ids)s) AND status = 'pending'
                 ORDER BY id FOR UPDATE)
   AND e.status = 'pending'
RETURNING e.id, e.claimed_at
"""


async def claim_all(db: Database, org_id: UUID, execution_ids: list[UUID]) -> list[Claim] | None:
    """Claim every id or none: None means another request got (at least) one of them first."""
    wanted = set(execution_ids)
    try:
        async with db.org_tx(org_id) as conn:
            cur = await conn.execute(_CLAIM_SQL, {"org": org_id, "ids": list(wanted)})
            won = [Claim(r["id"], r["claimed_at"]) for r in await cur.fetchall()]
            if {c.execution_id for c in won} != wanted:
                raise _ClaimLost
    except _ClaimLost:
        return None
    return won


async def finish_claimed(
    conn: Conn,
    org_id: UUID,
    claim: Claim,
    *,
    status: ExecutionStatus,
    output: Any = None,
    error: dict[str, Any] | None = None,
    audit_log_id: UUID | None = None,
) -> bool:
    """Record the outcome if this claim still holds the row; False means it was closed meanwhile
    (the caller must then roll back whatever it did in this transaction)."""
    cur = await conn.execute(
        "UPDATE ai_tool_executions SET status = %s, output = %s, error = %s, audit_log_id = %s,"
        " finished_at = clock_timestamp()"
        " WHERE id = %s AND organization_id = %s AND status = 'running' AND claimed_at = %s",
        (
            status,
            Jsonb(output) if output is not None else None,
            Jsonb(error) if error is not None else None,
            audit_log_id,
            claim.execution_id,
            org_id,
            claim.claimed_at,
        ),
    )
    return cur.rowcount == 1


async def close_abandoned(
    conn: Conn, org_id: UUID, *, message_id: UUID | None = None, ttl: timedelta = CLAIM_TTL
) -> list[UUID]:
    """Close running rows whose claim is older than `ttl` (of one message, or all of the org's);
    returns the ids of the messages they belong to."""
    cur = await conn.execute(
        "UPDATE ai_tool_executions SET status = 'failed', finished_at = clock_timestamp(),"
        " error = CASE WHEN external_effects THEN %(unknown)s ELSE %(not_applied)s END"
        " WHERE organization_id = %(org)s AND status = 'running'"
        " AND claimed_at < clock_timestamp() - %(ttl)s"
        " AND (%(message)s::uuid IS NULL OR message_id = %(message)s)"
        " RETURNING message_id",
        {
            "unknown": Jsonb(_INTERRUPTED[OUTCOME_UNKNOWN]),
            "not_applied": Jsonb(_INTERRUPTED[NOT_APPLIED]),
            "org": org_id,
            "ttl": ttl,
            "message": message_id,
        },
    )
    return list(dict.fromkeys(r["message_id"] for r in await cur.fetchall()))


async def orgs_with_abandoned_claims(db: Database, ttl: timedelta = CLAIM_TTL) -> list[UUID]:
    async with db.system_tx() as conn:
        cur = await conn.execute("SELECT spotter_orgs_with_abandoned_claims(%s) AS org_id", (ttl,))
        return [r["org_id"] for r in await cur.fetchall()]
