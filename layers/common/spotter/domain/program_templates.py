"""Program templates: reusable sequences of days, each a workout blueprint, applied to programs.

Applying writes one draft workout per template day into a program from a start date, replacing
(soft-deleting) the program's workouts already on those dates, and records both sets so the
application can be undone exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any
from uuid import UUID

from psycopg.types.json import Jsonb

from spotter.db.scope import OrgScope
from spotter.domain import programs
from spotter.domain.errors import DomainError, not_found

_COLUMNS = "id, name, description"


@dataclass(frozen=True)
class Day:
    day_offset: int
    title: str
    description: str | None
    parts: list[dict[str, Any]]


def day_out(day: Day) -> dict[str, Any]:
    return {
        "dayOffset": day.day_offset,
        "title": day.title,
        "description": day.description,
        "parts": day.parts,
    }


def _day(row: dict[str, Any]) -> Day:
    return Day(row["day_offset"], row["title"], row["description"], row["parts"])


async def get_template(scope: OrgScope, template_id: UUID) -> dict[str, Any]:
    cur = await scope.conn.execute(
        f"SELECT {_COLUMNS} FROM program_templates"
        " WHERE id = %s AND organization_id = %s AND deleted_at IS NULL",
        (template_id, scope.org_id),
    )
    row = await cur.fetchone()
    if row is None:
        raise not_found("program template")
    return row


async def template_name(scope: OrgScope, template_id: UUID) -> str:
    return str((await get_template(scope, template_id))["name"])


async def list_days(scope: OrgScope, template_id: UUID) -> list[Day]:
    cur = await scope.conn.execute(
        "SELECT day_offset, title, description, parts FROM program_template_days"
        " WHERE template_id = %s AND organization_id = %s ORDER BY day_offset",
        (template_id, scope.org_id),
    )
    return [_day(r) for r in await cur.fetchall()]


async def template_out(scope: OrgScope, template_id: UUID) -> dict[str, Any]:
    row = await get_template(scope, template_id)
    days = await list_days(scope, template_id)
    return {
        "id": str(row["id"]),
        "name": row["name"],
        "description": row["description"],
        "days": [day_out(d) for d in days],
    }


async def list_templates(scope: OrgScope, query: str | None) -> list[dict[str, Any]]:
    cur = await scope.conn.execute(
        "SELECT t.id, t.name, t.description, count(d.day_offset) AS day_count,"
        " coalesce(max(d.day_offset) + 1, 0) AS length_days"
        " FROM program_templates t LEFT JOIN program_template_days d"
        "   ON d.template_id = t.id AND d.organization_id = t.organization_id"
        " WHERE t.organization_id = %s AND t.deleted_at IS NULL"
        " AND (%s::text IS NULL OR t.name ILIKE '%%' || %s || '%%')"
        " GROUP BY t.id ORDER BY lower(t.name)",
        (scope.org_id, query, query),
    )
    return [
        {
            "id": str(r["id"]),
            "name": r["name"],
            "description": r["description"],
            "dayCount": r["day_count"],
            "lengthDays": r["length_days"],
        }
        for r in await cur.fetchall()
    ]


async def _ensure_name_free(scope: OrgScope, name: str, except_id: UUID | None) -> None:
    cur = await scope.conn.execute(
        "SELECT 1 FROM program_templates WHERE organization_id = %s AND deleted_at IS NULL"
        " AND lower(name) = lower(%s) AND id IS DISTINCT FROM %s",
        (scope.org_id, name, except_id),
    )
    if await cur.fetchone() is not None:
        raise DomainError("conflict", f"A template named {name!r} already exists.")


def _check_unique_offsets(days: list[Day]) -> None:
    offsets = [d.day_offset for d in days]
    repeated = sorted({o for o in offsets if offsets.count(o) > 1})
    if repeated:
        raise DomainError(
            "invalid_args", "A template holds one workout per day.", repeatedDays=repeated
        )


async def _insert_days(scope: OrgScope, template_id: UUID, days: list[Day]) -> None:
    _check_unique_offsets(days)
    for day in days:
        await scope.conn.execute(
            "INSERT INTO program_template_days"
            " (organization_id, template_id, day_offset, title, description, parts)"
            " VALUES (%s, %s, %s, %s, %s, %s)",
            (
                scope.org_id,
                template_id,
                day.day_offset,
                day.title,
                day.description,
                Jsonb(day.parts),
            ),
        )


async def create_template(
    scope: OrgScope, *, name: str, description: str | None, days: list[Day]
) -> UUID:
    await _ensure_name_free(scope, name, None)
    cur = await scope.conn.execute(
        "INSERT INTO program_templates (organization_id, name, description)"
        " VALUES (%s, %s, %s) RETURNING id",
        (scope.org_id, name, description),
    )
    row = await cur.fetchone()
    assert row is not None
    await _insert_days(scope, row["id"], days)
    return UUID(str(row["id"]))


async def days_from_program(
    scope: OrgScope, program_id: UUID, starts_on: date, ends_on: date
) -> list[Day]:
    """The program's workouts in [starts_on, ends_on] as days counted from `starts_on`."""
    await programs.get_program(scope, program_id)
    cur = await scope.conn.execute(
        "SELECT scheduled_on, title, description, parts FROM workouts"
        " WHERE organization_id = %s AND program_id = %s AND deleted_at IS NULL"
        " AND scheduled_on BETWEEN %s AND %s ORDER BY scheduled_on, created_at",
        (scope.org_id, program_id, starts_on, ends_on),
    )
    rows = await cur.fetchall()
    if not rows:
        raise DomainError("conflict", "The program has no workouts in that date range.")
    by_date: dict[date, int] = {}
    for r in rows:
        by_date[r["scheduled_on"]] = by_date.get(r["scheduled_on"], 0) + 1
    crowded = [d.isoformat() for d, n in by_date.items() if n > 1]
    if crowded:
        # A template day is one workout; picking one of several would silently drop the rest.
        raise DomainError(
            "conflict", "Some dates hold several workouts; a template day holds one.", dates=crowded
        )
    return [
        Day((r["scheduled_on"] - starts_on).days, r["title"], r["description"], r["parts"])
        for r in rows
    ]


