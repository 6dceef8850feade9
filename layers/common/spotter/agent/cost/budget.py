"""The budget rule, stated here and nowhere else: per org and UTC day, a metered tier's cap
against what counts toward it. Every check reads it from this module — in Python or as the SQL
fragments the statements that enforce it embed — so changing the rule is an edit here.

- what counts: the spend recorded in `ai_usage_daily` for the day (`SPENT_SQL`), and for a
  call about to start also the day's live budget holds (`HELD_SQL`: a hold stops counting after
  `HOLD_TTL`, longer than any model call may stream);
- a new turn may start while recorded spend < cap: `UsageSnapshot.over_cap` (the send's
  pre-check, the usage read) and `UNDER_CAP_SQL` (the guard of the user turn's append,
  `transcript.message_log`);
- a model call may start only if recorded spend + live holds + its upper bound ≤ cap:
  `FITS_UNDER_CAP_SQL` (the hold's conditional insert, `cost.holds`);
- an unmetered tier (`tiers.UNMETERED`) has no cap: nothing is checked or held.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from uuid import UUID

from spotter.db import Conn
from spotter.tiers import UNMETERED, tier

# Longer than any one model call may stream (the client's own timeout is 10 minutes).
HOLD_TTL = timedelta(minutes=10)

# The SQL statement of the rule, over named parameters: %(org)s, %(day)s, %(cap)s (and
# %(hold_ttl)s, %(amount)s): `DailyCap.params` gives all but the amount.
SPENT_SQL = (
    "(SELECT coalesce(sum(cost_usd_micros), 0) FROM ai_usage_daily"
    " WHERE organization_id = %(org)s AND day = %(day)s)"
)
HELD_SQL = (
    "(SELECT coalesce(sum(amount_usd_micros), 0) FROM ai_budget_holds"
    " WHERE organization_id = %(org)s AND day = %(day)s"
    " AND held_at > clock_timestamp() - %(hold_ttl)s)"
)
UNDER_CAP_SQL = f"{SPENT_SQL} < %(cap)s"
FITS_UNDER_CAP_SQL = f"{SPENT_SQL} + {HELD_SQL} + %(amount)s <= %(cap)s"


def daily_budget_micros(tier_name: str) -> int:
    return tier(tier_name).daily_budget_micros


def metered(tier_name: str) -> bool:
    return daily_budget_micros(tier_name) != UNMETERED


def utc_today(now: datetime | None = None) -> date:
    return (now or datetime.now(UTC)).astimezone(UTC).date()


@dataclass(frozen=True)
class DailyCap:
    """Today's cap of one tier, as the rule's SQL reads it."""

    day: date
    cap_usd_micros: int  # UNMETERED: no cap

    @property
    def metered(self) -> bool:
        return self.cap_usd_micros != UNMETERED

    def params(self, org_id: UUID) -> dict[str, Any]:
        return {"org": org_id, "day": self.day, "cap": self.cap_usd_micros, "hold_ttl": HOLD_TTL}


def daily_cap(tier_name: str, now: datetime | None = None) -> DailyCap:
    return DailyCap(utc_today(now), daily_budget_micros(tier_name))


@dataclass(frozen=True)
class UsageSnapshot:
    day: date
    spent_usd_micros: int
    cap_usd_micros: int

    @property
    def unmetered(self) -> bool:
        return self.cap_usd_micros == UNMETERED

    @property
    def percent_used(self) -> float | None:
        if self.unmetered or self.cap_usd_micros <= 0:
            return None
        return round(self.spent_usd_micros / self.cap_usd_micros, 4)

    @property
    def remaining_usd_micros(self) -> int | None:
        return None if self.unmetered else max(0, self.cap_usd_micros - self.spent_usd_micros)

    @property
    def resets_at(self) -> datetime:
        return datetime.combine(self.day + timedelta(days=1), time.min, tzinfo=UTC)

    def over_cap(self, unrecorded_usd_micros: int = 0) -> bool:
        """An unmetered tier never is; otherwise spent (+ unrecorded) ≥ cap (`UNDER_CAP_SQL`'s
        negation)."""
        spent = self.spent_usd_micros + unrecorded_usd_micros
        return not self.unmetered and spent >= self.cap_usd_micros

    @property
    def exceeded(self) -> bool:
        return self.over_cap()


_SPENT_TODAY = f"SELECT {SPENT_SQL}::bigint AS spent"


async def usage_snapshot(
    conn: Conn, org_id: UUID, tier: str, now: datetime | None = None
) -> UsageSnapshot:
    return await (await queue_usage_snapshot(conn, org_id, tier, now))()


async def queue_usage_snapshot(
    conn: Conn, org_id: UUID, tier: str, now: datetime | None = None
) -> Callable[[], Awaitable[UsageSnapshot]]:
    """The spend statement now, its snapshot when the returned function is awaited (in a
    pipelined transaction, statements queued meanwhile share the round trip)."""
    cap = daily_cap(tier, now)
    cur = await conn.execute(_SPENT_TODAY, cap.params(org_id))

    async def snapshot() -> UsageSnapshot:
        row = await cur.fetchone()
        spent = int(row["spent"]) if row else 0
        return UsageSnapshot(cap.day, spent, cap.cap_usd_micros)

    return snapshot
