"""Bare display names of entities, each with one org-scoped primary-key lookup.

Used by confirmation cards: a name or title only, never an id; missing, deleted or another
org's row is `not_found`.
"""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID
from zoneinfo import ZoneInfo

from psycopg import sql

from spotter.db.scope import OrgScope
from spotter.domain.errors import not_found
from spotter.i18n import Locale
from spotter.i18n.dates import format_local_datetime

# entity -> (table, name column); every table has organization_id and deleted_at.
SIMPLE_ENTITIES: dict[str, tuple[str, str]] = {
    "program": ("programs", "name"),
    "workout": ("workouts", "title"),
    "exercise": ("exercises", "name"),
    "class_type": ("class_types", "name"),
}


async def simple_name(scope: OrgScope, entity: str, entity_id: UUID) -> str:
    table, column = SIMPLE_ENTITIES[entity]
    query = sql.SQL(
        "SELECT {column} AS name FROM {table}"
        " WHERE id = %s AND organization_id = %s AND deleted_at IS NULL"
    ).format(column=sql.Identifier(column), table=sql.Identifier(table))
    cur = await scope.conn.execute(query, (entity_id, scope.org_id))
    row = await cur.fetchone()
    if row is None:
        raise not_found(entity.replace("_", " "))
    return str(row["name"])


async def member_name(scope: OrgScope, membership_id: UUID) -> str:
    """A person in the org (member or staff), by membership id: their full name."""
    cur = await scope.conn.execute(
        "SELECT u.full_name FROM org_memberships m JOIN users u ON u.id = m.user_id"
        " WHERE m.id = %s AND m.organization_id = %s AND m.status <> 'removed'",
        (membership_id, scope.org_id),
    )
    row = await cur.fetchone()
    if row is None:
        raise not_found("member")
    return str(row["full_name"])


async def member_names_by_id(scope: OrgScope, membership_ids: Sequence[UUID]) -> dict[str, str]:
    """People in the org by membership id, in the order given (one query); missing ids are
    left out, so a caller that needs them all checks first."""
    cur = await scope.conn.execute(
        "SELECT m.id, u.full_name FROM org_memberships m JOIN users u ON u.id = m.user_id"
        " WHERE m.id = ANY(%s) AND m.organization_id = %s",
        (list(membership_ids), scope.org_id),
    )
    found = {str(r["id"]): str(r["full_name"]) for r in await cur.fetchall()}
    return {str(m): found[str(m)] for m in membership_ids if str(m) in found}


async def session_label(scope: OrgScope, session_id: UUID, tz: ZoneInfo, locale: Locale) -> str:
    """`<class> · <local date & time>`, e.g. `Open Gym · Tue 1 Dec 13:00`."""
    cur = await scope.conn.execute(
        "SELECT t.name, s.starts_at FROM class_sessions s"
        " JOIN class_types t ON t.id = s.class_type_id AND t.organization_id = s.organization_id"
        " WHERE s.id = %s AND s.organization_id = %s AND s.deleted_at IS NULL",
        (session_id, scope.org_id),
    )
    row = await cur.fetchone()
    if row is None:
        raise not_found("class session")
    return f"{row['name']} · {format_local_datetime(row['starts_at'].astimezone(tz), locale)}"


async def person(scope: OrgScope, membership_id: UUID) -> tuple[str, str | None, str]:
    """A person in the org (member or staff) by membership id: full name, email and role, to
    tell two people of one name apart; missing, removed or another org's is `not_found`."""
    cur = await scope.conn.execute(
        "SELECT u.full_name, u.email, m.role FROM org_memberships m"
        " JOIN users u ON u.id = m.user_id"
        " WHERE m.id = %s AND m.organization_id = %s AND m.status <> 'removed'",
        (membership_id, scope.org_id),
    )
    row = await cur.fetchone()
    if row is None:
        raise not_found("member")
    return str(row["full_name"]), row["email"], str(row["role"])