async def update_template(
    scope: OrgScope, template_id: UUID, *, name: str | None, description: str | None
) -> None:
    current = await get_template(scope, template_id)
    if name is not None:
        await _ensure_name_free(scope, name, template_id)
    await scope.conn.execute(
        "UPDATE program_templates SET name = %s, description = %s, updated_at = now()"
        " WHERE id = %s AND organization_id = %s",
        (
            name if name is not None else current["name"],
            description if description is not None else current["description"],
            template_id,
            scope.org_id,
        ),
    )


async def _touch(scope: OrgScope, template_id: UUID) -> None:
    await scope.conn.execute(
        "UPDATE program_templates SET updated_at = now() WHERE id = %s AND organization_id = %s",
        (template_id, scope.org_id),
    )


async def set_days(scope: OrgScope, template_id: UUID, days: list[Day]) -> list[Day]:
    """Replace every day; returns the days it replaced."""
    previous = await list_days(scope, template_id)
    await scope.conn.execute(
        "DELETE FROM program_template_days WHERE template_id = %s AND organization_id = %s",
        (template_id, scope.org_id),
    )
    await _insert_days(scope, template_id, days)
    await _touch(scope, template_id)
    return previous


async def add_day(scope: OrgScope, template_id: UUID, day: Day) -> None:
    await get_template(scope, template_id)
    if any(d.day_offset == day.day_offset for d in await list_days(scope, template_id)):
        raise DomainError("conflict", f"Day {day.day_offset} already has a workout.")
    await _insert_days(scope, template_id, [day])
    await _touch(scope, template_id)


async def remove_day(scope: OrgScope, template_id: UUID, day_offset: int) -> Day:
    await get_template(scope, template_id)
    cur = await scope.conn.execute(
        "DELETE FROM program_template_days"
        " WHERE template_id = %s AND organization_id = %s AND day_offset = %s"
        " RETURNING day_offset, title, description, parts",
        (template_id, scope.org_id, day_offset),
    )
    row = await cur.fetchone()
    if row is None:
        raise not_found("template day")
    await _touch(scope, template_id)
    return _day(row)


async def delete_template(scope: OrgScope, template_id: UUID) -> None:
    await get_template(scope, template_id)
    await scope.conn.execute(
        "UPDATE program_templates SET deleted_at = now() WHERE id = %s AND organization_id = %s",
        (template_id, scope.org_id),
    )


@dataclass(frozen=True)
class PlannedDay:
    """One template day placed on a date, with the titles of the workouts it would replace."""

    on: date
    day: Day
    replaces: list[dict[str, Any]]


async def plan_application(
    scope: OrgScope, template_id: UUID, program_id: UUID, starts_on: date
) -> list[PlannedDay]:
    await get_template(scope, template_id)
    program = await programs.get_program(scope, program_id)
    if program["status"] != "active":
        raise DomainError("conflict", "The program is archived; restore it before applying.")
    days = await list_days(scope, template_id)
    if not days:
        raise DomainError("conflict", "The template has no days to apply.")
    dates = [starts_on + timedelta(days=d.day_offset) for d in days]
    cur = await scope.conn.execute(
        "SELECT id, scheduled_on, title FROM workouts WHERE organization_id = %s"
        " AND program_id = %s AND deleted_at IS NULL AND scheduled_on = ANY(%s)"
        " ORDER BY scheduled_on, created_at",
        (scope.org_id, program_id, dates),
    )
    existing: dict[date, list[dict[str, Any]]] = {}
    for r in await cur.fetchall():
        existing.setdefault(r["scheduled_on"], []).append({"id": r["id"], "title": r["title"]})
    return [PlannedDay(on, day, existing.get(on, [])) for on, day in zip(dates, days, strict=True)]


