"""Attendance analytics: check-ins over time, fill rate, peak times and no-shows.

A session counts when it is published (not cancelled or deleted) and started inside the period;
attendance and no-shows read only sessions that have started by `now` (a class later today has
nobody checked in yet, which is not a drop). Fill rate reads every session in the period, since
booked spots of an upcoming class are real demand.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal
from uuid import UUID

from spotter.db.scope import OrgScope
from spotter.domain.analytics.period import Period, rate
from spotter.domain.errors import not_found

Grain = Literal["day", "week", "month"]

_SESSIONS = """
WITH s AS (
  SELECT s.id, s.class_type_id, s.capacity, s.starts_at,
         (s.starts_at AT TIME ZONE %(tz)s) AS local_start
    FROM class_sessions s
   WHERE s.organization_id = %(org)s AND s.deleted_at IS NULL AND s.status = 'published'
     AND s.starts_at >= %(start)s AND s.starts_at < %(end)s AND s.starts_at <= %(until)s
     AND (%(type)s::uuid IS NULL OR s.class_type_id = %(type)s)
)
"""

_COUNTS = """
  count(DISTINCT s.id) AS sessions,
  count(b.id) FILTER (WHERE b.status = 'checked_in') AS check_ins,
  count(b.id) FILTER (WHERE b.status = 'no_show') AS no_shows,
  count(b.id) FILTER (WHERE b.status = 'booked') AS unmarked,
  count(b.id) FILTER (WHERE b.status = 'cancelled') AS cancellations,
  count(DISTINCT b.membership_id) FILTER (WHERE b.status = 'checked_in') AS members
"""
_JOIN = " FROM s LEFT JOIN bookings b ON b.session_id = s.id AND b.organization_id = %(org)s"


def _params(
    scope: OrgScope, period: Period, until: datetime, class_type_id: UUID | None
) -> dict[str, Any]:
    return {**period.params(), "org": scope.org_id, "until": until, "type": class_type_id}


async def _require_class_type(scope: OrgScope, class_type_id: UUID | None) -> None:
    """A filter on another org's (or no) class type is `not_found`, never an empty report."""
    if class_type_id is None:
        return
    cur = await scope.conn.execute(
        "SELECT 1 FROM class_types WHERE id = %s AND organization_id = %s AND deleted_at IS NULL",
        (class_type_id, scope.org_id),
    )
    if await cur.fetchone() is None:
        raise not_found("class type")


def default_grain(period: Period) -> Grain:
    if period.days <= 31:
        return "day"
    return "week" if period.days <= 183 else "month"


def _counts_out(row: dict[str, Any]) -> dict[str, Any]:
    sessions, check_ins = int(row["sessions"]), int(row["check_ins"])
    return {
        "sessions": sessions,
        "checkIns": check_ins,
        "noShows": int(row["no_shows"]),
        "bookedNotMarked": int(row["unmarked"]),
        "cancellations": int(row["cancellations"]),
        "uniqueMembers": int(row["members"]),
        "checkInsPerSession": round(check_ins / sessions, 2) if sessions else None,
    }


async def attendance(
    scope: OrgScope,
    period: Period,
    *,
    now: datetime,
    grain: Grain | None = None,
    class_type_id: UUID | None = None,
) -> dict[str, Any]:
    """Totals for the period and a series by day, week (Mondays) or month."""
    await _require_class_type(scope, class_type_id)
    step = grain or default_grain(period)
    params = {**_params(scope, period, now, class_type_id), "grain": step}
    cur = await scope.conn.execute(_SESSIONS + "SELECT" + _COUNTS + _JOIN, params)
    totals = await cur.fetchone()
    assert totals is not None
    cur = await scope.conn.execute(
        _SESSIONS + "SELECT date_trunc(%(grain)s, s.local_start)::date AS bucket," + _COUNTS
        + _JOIN + " GROUP BY bucket ORDER BY bucket",
        params,
    )  # fmt: skip
    series = [{"start": r["bucket"].isoformat(), **_counts_out(r)} for r in await cur.fetchall()]
    return {
        "period": period.out(),
        "grain": step,
        "totals": _counts_out(totals),
        "series": series,
        "basis": "Published sessions that started in the period; a check-in is a booking marked"
        " checked in.",
    }


