"""Which workouts a class runs: per (class type, date), or a session's own override.

Every session of a class type on a local date inherits that day's programming, unless the
session carries its own list (`workouts_override`, possibly empty). Spotter only links existing
workouts here; it never writes one.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any
from uuid import UUID
from zoneinfo import ZoneInfo

from spotter.db.scope import OrgScope
from spotter.domain import schedule
from spotter.domain.errors import DomainError, not_found

MAX_WORKOUTS = 10


async def check_workouts(scope: OrgScope, workout_ids: Sequence[UUID]) -> list[dict[str, Any]]:
    """The live workouts, in the given order; any missing or foreign id is not_found."""
    if len(set(workout_ids)) != len(workout_ids):
        raise DomainError("invalid_args", "A workout is listed twice.")
    if len(workout_ids) > MAX_WORKOUTS:
        raise DomainError("invalid_args", f"At most {MAX_WORKOUTS} workouts.")
    cur = await scope.conn.execute(
        "SELECT id, title FROM workouts"
        " WHERE organization_id = %s AND id = ANY(%s) AND deleted_at IS NULL",
        (scope.org_id, list(workout_ids)),
    )
    by_id = {UUID(str(r["id"])): r for r in await cur.fetchall()}
    if len(by_id) != len(workout_ids):
        raise not_found("workout")
    return [by_id[w] for w in workout_ids]


def workouts_out(rows: Sequence[dict[str, Any]]) -> list[dict[str, str]]:
    return [{"id": str(r["id"]), "title": r["title"]} for r in rows]


# --- daily programming ------------------------------------------------------------------------


async def day_workouts(scope: OrgScope, class_type_id: UUID, day: date) -> list[dict[str, Any]]:
    cur = await scope.conn.execute(
        "SELECT w.id, w.title FROM daily_programming d"
        " JOIN workouts w ON w.id = d.workout_id AND w.organization_id = d.organization_id"
        " WHERE d.organization_id = %s AND d.class_type_id = %s AND d.day = %s"
        " AND w.deleted_at IS NULL ORDER BY d.position",
        (scope.org_id, class_type_id, day),
    )
    return await cur.fetchall()


async def set_day(
    scope: OrgScope, class_type_id: UUID, day: date, workout_ids: Sequence[UUID]
) -> list[str]:
    """Replace a (class type, date)'s workouts (empty clears); returns the previous ids."""
    await schedule.get_class_type(scope, class_type_id)
    await check_workouts(scope, workout_ids)
    previous = await day_workouts(scope, class_type_id, day)
    await scope.conn.execute(
        "DELETE FROM daily_programming WHERE organization_id = %s AND class_type_id = %s"
        " AND day = %s",
        (scope.org_id, class_type_id, day),
    )
    for position, workout_id in enumerate(workout_ids):
        await scope.conn.execute(
            "INSERT INTO daily_programming (organization_id, class_type_id, day, workout_id,"
            " position) VALUES (%s, %s, %s, %s, %s)",
            (scope.org_id, class_type_id, day, workout_id, position),
        )
    return [str(r["id"]) for r in previous]


async def list_days(
    scope: OrgScope, first: date, last: date, class_type_id: UUID | None
) -> list[dict[str, Any]]:
    if last < first or (last - first).days >= schedule.MAX_RANGE_DAYS:
        raise DomainError("invalid_args", f"Give a range of 1 to {schedule.MAX_RANGE_DAYS} days.")
    cur = await scope.conn.execute(
        "SELECT d.class_type_id, t.name AS class_type, d.day,"
        " json_agg(json_build_object('id', w.id, 'title', w.title) ORDER BY d.position) AS workouts"
        " FROM daily_programming d"
        " JOIN class_types t ON t.id = d.class_type_id AND t.organization_id = d.organization_id"
        " JOIN workouts w ON w.id = d.workout_id AND w.organization_id = d.organization_id"
        " WHERE d.organization_id = %s AND d.day BETWEEN %s AND %s AND w.deleted_at IS NULL"
        " AND (%s::uuid IS NULL OR d.class_type_id = %s)"
        " GROUP BY d.class_type_id, t.name, d.day ORDER BY d.day, t.name",
        (scope.org_id, first, last, class_type_id, class_type_id),
    )
    return [
        {
            "classTypeId": str(r["class_type_id"]),
            "classType": r["class_type"],
            "date": r["day"].isoformat(),
            "workouts": r["workouts"],
        }
        for r in await cur.fetchall()
    ]


async def sessions_on_day(
    scope: OrgScope, tz: ZoneInfo, class_type_id: UUID | None, day: date
) -> list[dict[str, Any]]:
    rows = await schedule.list_sessions(scope, tz, day, day, class_type_id=class_type_id)
    return [r for r in rows if r["status"] != "cancelled"]


# --- a session's own workouts -----------------------------------------------------------------


async def set_session_override(
    scope: OrgScope, session_id: UUID, workout_ids: Sequence[UUID] | None
) -> None:
    """Give a session its own workouts (a list, maybe empty), or `None` to inherit again."""
    await scope.conn.execute(
        "DELETE FROM class_session_workouts WHERE session_id = %s AND organization_id = %s",
        (session_id, scope.org_id),
    )
    for position, workout_id in enumerate(workout_ids or ()):
        await scope.conn.execute(
            "INSERT INTO class_session_workouts (organization_id, session_id, workout_id, position)"
            " VALUES (%s, %s, %s, %s)",
            (scope.org_id, session_id, workout_id, position),
        )
    await scope.conn.execute(
        "UPDATE class_sessions SET workouts_override = %s, updated_at = now()"
        " WHERE id = %s AND organization_id = %s",
        (workout_ids is not None, session_id, scope.org_id),
    )


async def effective_workouts(
    scope: OrgScope, session: dict[str, Any], tz: ZoneInfo
) -> dict[str, Any]:
    """What a session runs and why: its own list (`session`), the day's (`daily`) or `none`."""
    if session["workouts_override"]:
        cur = await scope.conn.execute(
            "SELECT w.id, w.title FROM class_session_workouts sw"
            " JOIN workouts w ON w.id = sw.workout_id AND w.organization_id = sw.organization_id"
            " WHERE sw.organization_id = %s AND sw.session_id = %s AND w.deleted_at IS NULL"
            " ORDER BY sw.position",
            (scope.org_id, session["id"]),
        )
        return {"source": "session", "workouts": workouts_out(await cur.fetchall())}
    day = session["starts_at"].astimezone(tz).date()
    rows = await day_workouts(scope, session["class_type_id"], day)
    return {"source": "daily" if rows else "none", "workouts": workouts_out(rows)}


async def coverage(
    scope: OrgScope, tz: ZoneInfo, first: date, last: date, class_type_id: UUID | None
) -> list[dict[str, Any]]:
    """Per (date, class type) with live sessions: how many sessions have a workout to run."""
    days: dict[tuple[date, str], dict[str, Any]] = {}
    for row in await schedule.list_sessions(scope, tz, first, last, class_type_id=class_type_id):
        if row["status"] == "cancelled":
            continue
        day = row["starts_at"].astimezone(tz).date()
        entry = days.setdefault(
            (day, row["class_type"]),
            {
                "date": day.isoformat(),
                "classType": row["class_type"],
                "classTypeId": str(row["class_type_id"]),
                "sessions": 0,
                "withWorkouts": 0,
            },
        )
        entry["sessions"] += 1
        if (await effective_workouts(scope, row, tz))["workouts"]:
            entry["withWorkouts"] += 1
    return [days[key] for key in sorted(days)]
