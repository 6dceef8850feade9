"""Budget reservations: a model call starts only if what today leaves pays its least bound.

Before a call, `queue_reserve` takes the org's daily budget lock (a transaction advisory lock, so
concurrent reservations queue and each reads what the ones before it committed) and inserts a
hold by the budget rule (`cost.budget`: `HOLD_FROM_ROOM_SQL` — the room left, up to the call's
full bound, when the room pays at least its least bound — read in one snapshot); the caller
clamps the call's `max_tokens` to what the hold pays (`CallBound.output_tokens_for`). After the
call, the run's next transaction records its actual usage and deletes the hold (a failed call
records what it was billed, possibly nothing). So spend never exceeds the cap: a call costs at
most its hold, and the holds never add up past the cap. A hold whose process died stops
counting after `budget.HOLD_TTL`; before that the sweep charges it at its amount
(`cost.abandoned`).

A hold is also the durable record of a call whose usage waits for the run's next write: the
run's first call (the quick route's) holds its bound in the transaction that writes its user
turn on every tier — on an unmetered one with no lock and no room to read (no budget reads it:
nothing is checked or clamped) — so a run that dies before its usage is recorded still has it
charged, as an estimate.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from psycopg import AsyncCursor

from spotter.agent.cost.budget import HOLD_FROM_ROOM_SQL, daily_cap, metered
from spotter.db import Conn, Database

_INSERT = "INSERT INTO ai_budget_holds (organization_id, day, run_id, user_id, amount_usd_micros)"
_RESERVE_SQL = f"""{_INSERT}
SELECT %(org)s, %(day)s, %(run)s, %(user)s, hold.amount FROM ({HOLD_FROM_ROOM_SQL}) hold
RETURNING id, amount_usd_micros, true AS budgeted
"""
# a hold taken in the transaction that writes the turn it is for: only if the turn was written
_AFTER_TURN = "EXISTS (SELECT 1 FROM ai_messages WHERE organization_id = %(org)s AND id = %(turn)s)"
_RESERVE_AFTER_TURN_SQL = f"""{_INSERT}
SELECT %(org)s, %(day)s, %(run)s, %(user)s, hold.amount FROM ({HOLD_FROM_ROOM_SQL}) hold
 WHERE {_AFTER_TURN}
RETURNING id, amount_usd_micros, true AS budgeted
"""
# an unmetered tier's: the bound as is, read by no budget
_RECORD_AFTER_TURN_SQL = f"""{_INSERT}
SELECT %(org)s, %(day)s, %(run)s, %(user)s, %(amount)s WHERE {_AFTER_TURN}
RETURNING id, amount_usd_micros, false AS budgeted
"""


@dataclass(frozen=True)
class BudgetHold:
    id: UUID | None  # None: no row (an unmetered tier's call after its run's first)
    amount_usd_micros: int  # what the call may spend (0: unmetered, nothing to clamp to)
    # False: an unmetered tier's record of the call's bound (no budget reads it, nothing is
    # clamped to it): only what the sweep charges if the run dies before the call's usage lands
    budgeted: bool = True


async def reserve(
    db: Database,
    org_id: UUID,
    tier: str,
    now: datetime,
    run_id: UUID,
    user_id: UUID,
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
            conn, org_id, tier, now, run_id, user_id, amount_usd_micros, least_usd_micros
        )
    return await read_hold(cur)


async def queue_reserve(
    conn: Conn,
    org_id: UUID,
    tier: str,
    now: datetime,
    run_id: UUID,
    user_id: UUID,
    amount_usd_micros: int,
    least_usd_micros: int | None = None,
    *,
    after_turn: UUID | None = None,
) -> AsyncCursor[dict[str, Any]]:
    """Hold up to `amount_usd_micros` (at least `least_usd_micros`) of today's budget in
    `conn`'s transaction (a metered tier): the cursor's row is the hold, no row when the room
    is less (`read_hold` it after the commit). `after_turn`: only if that message was written
    by this transaction's statements before (a send's first hold, `run.prepare`) — and then an
    unmetered tier's too, of the whole amount, unbudgeted (`BudgetHold.budgeted`)."""
    cap = daily_cap(tier, now)
    params = {**cap.params(org_id), "run": run_id, "user": user_id, "amount": amount_usd_micros}
    if not cap.metered:
        assert after_turn is not None, "an unmetered tier holds only its run's first call"
        return await conn.execute(_RECORD_AFTER_TURN_SQL, {**params, "turn": after_turn})
    # queue behind the org's other reservations of the day; released at commit
    await conn.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended(%s::text || %s::text, 0))",
        (org_id, cap.day),
    )
    params["least"] = amount_usd_micros if least_usd_micros is None else least_usd_micros
    if after_turn is not None:
        return await conn.execute(_RESERVE_AFTER_TURN_SQL, {**params, "turn": after_turn})
    return await conn.execute(_RESERVE_SQL, params)


async def read_hold(cur: AsyncCursor[dict[str, Any]]) -> BudgetHold | None:
    row = await cur.fetchone()
    return BudgetHold(row["id"], int(row["amount_usd_micros"]), row["budgeted"]) if row else None
