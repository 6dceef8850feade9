"""Budget reservations: a model call starts only if its upper-bound cost fits under the cap.

Before a call, `queue_reserve` takes the org's daily budget lock (a transaction advisory lock, so
concurrent reservations queue and each reads what the ones before it committed) and inserts a
hold for the call's upper bound only if it fits under the budget rule (`cost.budget`:
`FITS_UNDER_CAP_SQL`, spent + live holds + bound ≤ cap, read in one snapshot). After the call,
the run's next transaction records its actual usage and deletes the hold (a failed call records
what it was billed, possibly nothing). So spend never exceeds the cap by more than a call's
actual cost minus its bound — zero unless the bound was too low. A hold whose process died
stops counting after `budget.HOLD_TTL`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from psycopg import AsyncCursor

from spotter.agent.cost.budget import FITS_UNDER_CAP_SQL, daily_cap, metered
from spotter.agent.cost.pricing import rates_for
from spotter.db import Conn, Database

_RESERVE_SQL = f"""
INSERT INTO ai_budget_holds (organization_id, day, run_id, amount_usd_micros)
SELECT %(org)s, %(day)s, %(run)s, %(amount)s
 WHERE {FITS_UNDER_CAP_SQL}
RETURNING id
"""


@dataclass(frozen=True)
class BudgetHold:
    id: UUID | None  # None: an unmetered tier holds nothing
    amount_usd_micros: int


def upper_bound_micros(model: str, input_tokens: int, max_tokens: int) -> int:
    """The most a call may cost: every input token at the dearer of fresh input and a 5-minute
    cache write (the only TTL requested), every possible output token at the output rate."""
    rates = rates_for(model)
    per_input = max(rates.input, rates.cache_write_5m)
    return math.ceil((input_tokens * per_input + max_tokens * rates.output) / 1_000_000)


async def reserve(
    db: Database, org_id: UUID, tier: str, now: datetime, run_id: UUID, amount_usd_micros: int
) -> BudgetHold | None:
    """Hold `amount_usd_micros` of today's budget in a transaction of its own, or None when it
    does not fit (an unmetered tier holds nothing)."""
    if not metered(tier):
        return BudgetHold(None, 0)
    async with db.pipelined_tx(org_id) as conn:
        cur = await queue_reserve(conn, org_id, tier, now, run_id, amount_usd_micros)
    row = await cur.fetchone()
    return BudgetHold(row["id"], amount_usd_micros) if row else None


async def queue_reserve(
    conn: Conn, org_id: UUID, tier: str, now: datetime, run_id: UUID, amount_usd_micros: int
) -> AsyncCursor[dict[str, Any]]:
    """Hold `amount_usd_micros` of today's budget in `conn`'s transaction (a metered tier):
    the cursor's row is the hold, no row when it does not fit (read it after the commit)."""
    cap = daily_cap(tier, now)
    # queue behind the org's other reservations of the day; released at commit
    await conn.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended(%s::text || %s::text, 0))",
        (org_id, cap.day),
    )
    return await conn.execute(
        _RESERVE_SQL, {**cap.params(org_id), "run": run_id, "amount": amount_usd_micros}
    )


async def release(conn: Conn, org_id: UUID, holds: Sequence[BudgetHold]) -> None:
    """The calls settled (their usage recorded in this transaction) or failed: their holds go."""
    ids = [hold.id for hold in holds if hold.id is not None]
    if ids:
        await conn.execute(
            "DELETE FROM ai_budget_holds WHERE id = ANY(%s) AND organization_id = %s",
            (ids, org_id),
        )