async def class_fill_rate(
    scope: OrgScope, period: Period, *, class_type_id: UUID | None = None
) -> dict[str, Any]:
    """Booked spots over capacity, by class type; sessions without a capacity are counted apart."""
    await _require_class_type(scope, class_type_id)
    params = _params(scope, period, period.end, class_type_id)
    cur = await scope.conn.execute(
        _SESSIONS
        + """, per_session AS (
  SELECT s.id, s.class_type_id, s.capacity,
         count(b.id) FILTER (WHERE b.status IN ('booked', 'checked_in', 'no_show')) AS spots,
         count(b.id) FILTER (WHERE b.status = 'waitlisted') AS waitlisted
    FROM s LEFT JOIN bookings b ON b.session_id = s.id AND b.organization_id = %(org)s
   GROUP BY s.id, s.class_type_id, s.capacity
)
SELECT t.name,
       count(*) AS sessions,
       count(*) FILTER (WHERE p.capacity IS NULL) AS uncapped,
       coalesce(sum(p.capacity), 0) AS capacity,
       coalesce(sum(p.spots) FILTER (WHERE p.capacity IS NOT NULL), 0) AS spots,
       count(*) FILTER (WHERE p.spots >= p.capacity) AS full_sessions,
       coalesce(sum(p.waitlisted), 0) AS waitlisted
  FROM per_session p JOIN class_types t ON t.id = p.class_type_id AND t.organization_id = %(org)s
 GROUP BY t.id, t.name ORDER BY lower(t.name)""",
        params,
    )
    rows = await cur.fetchall()
    by_type = [
        {
            "classType": r["name"],
            "sessions": int(r["sessions"]),
            "bookedSpots": int(r["spots"]),
            "capacity": int(r["capacity"]),
            "fillRate": rate(int(r["spots"]), int(r["capacity"])),
            "fullSessions": int(r["full_sessions"]),
            "waitlisted": int(r["waitlisted"]),
            "sessionsWithoutCapacity": int(r["uncapped"]),
        }
        for r in rows
    ]
    spots = sum(t["bookedSpots"] for t in by_type)
    capacity = sum(t["capacity"] for t in by_type)
    return {
        "period": period.out(),
        "overall": {
            "sessions": sum(t["sessions"] for t in by_type),
            "bookedSpots": spots,
            "capacity": capacity,
            "fillRate": rate(spots, capacity),
            "fullSessions": sum(t["fullSessions"] for t in by_type),
        },
        "byClassType": by_type,
        "basis": "Spots held (booked, checked in or no-show) over capacity, for published"
        " sessions in the period, upcoming ones included.",
    }


_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


async def peak_times(
    scope: OrgScope, period: Period, *, now: datetime, limit: int = 8
) -> dict[str, Any]:
    """The busiest weekly slots (local weekday and start hour) by average check-ins."""
    cur = await scope.conn.execute(
        _SESSIONS
        + """SELECT extract(isodow FROM s.local_start)::int AS dow,
       extract(hour FROM s.local_start)::int AS hour,
       count(DISTINCT s.id) AS sessions,
       count(b.id) FILTER (WHERE b.status = 'checked_in') AS check_ins
  FROM s LEFT JOIN bookings b ON b.session_id = s.id AND b.organization_id = %(org)s
 GROUP BY dow, hour
 ORDER BY count(b.id) FILTER (WHERE b.status = 'checked_in')::float / count(DISTINCT s.id) DESC,
          dow, hour""",
        _params(scope, period, now, None),
    )
    rows = await cur.fetchall()
    slots = [
        {
            "weekday": _WEEKDAYS[r["dow"] - 1],
            "hour": f"{r['hour']:02d}:00",
            "sessions": int(r["sessions"]),
            "checkIns": int(r["check_ins"]),
            "avgCheckIns": round(int(r["check_ins"]) / int(r["sessions"]), 2),
        }
        for r in rows
    ]
    return {
        "period": period.out(),
        "busiest": slots[:limit],
        "quietest": slots[::-1][:3] if len(slots) > limit else [],
        "basis": "Check-ins per session, grouped by the local weekday and hour a class starts.",
    }


async def no_shows(
    scope: OrgScope, period: Period, *, now: datetime, limit: int = 5
) -> dict[str, Any]:
    """No-show rate by class type and the members with the most no-shows."""
    params = {**_params(scope, period, now, None), "limit": limit}
    cur = await scope.conn.execute(
        _SESSIONS
        + "SELECT t.name," + _COUNTS + _JOIN
        + " JOIN class_types t ON t.id = s.class_type_id AND t.organization_id = %(org)s"
        " GROUP BY t.id, t.name ORDER BY lower(t.name)",
        params,
    )  # fmt: skip
    by_type = []
    for r in await cur.fetchall():
        marked = int(r["check_ins"]) + int(r["no_shows"])
        by_type.append(
            {
                "classType": r["name"],
                "checkIns": int(r["check_ins"]),
                "noShows": int(r["no_shows"]),
                "cancellations": int(r["cancellations"]),
                "noShowRate": rate(int(r["no_shows"]), marked),
            }
        )
    cur = await scope.conn.execute(
        _SESSIONS
        + """SELECT m.id, u.full_name, count(*) AS no_shows
  FROM s JOIN bookings b ON b.session_id = s.id AND b.organization_id = %(org)s
  JOIN org_memberships m ON m.id = b.membership_id AND m.organization_id = %(org)s
  JOIN users u ON u.id = m.user_id
 WHERE b.status = 'no_show' AND m.status <> 'removed'
 GROUP BY m.id, u.full_name ORDER BY count(*) DESC, lower(u.full_name) LIMIT %(limit)s""",
        params,
    )
    members = [
        {"memberId": str(r["id"]), "name": r["full_name"], "noShows": int(r["no_shows"])}
        for r in await cur.fetchall()
    ]
    no_show_total = sum(t["noShows"] for t in by_type)
    marked_total = no_show_total + sum(t["checkIns"] for t in by_type)
    return {
        "period": period.out(),
        "overall": {
            "noShows": no_show_total,
            "markedBookings": marked_total,
            "noShowRate": rate(no_show_total, marked_total),
        },
        "byClassType": by_type,
        "mostNoShows": members,
        "basis": "No-shows over bookings marked checked in or no-show, in sessions that started.",
    }
