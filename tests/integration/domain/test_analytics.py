"""Analytics on real Postgres: each number from bookings, sessions, subscriptions and leads,
for local date ranges in the org's zone (Asia/Jerusalem in these tests)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from uuid import UUID

import pytest

from spotter.db import Database
from spotter.domain.analytics import attendance, business, members
from spotter.domain.analytics.period import Period, make_period
from spotter.domain.errors import DomainError
from tests.support.analytics import (
    TZ,
    class_type,
    lead,
    pipeline,
    plan,
    session,
    subscription,
)
from tests.support.forms import scope_of
from tests.support.world import Org, add_person

NOVEMBER = Period(date(2026, 11, 1), date(2026, 11, 30), TZ)
LATER = datetime(2026, 12, 5, 12, 0, tzinfo=UTC)


def _people(clean_db: str, org: Org, *names: str) -> list[UUID]:
    ids = []
    for name in names:
        membership_id = add_person(clean_db, org, name).membership_id
        assert membership_id is not None
        ids.append(membership_id)
    return ids


def _at(day: int, month: int = 11) -> datetime:
    return datetime(2026, month, day, 10, 0, tzinfo=TZ)


async def test_attendance_counts_check_ins_no_shows_cancellations_and_members(
    db: Database, org: Org, clean_db: str
) -> None:
    a, b, c = _people(clean_db, org, "Ana", "Ben", "Cy")
    crossfit = class_type(clean_db, org, "CrossFit")
    session(clean_db, org, crossfit, date(2026, 11, 2), time(7),
            bookings={a: "checked_in", b: "no_show", c: "cancelled"})  # fmt: skip
    session(clean_db, org, crossfit, date(2026, 11, 3), time(7),
            bookings={a: "checked_in", b: "checked_in"})  # fmt: skip
    async with scope_of(db, org) as scope:
        result = await attendance.attendance(scope, NOVEMBER, now=LATER)
    totals = result["totals"]
    assert (totals["sessions"], totals["checkIns"], totals["noShows"]) == (2, 3, 1)
    assert (totals["cancellations"], totals["uniqueMembers"]) == (1, 2)
    assert [d["start"] for d in result["series"]] == ["2026-11-02", "2026-11-03"]


async def test_a_class_after_local_midnight_belongs_to_the_next_local_day(
    db: Database, org: Org, clean_db: str
) -> None:
    (a,) = _people(clean_db, org, "Ana")
    late = class_type(clean_db, org, "Late")
    # 23:30 on the 30th is inside November; 00:30 on 1 December (22:30 UTC on the 30th) is not
    session(clean_db, org, late, date(2026, 11, 30), time(23, 30), bookings={a: "checked_in"})
    session(clean_db, org, late, date(2026, 12, 1), time(0, 30), bookings={a: "checked_in"})
    async with scope_of(db, org) as scope:
        result = await attendance.attendance(scope, NOVEMBER, now=LATER)
    assert result["totals"]["checkIns"] == 1
    assert [d["start"] for d in result["series"]] == ["2026-11-30"]


async def test_sessions_not_started_by_now_are_not_attendance(
    db: Database, org: Org, clean_db: str
) -> None:
    (a,) = _people(clean_db, org, "Ana")
    crossfit = class_type(clean_db, org, "CrossFit")
    session(clean_db, org, crossfit, date(2026, 11, 10), time(7), bookings={a: "checked_in"})
    session(clean_db, org, crossfit, date(2026, 11, 20), time(7), bookings={a: "booked"})
    now = datetime(2026, 11, 15, 12, 0, tzinfo=UTC)
    async with scope_of(db, org) as scope:
        result = await attendance.attendance(scope, NOVEMBER, now=now)
    assert (result["totals"]["sessions"], result["totals"]["bookedNotMarked"]) == (1, 0)


async def test_cancelled_and_draft_sessions_are_left_out(
    db: Database, org: Org, clean_db: str
) -> None:
    (a,) = _people(clean_db, org, "Ana")
    crossfit = class_type(clean_db, org, "CrossFit")
    for status in ("cancelled", "draft"):
        session(clean_db, org, crossfit, date(2026, 11, 10), time(7), status=status,
                bookings={a: "checked_in"})  # fmt: skip
    async with scope_of(db, org) as scope:
        result = await attendance.attendance(scope, NOVEMBER, now=LATER)
    assert result["totals"]["sessions"] == 0


async def test_a_weekly_series_starts_its_buckets_on_mondays(
    db: Database, org: Org, clean_db: str
) -> None:
    (a,) = _people(clean_db, org, "Ana")
    crossfit = class_type(clean_db, org, "CrossFit")
    for day in (4, 6, 12):  # Wed 4, Fri 6 (week of Mon 2); Thu 12 (week of Mon 9)
        session(clean_db, org, crossfit, date(2026, 11, day), time(7), bookings={a: "checked_in"})
    async with scope_of(db, org) as scope:
        result = await attendance.attendance(scope, NOVEMBER, now=LATER, grain="week")
    assert [(d["start"], d["checkIns"]) for d in result["series"]] == [
        ("2026-11-02", 2),
        ("2026-11-09", 1),
    ]


async def test_fill_rate_is_spots_over_capacity_with_full_sessions_and_waitlist(
    db: Database, org: Org, clean_db: str
) -> None:
    a, b, c = _people(clean_db, org, "Ana", "Ben", "Cy")
    barbell = class_type(clean_db, org, "Barbell")
    session(clean_db, org, barbell, date(2026, 11, 2), time(19), capacity=2,
            bookings={a: "checked_in", b: "no_show", c: "waitlisted"})  # fmt: skip
    session(clean_db, org, barbell, date(2026, 11, 4), time(19), capacity=2,
            bookings={a: "cancelled"})  # fmt: skip
    session(clean_db, org, barbell, date(2026, 11, 6), time(19), capacity=None,
            bookings={a: "booked"})  # fmt: skip
    async with scope_of(db, org) as scope:
        result = await attendance.class_fill_rate(scope, NOVEMBER)
    (row,) = result["byClassType"]
    assert (row["bookedSpots"], row["capacity"], row["fillRate"]) == (2, 4, 0.5)
    assert (row["fullSessions"], row["waitlisted"], row["sessionsWithoutCapacity"]) == (1, 1, 1)


async def test_peak_times_rank_slots_by_average_check_ins(
    db: Database, org: Org, clean_db: str
) -> None:
    a, b = _people(clean_db, org, "Ana", "Ben")
    crossfit = class_type(clean_db, org, "CrossFit")
    session(clean_db, org, crossfit, date(2026, 11, 2), time(18),
            bookings={a: "checked_in", b: "checked_in"})  # fmt: skip
    session(clean_db, org, crossfit, date(2026, 11, 3), time(7), bookings={a: "checked_in"})
    async with scope_of(db, org) as scope:
        result = await attendance.peak_times(scope, NOVEMBER, now=LATER)
    assert [(s["weekday"], s["hour"], s["avgCheckIns"]) for s in result["busiest"]] == [
        ("Mon", "18:00", 2.0),
        ("Tue", "07:00", 1.0),
    ]


async def test_no_show_rate_and_the_member_with_most_no_shows(
    db: Database, org: Org, clean_db: str
) -> None:
    a, b = _people(clean_db, org, "Ana", "Ben")
    crossfit = class_type(clean_db, org, "CrossFit")
    session(clean_db, org, crossfit, date(2026, 11, 2), time(7),
            bookings={a: "no_show", b: "checked_in"})  # fmt: skip
    session(clean_db, org, crossfit, date(2026, 11, 3), time(7),
            bookings={a: "no_show", b: "checked_in"})  # fmt: skip
    async with scope_of(db, org) as scope:
        result = await attendance.no_shows(scope, NOVEMBER, now=LATER)
    assert result["overall"] == {"noShows": 2, "markedBookings": 4, "noShowRate": 0.5}
    assert [(m["memberId"], m["noShows"]) for m in result["mostNoShows"]] == [(str(a), 2)]


async def test_member_attendance_counts_visits_and_the_last_local_visit(
    db: Database, org: Org, clean_db: str
) -> None:
    (a,) = _people(clean_db, org, "Ana")
    crossfit = class_type(clean_db, org, "CrossFit")
    session(clean_db, org, crossfit, date(2026, 11, 2), time(7), bookings={a: "checked_in"})
    session(clean_db, org, crossfit, date(2026, 11, 9), time(7), bookings={a: "no_show"})
    session(clean_db, org, crossfit, date(2026, 12, 1), time(0, 30), bookings={a: "checked_in"})
    async with scope_of(db, org) as scope:
        result = await members.member_attendance(scope, NOVEMBER, a)
    assert (result["checkIns"], result["noShows"], result["lastVisit"]) == (1, 1, "2026-12-01")


async def test_member_attendance_of_another_orgs_member_is_not_found(
    db: Database, org: Org, other_org: Org
) -> None:
    theirs = other_org["member"].membership_id
    assert theirs is not None
    async with scope_of(db, org) as scope:
        with pytest.raises(DomainError) as info:
            await members.member_attendance(scope, NOVEMBER, theirs)
    assert info.value.code == "not_found"


async def test_top_members_are_ordered_by_check_ins(db: Database, org: Org, clean_db: str) -> None:
    a, b = _people(clean_db, org, "Ana", "Ben")
    crossfit = class_type(clean_db, org, "CrossFit")
    session(clean_db, org, crossfit, date(2026, 11, 2), time(7),
            bookings={a: "checked_in", b: "checked_in"})  # fmt: skip
    session(clean_db, org, crossfit, date(2026, 11, 3), time(7), bookings={b: "checked_in"})
    async with scope_of(db, org) as scope:
        result = await members.top_members(scope, NOVEMBER)
    assert [(m["name"], m["checkIns"]) for m in result["members"]] == [("Ben", 2), ("Ana", 1)]


async def test_inactive_members_are_those_without_a_recent_check_in(
    db: Database, org: Org, clean_db: str
) -> None:
    recent, lapsed = _people(clean_db, org, "Recent", "Lapsed")
    crossfit = class_type(clean_db, org, "CrossFit")
    session(clean_db, org, crossfit, date(2026, 11, 27), time(7), bookings={recent: "checked_in"})
    session(clean_db, org, crossfit, date(2026, 11, 5), time(7), bookings={lapsed: "checked_in"})
    async with scope_of(db, org) as scope:
        result = await members.inactive_members(scope, date(2026, 11, 30), TZ, days=14)
    listed = {m["name"]: m["lastVisit"] for m in result["members"]}
    # the org fixture's own member never visited; staff are not members
    assert listed == {org["member"].clerk_user_id.replace("user_member_", "Member "): None,
                      "Lapsed": "2026-11-05"}  # fmt: skip
    assert (result["activeMembers"], result["inactive"]) == (3, 2)


async def test_retention_compares_visitors_with_the_previous_equal_period(
    db: Database, org: Org, clean_db: str
) -> None:
    a, b, c = _people(clean_db, org, "Ana", "Ben", "Cy")
    crossfit = class_type(clean_db, org, "CrossFit")
    session(clean_db, org, crossfit, date(2026, 10, 20), time(7),
            bookings={a: "checked_in", b: "checked_in"})  # fmt: skip
    session(clean_db, org, crossfit, date(2026, 11, 20), time(7),
            bookings={a: "checked_in", c: "checked_in"})  # fmt: skip
    async with scope_of(db, org) as scope:
        result = await members.retention(scope, NOVEMBER)
    assert result["previousPeriod"] == {"from": "2026-10-02", "to": "2026-10-31",
                                        "timezone": "Asia/Jerusalem"}  # fmt: skip
    assert (result["previousVisitors"], result["retained"], result["lapsed"]) == (2, 1, 1)
    assert (result["newOrReturning"], result["retentionRate"]) == (1, 0.5)


async def test_churn_counts_members_not_plan_changes(db: Database, org: Org, clean_db: str) -> None:
    stays, leaves, switches, joins = _people(clean_db, org, "Stays", "Leaves", "Switches", "Joins")
    basic, plus = plan(clean_db, org, "Basic", 30000), plan(clean_db, org, "Plus", 45000)
    subscription(clean_db, org, stays, basic, _at(1, 9))
    subscription(clean_db, org, leaves, basic, _at(1, 9), cancelled=_at(15))
    old = subscription(clean_db, org, switches, basic, _at(1, 9), cancelled=_at(10))
    subscription(clean_db, org, switches, plus, _at(10), replaces=old)
    subscription(clean_db, org, joins, plus, _at(20))
    async with scope_of(db, org) as scope:
        result = await business.churn(scope, NOVEMBER)
    assert (result["membersAtStart"], result["membersAtEnd"]) == (3, 3)
    assert (result["churned"], result["joined"], result["churnRate"]) == (1, 1, 0.333)
    assert result["cancelledSubscriptions"] == 2


async def test_plan_metrics_normalize_prices_to_a_month_and_leave_out_paused(
    db: Database, org: Org, clean_db: str
) -> None:
    a, b, c = _people(clean_db, org, "Ana", "Ben", "Cy")
    yearly = plan(clean_db, org, "Yearly", 120000, "year")
    weekly = plan(clean_db, org, "Weekly", 3000, "week")
    subscription(clean_db, org, a, yearly, _at(1, 9))
    subscription(clean_db, org, b, weekly, _at(5))
    subscription(clean_db, org, c, weekly, _at(1, 9), paused=_at(20))
    async with scope_of(db, org) as scope:
        result = await business.plan_metrics(scope, NOVEMBER)
    by_plan = {p["plan"]: p for p in result["plans"]}
    assert by_plan["Yearly"]["monthlyRecurringCents"] == 10000
    assert (by_plan["Weekly"]["liveMembers"], by_plan["Weekly"]["paused"]) == (2, 1)
    assert (by_plan["Weekly"]["monthlyRecurringCents"], by_plan["Weekly"]["started"]) == (13000, 1)
    assert result["totals"]["payingMembers"] == 2


async def test_lead_conversion_by_source_and_conversions_dated_in_the_period(
    db: Database, org: Org, clean_db: str
) -> None:
    stages = pipeline(clean_db, org)
    member = org["member"].user_id
    lead(
        clean_db, org, stages, _at(3), source="instagram", converted=_at(13), converted_user=member
    )
    lead(clean_db, org, stages, _at(4), source="instagram", status="lost")
    lead(clean_db, org, stages, _at(5), source="walk-in")
    lead(clean_db, org, stages, _at(1, 10), source="walk-in", converted=_at(2),
         converted_user=org["coach"].user_id)  # fmt: skip
    async with scope_of(db, org) as scope:
        result = await business.lead_conversion(scope, NOVEMBER)
    assert result["cohort"] == {"created": 3, "converted": 1, "conversionRate": 0.333,
                                "avgDaysToConvert": 10.0}  # fmt: skip
    assert [(s["source"], s["conversionRate"]) for s in result["bySource"]] == [
        ("instagram", 0.5),
        ("walk-in", 0.0),
    ]
    assert result["conversionsInPeriod"] == 2


def test_a_range_ending_before_it_starts_is_invalid() -> None:
    with pytest.raises(DomainError) as info:
        make_period(date(2026, 11, 30), date(2026, 11, 1), date(2026, 12, 1), TZ)
    assert info.value.code == "invalid_args"


def test_a_missing_range_is_the_30_days_up_to_today() -> None:
    period = make_period(None, None, date(2026, 11, 30), TZ)
    assert (period.first, period.last) == (date(2026, 11, 1), date(2026, 11, 30))
    assert period.start == datetime(2026, 10, 31, 22, 0, tzinfo=UTC)
    assert period.end - period.start == timedelta(days=30)


async def test_an_erased_member_counts_but_is_never_listed(
    db: Database, org: Org, clean_db: str
) -> None:
    import psycopg

    (gone,) = _people(clean_db, org, "Gone")
    crossfit = class_type(clean_db, org, "CrossFit")
    session(clean_db, org, crossfit, date(2026, 11, 2), time(7), bookings={gone: "checked_in"})
    with psycopg.connect(clean_db) as conn:
        conn.execute("UPDATE org_memberships SET status = 'removed' WHERE id = %s", (gone,))
    async with scope_of(db, org) as scope:
        top = await members.top_members(scope, NOVEMBER)
        seen = await attendance.attendance(scope, NOVEMBER, now=LATER)
    assert top["members"] == [] and seen["totals"]["checkIns"] == 1
