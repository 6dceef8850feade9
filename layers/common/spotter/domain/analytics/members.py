"""Member analytics from attendance: one member's visits, the most regular, who has gone quiet,
and retention between two equal periods. A visit is a check-in to a published session.

Erased members (membership 'removed') still count in every number but are never listed by name.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any
from uuid import UUID
from zoneinfo import ZoneInfo

from spotter.db.scope import OrgScope
from spotter.domain.analytics.period import Period, rate
from spotter.domain.errors import not_found

_VISITS = """
SELECT b.membership_id, s.starts_at, s.class_type_id
  FROM bookings b JOIN class_sessions s ON s.id = b.session_id AND s.organization_id = %(org)s
 WHERE b.organization_id = %(org)s AND b.status = 'checked_in'
   AND s.deleted_at IS NULL AND s.status = 'published'
"""
_ACTIVE_MEMBERS = (
    "SELECT m.id, u.full_name, m.created_at FROM org_memberships m JOIN users u ON u.id = m.user_id"
    " WHERE m.organization_id = %(org)s AND m.role = 'member' AND m.status = 'active'"
)


def _local_date(instant: datetime | None, tz: ZoneInfo) -> str | None:
    return instant.astimezone(tz).date().isoformat() if instant else None


async def member_attendance(scope: OrgScope, period: Period, membership_id: UUID) -> dict[str, Any]:
    """One member's check-ins, no-shows and cancellations in the period, and their last visit."""
    cur = await scope.conn.execute(
        "SELECT u.full_name FROM org_memberships m JOIN users u ON u.id = m.user_id"
        " WHERE m.id = %s AND m.organization_id = %s AND m.status <> 'removed'",
        (membership_id, scope.org_id),
    )
    person = await cur.fetchone()
    if person is None:
        raise not_found("member")
    params = {**period.params(), "org": scope.org_id, "member": membership_id}
    cur = await scope.conn.execute(
        """SELECT t.name, count(*) FILTER (WHERE b.status = 'checked_in') AS check_ins,
       count(*) FILTER (WHERE b.status = 'no_show') AS no_shows,
       count(*) FILTER (WHERE b.status = 'cancelled') AS cancellations
  FROM bookings b JOIN class_sessions s ON s.id = b.session_id AND s.organization_id = %(org)s
  JOIN class_types t ON t.id = s.class_type_id AND t.organization_id = %(org)s
 WHERE b.organization_id = %(org)s AND b.membership_id = %(member)s
   AND s.deleted_at IS NULL AND s.status = 'published'
   AND s.starts_at >= %(start)s AND s.starts_at < %(end)s
 GROUP BY t.id, t.name ORDER BY check_ins DESC, lower(t.name)""",
        params,
    )
    rows = await cur.fetchall()
    cur = await scope.conn.execute(
        "SELECT max(v.starts_at) AS last FROM (" + _VISITS + ") v"
        " WHERE v.membership_id = %(member)s",
        params,
    )
    last = await cur.fetchone()
    check_ins = sum(int(r["check_ins"]) for r in rows)
    return {
        "period": period.out(),
        "member": {"id": str(membership_id), "name": person["full_name"]},
        "checkIns": check_ins,
        "noShows": sum(int(r["no_shows"]) for r in rows),
        "cancellations": sum(int(r["cancellations"]) for r in rows),
        "perWeek": round(check_ins / (period.days / 7), 2),
        "lastVisit": _local_date(last["last"] if last else None, period.tz),
        "byClassType": [
            {"classType": r["name"], "checkIns": int(r["check_ins"])}
            for r in rows
            if r["check_ins"]
        ],
    }


async def top_members(scope: OrgScope, period: Period, *, limit: int = 10) -> dict[str, Any]:
    """The members with the most check-ins in the period."""
    cur = await scope.conn.execute(
        "SELECT m.id, u.full_name, count(*) AS check_ins FROM (" + _VISITS + ") v"
        " JOIN org_memberships m ON m.id = v.membership_id AND m.organization_id = %(org)s"
        " JOIN users u ON u.id = m.user_id"
        " WHERE v.starts_at >= %(start)s AND v.starts_at < %(end)s AND m.status <> 'removed'"
        " GROUP BY m.id, u.full_name ORDER BY count(*) DESC, lower(u.full_name) LIMIT %(limit)s",
        {**period.params(), "org": scope.org_id, "limit": limit},
    )
    rows = await cur.fetchall()
    return {
        "period": period.out(),
        "members": [
            {
                "memberId": str(r["id"]),
                "name": r["full_name"],
                "checkIns": int(r["check_ins"]),
                "perWeek": round(int(r["check_ins"]) / (period.days / 7), 2),
            }
            for r in rows
        ],
    }


async def inactive_members(
    scope: OrgScope, as_of: date, tz: ZoneInfo, *, days: int = 14, limit: int = 50
) -> dict[str, Any]:
    """Active members with no check-in in the `days` before `as_of` (never visited included)."""
    cutoff = datetime.combine(as_of - timedelta(days=days - 1), time(0), tzinfo=tz)
    cur = await scope.conn.execute(
        "SELECT a.id, a.full_name, a.created_at, last.at AS last_visit FROM (" + _ACTIVE_MEMBERS
        + ") a LEFT JOIN LATERAL (SELECT max(v.starts_at) AS at FROM (" + _VISITS + ") v"
        " WHERE v.membership_id = a.id) last ON true"
        " WHERE last.at IS NULL OR last.at < %(cutoff)s"
        " ORDER BY last.at NULLS FIRST, lower(a.full_name)",
        {"org": scope.org_id, "cutoff": cutoff},
    )  # fmt: skip
    rows = await cur.fetchall()
    cur = await scope.conn.execute(
        "SELECT count(*) AS n FROM (" + _ACTIVE_MEMBERS + ") a", {"org": scope.org_id}
    )
    active = await cur.fetchone()
    total = int(active["n"]) if active else 0
    return {
        "asOf": as_of.isoformat(),
        "timezone": tz.key,
        "days": days,
        "activeMembers": total,
        "inactive": len(rows),
        "inactiveShare": rate(len(rows), total),
        "members": [
            {
                "memberId": str(r["id"]),
                "name": r["full_name"],
                "lastVisit": _local_date(r["last_visit"], tz),
                "joined": _local_date(r["created_at"], tz),
            }
            for r in rows[:limit]
        ],
        "basis": f"Active members whose last check-in is more than {days} days before the date.",
    }


async def _visitors(scope: OrgScope, period: Period) -> set[UUID]:
    cur = await scope.conn.execute(
        "SELECT DISTINCT v.membership_id FROM (" + _VISITS + ") v"
        " WHERE v.starts_at >= %(start)s AND v.starts_at < %(end)s",
        {**period.params(), "org": scope.org_id},
    )
    return {r["membership_id"] for r in await cur.fetchall()}


async def retention(scope: OrgScope, period: Period) -> dict[str, Any]:
    """Of the members who visited in the previous equal period, how many visited in this one."""
    before = period.previous()
    previous, current = await _visitors(scope, before), await _visitors(scope, period)
    retained = previous & current
    return {
        "period": period.out(),
        "previousPeriod": before.out(),
        "previousVisitors": len(previous),
        "visitors": len(current),
        "retained": len(retained),
        "lapsed": len(previous - current),
        "newOrReturning": len(current - previous),
        "retentionRate": rate(len(retained), len(previous)),
        "basis": "A visitor checked in at least once in the period; retained visitors checked in"
        " in both periods.",
    }
