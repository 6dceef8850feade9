"""Budget reservations: a model call starts only if what today leaves pays its least bound.

Before a call, `queue_reserve` takes the org's daily budget lock (a transaction advisory lock, so
concurrent reservations queue and each reads what the ones before it committed) and inserts a
hold by the budget rule (`cost.budget`: `HOLD_FROM_ROOM_SQL` — the room left, up to the call's
full bound, when the room pays at least its least bound — read in one snapshot); the caller
clamps the call's `max_tokens` to what the hold pays (`CallBound.output_tokens_for`). After the
call, the run's next transaction records its actual usage and deletes the hold (a failed call
records what it was billed, possibly nothing). So spend never exceeds the cap: a call costs at
most its hold, and the holds never add up past the cap. A hold whose process died stops
counting after `budget.HOLD_TTL`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from psycopg import AsyncCursor

from spotter.agent.cost.budget import HOLD_FROM_ROOM_SQL, daily_cap, metered
from spotter.db import Conn, Database

_RESERVE_SQL = f"""
INSERT INTO ai_budget_holds (organization_id, day, run_id, amount_usd_micros)
SELECT %(org)s, %(day)s, %(run)s, hold.amount FROM ({HOLD_FROM_ROOM_SQL}) hold
RETURNING id, amount_usd_micros
"""
# a hold taken in the transaction that writes the turn it is for: only if the turn was written
_RESERVE_AFTER_TURN_SQL = f"""
INSERT INTO ai_budget_holds (organization_id, day, run_id, amount_usd_micros)
SELECT %(org)s, %(day)s, %(run)s, hold.amount FROM ({HOLD_FROM_ROOM_SQL}) hold
 WHERE EXISTS (SELECT 1 FROM ai_messages WHERE organization_id = %(org)s AND id = %(turn)s)
RETURNING id, amount_usd_micros
"""


@dataclass(frozen=True)
class BudgetHold:
    id: UUID | None  # None: an unmetered tier holds nothing
    amount_usd_micros: int  # what the call may spend (0: unmetered, nothing to clamp to)


async def reserve(
    db: Database,
    org_id: UUID,
    tier: str,
    now: datetime,
    run_id: UUID,
    amount_usd_micros: int,
    *,
    least_usd_micros: int | None = None,
) -> BudgetHold | None:
    """Hold up to `amount_usd_micros` of today's budget in a transaction of its own (at least
    `least_usd_micros`, by default all of it), or None when the room is less (an unmetered tier
    holds nothing)."""
    if not metered(tier):
        return BudgetHold(None, 0)
    async with db.pipelined_tx(org_id) as conn:
        cur = await queue_reserve(
            conn, org_id, tier, now, run_id, amount_usd_micros, least_usd_micros
        )
    return await read_hold(cur)


async def queue_reserve(
    conn: Conn,
    org_id: UUID,
    tier: str,
    now: datetime,
    run_id: UUID,
    amount_usd_micros: int,
    least_usd_micros: int | None = None,
    *,
    after_turn: UUID | None = None,
) -> AsyncCursor[dict[str, Any]]:
    """Hold up to `amount_usd_micros` (at least `least_usd_micros`) of today's budget in
    `conn`'s transaction (a metered tier): the cursor's row is the hold, no row when the room
    is less (`read_hold` it after the commit). `after_turn`: only if that message was written
    by this transaction's statements before (a send's first hold, `run.prepare`)."""
    cap = daily_cap(tier, now)
    # queue behind the org's other reservations of the day; released at commit
    await conn.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended(%s::text || %s::text, 0))",
        (org_id, cap.day),
    )
    least = amount_usd_micros if least_usd_micros is None else least_usd_micros
    params = {**cap.params(org_id), "run": run_id, "amount": amount_usd_micros, "least": least}
    if after_turn is not None:
        return await conn.execute(_RESERVE_AFTER_TURN_SQL, {**params, "turn": after_turn})
    return await conn.execute(_RESERVE_SQL, params)


async def read_hold(cur: AsyncCursor[dict[str, Any]]) -> BudgetHold | None:
    row = await cur.fetchone()
    return BudgetHold(row["id"], int(row["amount_usd_micros"])) if row else None


async def release(conn: Conn, org_id: UUID, holds: Sequence[BudgetHold]) -> None:
    """The calls settled (their usage recorded in this transaction) or failed: their holds go."""
    ids = [hold.id for hold in holds if hold.id is not None]
    if ids:
        await conn.execute(
            "DELETE FROM ai_budget_holds WHERE id = ANY(%s) AND organization_id = %s",
            (ids, org_id),
        )
