"""The holds of runs that are gone, charged as estimates (the sweep, every minute).

A hold is deleted by the statement that records its call's usage (`RunUsage.record_pending`).
One still there whose run holds no live lease — taken more than `LEASE_TTL` ago, by a run whose
conversation is free, taken over or silent for `LEASE_TTL` (no live process behind it) — belongs
to a process that died before it recorded the call: a loop call killed mid-stream, or the quick
route's usage waiting for the loop's reply. It is charged into `ai_usage_daily` at its amount
(the call's bound: never less than the call cost), counted in `estimated_usd_micros` too, so the
budget and the usage read see it and it can be told from measured spend; no tokens (they were
never reported).

Claim before charging: the charge deletes the hold in the statement that adds it, so a second
sweep, or the run itself if it was only stalled (its own record deletes the hold first or finds
it gone and skips that call), never counts it again. Before `LEASE_TTL` a live run's holds are
never touched; the budget counts a hold until `HOLD_TTL` (longer), so a dead run's bound counts
without a gap, first as a hold, then as spend.
"""

from __future__ import annotations

from uuid import UUID

from spotter.agent.run_lease import LEASE_TTL
from spotter.db import Conn, Database

# what `spotter_orgs_with_abandoned_holds` (migration 0062) lists, for one org
_CHARGE_SQL = """
WITH claimed AS (
  DELETE FROM ai_budget_holds h
   WHERE h.organization_id = %(org)s AND h.user_id IS NOT NULL
     AND h.held_at < clock_timestamp() - %(ttl)s
     AND NOT EXISTS (SELECT 1 FROM ai_conversations c
                      WHERE c.organization_id = h.organization_id AND c.live_run_id = h.run_id
                        AND c.live_run_claimed_at >= clock_timestamp() - %(ttl)s)
  RETURNING h.user_id, h.day, h.amount_usd_micros
), charged AS (
  INSERT INTO ai_usage_daily AS d (organization_id, user_id, day, cost_usd_micros,
                                   estimated_usd_micros)
  SELECT %(org)s, user_id, day, sum(amount_usd_micros), sum(amount_usd_micros)
    FROM claimed GROUP BY user_id, day
  ON CONFLICT (organization_id, day, user_id) DO UPDATE SET
    cost_usd_micros = d.cost_usd_micros + EXCLUDED.cost_usd_micros,
    estimated_usd_micros = d.estimated_usd_micros + EXCLUDED.estimated_usd_micros,
    updated_at = now()
)
SELECT count(*) AS holds FROM claimed
"""


async def orgs_with_abandoned_holds(db: Database) -> list[UUID]:
    async with db.system_tx() as conn:
        cur = await conn.execute(
            "SELECT spotter_orgs_with_abandoned_holds(%s) AS org_id", (LEASE_TTL,)
        )
        return [r["org_id"] for r in await cur.fetchall()]


async def charge_abandoned_holds(conn: Conn, org_id: UUID) -> int:
    """Charge the org's holds of runs that are gone (see above); how many it charged."""
    cur = await conn.execute(_CHARGE_SQL, {"org": org_id, "ttl": LEASE_TTL})
    row = await cur.fetchone()
    return int(row["holds"]) if row else 0