async def apply_template(
    scope: OrgScope,
    template_id: UUID,
    program_id: UUID,
    starts_on: date,
    *,
    user_id: UUID,
) -> dict[str, Any]:
    plan = await plan_application(scope, template_id, program_id, starts_on)
    replaced = [w["id"] for p in plan for w in p.replaces]
    if replaced:
        await scope.conn.execute(
            "UPDATE workouts SET deleted_at = now(), updated_at = now()"
            " WHERE organization_id = %s AND id = ANY(%s)",
            (scope.org_id, replaced),
        )
    written: list[dict[str, Any]] = []
    for p in plan:
        cur = await scope.conn.execute(
            "INSERT INTO workouts (organization_id, program_id, scheduled_on, title, description,"
            " parts, status, created_by) VALUES (%s, %s, %s, %s, %s, %s, 'draft', %s)"
            " RETURNING id",
            (
                scope.org_id,
                program_id,
                p.on,
                p.day.title,
                p.day.description,
                Jsonb(p.day.parts),
                user_id,
            ),
        )
        row = await cur.fetchone()
        assert row is not None
        written.append({"id": str(row["id"]), "date": p.on.isoformat(), "title": p.day.title})
    cur = await scope.conn.execute(
        "INSERT INTO program_template_applications (organization_id, template_id, program_id,"
        " starts_on, written_workout_ids, replaced_workout_ids, applied_by)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING id",
        (
            scope.org_id,
            template_id,
            program_id,
            starts_on,
            [UUID(w["id"]) for w in written],
            replaced,
            user_id,
        ),
    )
    row = await cur.fetchone()
    assert row is not None
    return {
        "id": str(row["id"]),
        "templateId": str(template_id),
        "programId": str(program_id),
        "startsOn": starts_on.isoformat(),
        "workouts": written,
        "replacedCount": len(replaced),
    }


async def get_application(scope: OrgScope, application_id: UUID) -> dict[str, Any]:
    cur = await scope.conn.execute(
        "SELECT a.id, a.written_workout_ids, a.replaced_workout_ids, a.undone_at,"
        " t.name AS template_name, p.name AS program_name"
        " FROM program_template_applications a"
        " JOIN program_templates t ON t.id = a.template_id"
        "  AND t.organization_id = a.organization_id"
        " JOIN programs p ON p.id = a.program_id AND p.organization_id = a.organization_id"
        " WHERE a.id = %s AND a.organization_id = %s",
        (application_id, scope.org_id),
    )
    row = await cur.fetchone()
    if row is None:
        raise not_found("template application")
    return row


async def live_written_count(scope: OrgScope, application: dict[str, Any]) -> int:
    cur = await scope.conn.execute(
        "SELECT count(*) AS n FROM workouts WHERE organization_id = %s AND id = ANY(%s)"
        " AND deleted_at IS NULL",
        (scope.org_id, application["written_workout_ids"]),
    )
    row = await cur.fetchone()
    return int(row["n"]) if row else 0


async def undo_application(scope: OrgScope, application_id: UUID) -> dict[str, Any]:
    """Remove the workouts the application wrote and bring back the ones it replaced."""
    application = await get_application(scope, application_id)
    if application["undone_at"] is not None:
        raise DomainError("conflict", "That application was already undone.")
    cur = await scope.conn.execute(
        "UPDATE workouts SET deleted_at = now(), updated_at = now() WHERE organization_id = %s"
        " AND id = ANY(%s) AND deleted_at IS NULL RETURNING id",
        (scope.org_id, application["written_workout_ids"]),
    )
    removed = len(await cur.fetchall())
    cur = await scope.conn.execute(
        "UPDATE workouts SET deleted_at = NULL, updated_at = now() WHERE organization_id = %s"
        " AND id = ANY(%s) AND deleted_at IS NOT NULL RETURNING id",
        (scope.org_id, application["replaced_workout_ids"]),
    )
    restored = len(await cur.fetchall())
    await scope.conn.execute(
        "UPDATE program_template_applications SET undone_at = now()"
        " WHERE id = %s AND organization_id = %s",
        (application_id, scope.org_id),
    )
    return {"id": str(application_id), "removedCount": removed, "restoredCount": restored}
