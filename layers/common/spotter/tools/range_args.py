"""The shared `DateRange` argument: local dates in the gym's zone, both ends included."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

from pydantic import model_validator

from spotter.domain.analytics.period import Period, make_period
from spotter.tools.args import Args
from spotter.tools.context import ToolContext


class DateRange(Args):
    start: date | None = None
    end: date | None = None

    @model_validator(mode="after")
    def _ordered(self) -> DateRange:
        if self.start and self.end and self.end < self.start:
            raise ValueError("end is before start")
        return self


def period_of(ctx: ToolContext, dates: DateRange | None) -> Period:
    """The period a report covers: the range given, else the 30 days up to today (local)."""
    given = dates or DateRange()
    return make_period(given.start, given.end, ctx.local_now.date(), ctx.tz)


def range_bounds(
    ctx: ToolContext, dates: DateRange | None
) -> tuple[datetime | None, datetime | None]:
    """UTC instants [start of the first day, end of the last) for a filter; open ends as None."""
    if dates is None:
        return None, None
    since = datetime.combine(dates.start, time(0), tzinfo=ctx.tz) if dates.start else None
    until = (
        datetime.combine(dates.end + timedelta(days=1), time(0), tzinfo=ctx.tz)
        if dates.end
        else None
    )
    return since, until
