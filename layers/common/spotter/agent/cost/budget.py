"""Per-org daily spend: the tier's budget, what the org spent in today's UTC day, and the one
budget rule (`over_cap`): recorded spend plus what the run spent but has not recorded yet, against
the cap — the send's pre-check and the check before every model call of a resumed run."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from uuid import UUID

from spotter.db import Conn
from spotter.tiers import UNMETERED, tier


def daily_budget_micros(tier_name: str) -> int:
    return tier(tier_name).daily_budget_micros


def utc_today(now: datetime | None = None) -> date:
    return (now or datetime.now(UTC)).astimezone(UTC).date()


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
        """The budget rule: an unmetered tier never is; otherwise spent (+ unrecorded) ≥ cap."""
        spent = self.spent_usd_micros + unrecorded_usd_micros
        return not self.unmetered and spent >= self.cap_usd_micros

    @property
    def exceeded(self) -> bool:
        return self.over_cap()


_SPENT_SQL = (
    "SELECT coalesce(sum(cost_usd_micros), 0)::bigint AS spent FROM ai_usage_daily"
    " WHERE organization_id = %s AND day = %s"
)


async def usage_snapshot(
    conn: Conn, org_id: UUID, tier: str, now: datetime | None = None
) -> UsageSnapshot:
    return await (await queue_usage_snapshot(conn, org_id, tier, now))()


async def queue_usage_snapshot(
    conn: Conn, org_id: UUID, tier: str, now: datetime | None = None
) -> Callable[[], Awaitable[UsageSnapshot]]:
    """The spend statement now, its snapshot when the returned function is awaited (in a
    pipelined transaction, statements queued meanwhile share the round trip)."""
    day = utc_today(now)
    cur = await conn.execute(_SPENT_SQL, (org_id, day))

    async def snapshot() -> UsageSnapshot:
        row = await cur.fetchone()
        spent = int(row["spent"]) if row else 0
        return UsageSnapshot(day, spent, daily_budget_micros(tier))

    return snapshot
