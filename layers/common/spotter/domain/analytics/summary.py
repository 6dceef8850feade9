"""The headline numbers of a period beside the previous equal period: how the gym is doing."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from spotter.db.scope import OrgScope
from spotter.domain.analytics.attendance import attendance, class_fill_rate, no_shows
from spotter.domain.analytics.period import Period


def _change(current: float | int | None, previous: float | int | None) -> dict[str, Any]:
    delta = None
    if current is not None and previous is not None:
        delta = round(current - previous, 3)
    return {"current": current, "previous": previous, "change": delta}


async def _headline(scope: OrgScope, period: Period, now: datetime) -> dict[str, Any]:
    seen = (await attendance(scope, period, now=now))["totals"]
    fill = (await class_fill_rate(scope, period))["overall"]
    missed = (await no_shows(scope, period, now=now))["overall"]
    return {
        "checkIns": seen["checkIns"],
        "uniqueMembers": seen["uniqueMembers"],
        "sessions": seen["sessions"],
        "fillRate": fill["fillRate"],
        "noShowRate": missed["noShowRate"],
    }


async def summary(scope: OrgScope, period: Period, *, now: datetime) -> dict[str, Any]:
    current = await _headline(scope, period, now)
    before = period.previous()
    previous = await _headline(scope, before, now)
    return {
        "period": period.out(),
        "previousPeriod": before.out(),
        **{key: _change(current[key], previous[key]) for key in current},
        "basis": "Each figure as in the attendance, fill_rate and no_shows reports, for this"
        " period and the one of equal length before it.",
    }
