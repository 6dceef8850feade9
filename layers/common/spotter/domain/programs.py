"""Programs: named tracks of workouts (e.g. "CrossFit", "Barbell Club")."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from spotter.db.scope import OrgScope
from spotter.domain.errors import DomainError, not_found

_COLUMNS = "id, name, description, status, created_at, updated_at"


def program_out(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": str(row["id"]),
        "name": row["name"],
        "description": row["description"],
        "status": row["status"],
    }


async def get_program(scope: OrgScope, program_id: UUID) -> dict[str, Any]:
    cur = await scope.conn.execute(
        f"SELECT {_COLUMNS} FROM programs"
        " WHERE id = %s AND organization_id = %s AND deleted_at IS NULL",
        (program_id, scope.org_id),
    )
    row = await cur.fetchone()
    if row is None:
        raise not_found("program")
    return row


async def list_programs(
    scope: OrgScope, *, include_archived: bool = False, query: str | None = None
) -> list[dict[str, Any]]:
    cur = await scope.conn.execute(
        f"SELECT {_COLUMNS} FROM programs WHERE organization_id = %s AND deleted_at IS NULL"
        " AND (%s OR status = 'active') AND (%s::text IS NULL OR name ILIKE '%%' || %s || '%%')"
        " ORDER BY lower(name)",
        (scope.org_id, include_archived, query, query),
    )
    return await cur.fetchall()


async def _name_taken(scope: OrgScope, name: str, except_id: UUID | None) -> bool:
    cur = await scope.conn.execute(
        "SELECT 1 FROM programs WHERE organization_id = %s AND deleted_at IS NULL"
        " AND lower(name) = lower(%s) AND id IS DISTINCT FROM %s",
        (scope.org_id, name, except_id),
    )
    return await cur.fetchone() is not None


async def create_program(scope: OrgScope, *, name: str, description: str | None) -> dict[str, Any]:
    if await _name_taken(scope, name, None):
        raise DomainError("conflict", f"A program named {name!r} already exists.")
    cur = await scope.conn.execute(
        "INSERT INTO programs (organization_id, name, description) VALUES (%s, %s, %s)"
        f" RETURNING {_COLUMNS}",
        (scope.org_id, name, description),
    )
    row = await cur.fetchone()
    assert row is not None
    return row


async def update_program(
    scope: OrgScope, program_id: UUID, *, name: str | None, description: str | None
) -> dict[str, Any]:
    current = await get_program(scope, program_id)
    if name is not None and await _name_taken(scope, name, program_id):
        raise DomainError("conflict", f"A program named {name!r} already exists.")
    cur = await scope.conn.execute(
        "UPDATE programs SET name = %s, description = %s, updated_at = now()"
        f" WHERE id = %s AND organization_id = %s RETURNING {_COLUMNS}",
        (
            name if name is not None else current["name"],
            description if description is not None else current["description"],
            program_id,
            scope.org_id,
        ),
    )
    row = await cur.fetchone()
    assert row is not None
    return row


async def set_program_status(scope: OrgScope, program_id: UUID, status: str) -> dict[str, Any]:
    await get_program(scope, program_id)
    cur = await scope.conn.execute(
        f"UPDATE programs SET status = %s, updated_at = now()"
        f" WHERE id = %s AND organization_id = %s RETURNING {_COLUMNS}",
        (status, program_id, scope.org_id),
    )
    row = await cur.fetchone()
    assert row is not None
    return row


async def count_upcoming_workouts(scope: OrgScope, program_id: UUID, today: Any) -> int:
    cur = await scope.conn.execute(
        "SELECT count(*) AS n FROM workouts WHERE organization_id = %s AND program_id = %s"
        " AND deleted_at IS NULL AND scheduled_on >= %s",
        (scope.org_id, program_id, today),
    )
    row = await cur.fetchone()
    return int(row["n"]) if row else 0
