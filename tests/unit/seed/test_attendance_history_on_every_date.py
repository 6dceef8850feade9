"""The demo history keeps its promises on every date, in every zone, either side of midnight.

The seed writes the history for the gym's local date at the moment it runs; the reports read it
at some later moment (the same evening, or just after local midnight). Here the history the seed
plans is read the way `analytics.members` reads it, for every seed day of a year, in zones from
UTC-11 to UTC+14, seeded an hour before local midnight and read an hour after it (and at once).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from spotter.domain.schedule import local_to_utc
from spotter.seed.attendance import LAPSED, LAPSED_AFTER_DAYS, NEWCOMERS, WEEKS, planned_history
from spotter.seed.schedule import CREDIT_PACKS, MEMBERS, TIMETABLE

ZONES = ("Asia/Jerusalem", "UTC", "America/Los_Angeles", "Pacific/Pago_Pago", "Pacific/Kiritimati")
YEAR = [date(2026, 1, 1) + timedelta(days=n) for n in range(366)]
# (local time the seed runs, hours until the report reads it)
MOMENTS = ((time(23, 0), 2), (time(0, 30), 0), (time(12, 0), 13))

Visits = dict[str, list[datetime]]  # member -> start instants of their checked-in bookings


def _checked_in(today: date, tz: ZoneInfo) -> Visits:
    visits: Visits = {}
    for day, slot, roster in planned_history(today):
        starts = local_to_utc(day, TIMETABLE[slot][1], tz)
        for member, status in roster:
            if status == "checked_in":
                visits.setdefault(member, []).append(starts)
    return visits


def _readings() -> Iterator[tuple[date, ZoneInfo, datetime]]:
    for zone in ZONES:
        tz = ZoneInfo(zone)
        for today in YEAR:
            for at, hours_later in MOMENTS:
                seeded = datetime.combine(today, at, tzinfo=tz)
                yield today, tz, (seeded + timedelta(hours=hours_later)).astimezone(UTC)


def _visitors(visits: Visits, first: datetime, last: datetime) -> set[str]:
    return {m for m, ats in visits.items() if any(first <= at < last for at in ats)}


Reading = tuple[date, ZoneInfo, datetime, Visits]


@pytest.fixture(scope="module")
def readings() -> list[Reading]:
    plans: dict[tuple[date, str], Visits] = {}
    out = []
    for today, tz, read_at in _readings():
        key = (today, tz.key)
        if key not in plans:
            plans[key] = _checked_in(today, tz)
        out.append((today, tz, read_at, plans[key]))
    return out


def _inactive(visits: Visits, as_of: date, tz: ZoneInfo, days: int = 14) -> set[str]:
    """`members.inactive_members`: no check-in since local midnight `days - 1` days before."""
    cutoff = datetime.combine(as_of - timedelta(days=days - 1), time(0), tzinfo=tz)
    seen = {m for m, ats in visits.items() if max(ats) >= cutoff}
    return {m for m in MEMBERS if m not in CREDIT_PACKS} - seen


def test_newcomers_are_never_inactive(readings: list[Reading]) -> None:
    for today, tz, read_at, visits in readings:
        quiet = _inactive(visits, read_at.astimezone(tz).date(), tz)
        assert not quiet & set(NEWCOMERS), (today, tz.key, read_at, quiet & set(NEWCOMERS))


def test_newcomers_started_within_two_weeks(readings: list[Reading]) -> None:
    for today, tz, _read_at, visits in readings:
        start = datetime.combine(today - timedelta(days=14), time(0), tzinfo=tz)
        assert all(min(visits[name]) >= start for name in NEWCOMERS), (today, tz.key)


def test_the_lapsed_are_inactive_and_stopped_three_weeks_ago(readings: list[Reading]) -> None:
    for today, tz, read_at, visits in readings:
        assert set(LAPSED) <= _inactive(visits, read_at.astimezone(tz).date(), tz)
        stopped = datetime.combine(today - timedelta(days=LAPSED_AFTER_DAYS), time(0), tzinfo=tz)
        assert all(max(visits[name]) < stopped for name in LAPSED), (today, tz.key)


def test_retention_has_lapsed_and_new_visitors(readings: list[Reading]) -> None:
    """`members.retention` over the default period (30 local days up to the reading's date)."""
    for today, tz, read_at, visits in readings:
        last = read_at.astimezone(tz).date()
        start = datetime.combine(last - timedelta(days=29), time(0), tzinfo=tz)
        end = datetime.combine(last + timedelta(days=1), time(0), tzinfo=tz)
        before = datetime.combine(last - timedelta(days=59), time(0), tzinfo=tz)
        previous, current = _visitors(visits, before, start), _visitors(visits, start, end)
        assert previous - current, (today, tz.key)
        assert set(NEWCOMERS) <= current - previous, (today, tz.key)


def test_eight_weeks_hold_hundreds_of_check_ins_and_some_no_shows() -> None:
    for today in YEAR[:7]:  # the history depends on the date only through the weekday
        statuses = [s for _d, _slot, roster in planned_history(today) for _m, s in roster]
        assert statuses.count("checked_in") > 300 and "no_show" in statuses
        assert len({d for d, _s, _r in planned_history(today)}) == WEEKS * 7


def test_the_history_is_the_same_shifted_by_a_week() -> None:
    """Nothing hashes the calendar date: a week later the same classes hold the same people."""
    now, later = date(2026, 12, 2), date(2026, 12, 9)
    assert [(slot, roster) for _d, slot, roster in planned_history(now)] == [
        (slot, roster) for _d, slot, roster in planned_history(later)
    ]
