"""The date range every analytic reads: local dates in the org's zone, both ends included."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from spotter.db.scope import OrgScope
from spotter.domain.errors import DomainError

MAX_DAYS = 366
DEFAULT_DAYS = 30


@dataclass(frozen=True)
class Period:
    first: date
    last: date
    tz: ZoneInfo

    @property
    def days(self) -> int:
        return (self.last - self.first).days + 1

    @property
    def start(self) -> datetime:
        """The first local midnight, as a UTC instant."""
        return datetime.combine(self.first, time(0), tzinfo=self.tz).astimezone(UTC)

    @property
    def end(self) -> datetime:
        """The local midnight after the last day (exclusive), as a UTC instant."""
        return datetime.combine(self.last + timedelta(days=1), time(0), tzinfo=self.tz).astimezone(
            UTC
        )

    def previous(self) -> Period:
        """The period of the same length just before this one."""
        gap = timedelta(days=self.days)
        return Period(self.first - gap, self.last - gap, self.tz)

    def params(self) -> dict[str, Any]:
        return {"start": self.start, "end": self.end, "tz": self.tz.key}

    def out(self) -> dict[str, Any]:
        return {
            "from": self.first.isoformat(),
            "to": self.last.isoformat(),
            "timezone": self.tz.key,
        }


async def org_zone(scope: OrgScope) -> ZoneInfo:
    cur = await scope.conn.execute(
        "SELECT timezone FROM organizations WHERE id = %s", (scope.org_id,)
    )
    row = await cur.fetchone()
    return ZoneInfo(str(row["timezone"]) if row else "UTC")


def make_period(first: date | None, last: date | None, today: date, tz: ZoneInfo) -> Period:
    """`first`..`last`; a missing end is today, a missing start the 30 days up to the end."""
    end = last or today
    start = first or end - timedelta(days=DEFAULT_DAYS - 1)
    if end < start:
        raise DomainError("invalid_args", "The end date is before the start date.")
    if (end - start).days >= MAX_DAYS:
        raise DomainError("invalid_args", f"A range spans at most {MAX_DAYS} days.")
    return Period(start, end, tz)


async def period_for(
    scope: OrgScope, first: date | None, last: date | None, now: datetime
) -> Period:
    tz = await org_zone(scope)
    return make_period(first, last, now.astimezone(tz).date(), tz)


def rate(part: int, whole: int) -> float | None:
    """part / whole rounded to 3 places; None when there is nothing to divide by."""
    return round(part / whole, 3) if whole else None
