"""The gym's people (members and staff): memberships joined to their user, searched by name."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from spotter.db.scope import OrgScope
from spotter.domain.errors import not_found

STAFF_ROLES = ("owner", "admin", "coach")

_COLUMNS = "m.id AS membership_id, u.full_name, u.email, m.role, m.status, m.created_at"
_FROM = " FROM org_memberships m JOIN users u ON u.id = m.user_id"


def person_out(row: dict[str, Any]) -> dict[str, Any]:
    out = {
        "membershipId": str(row["membership_id"]),
        "name": row["full_name"],
        "role": row["role"],
        "status": row["status"],
    }
    if row.get("email"):
        out["email"] = row["email"]
    return out


def _like(text: str) -> str:
    """An ILIKE pattern matching `text` anywhere, with its own wildcards taken literally."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


async def find_people(
    scope: OrgScope,
    *,
    query: str | None,
    roles: tuple[str, ...],
    include_inactive: bool,
    limit: int,
) -> list[dict[str, Any]]:
    """By name or email: substring (ILIKE) or trigram-close ("Saar" / "Sahar"), best first."""
    cur = await scope.conn.execute(
        f"SELECT {_COLUMNS},"
        " CASE WHEN %(q)s::text IS NULL THEN 0"
        "  ELSE greatest(similarity(lower(u.full_name), lower(%(q)s)),"
        "               word_similarity(lower(%(q)s), lower(u.full_name))) END AS score"
        f"{_FROM} WHERE m.organization_id = %(org)s AND m.status <> 'removed'"
        " AND (%(inactive)s OR m.status = 'active') AND m.role = ANY(%(roles)s)"
        " AND (%(q)s::text IS NULL OR u.full_name ILIKE %(like)s OR u.email ILIKE %(like)s"
        "      OR word_similarity(lower(%(q)s), lower(u.full_name)) >= 0.5"
        "      OR similarity(lower(u.full_name), lower(%(q)s)) >= 0.3)"
        " ORDER BY score DESC, lower(u.full_name), m.id LIMIT %(limit)s",
        {
            "q": query,
            "like": _like(query or ""),
            "org": scope.org_id,
            "inactive": include_inactive,
            "roles": list(roles),
            "limit": limit,
        },
    )
    return await cur.fetchall()


async def get_person(scope: OrgScope, membership_id: UUID) -> dict[str, Any]:
    cur = await scope.conn.execute(
        f"SELECT {_COLUMNS}{_FROM}"
        " WHERE m.id = %s AND m.organization_id = %s AND m.status <> 'removed'",
        (membership_id, scope.org_id),
    )
    row = await cur.fetchone()
    if row is None:
        raise not_found("member")
    return row


async def list_coaches(scope: OrgScope) -> list[dict[str, Any]]:
    """Active staff who coach: the coach role, plus owners and admins assigned to a session."""
    cur = await scope.conn.execute(
        f"SELECT {_COLUMNS}{_FROM} WHERE m.organization_id = %s AND m.status = 'active'"
        " AND (m.role = 'coach' OR (m.role IN ('owner', 'admin') AND EXISTS ("
        "   SELECT 1 FROM class_session_coaches c"
        "    WHERE c.membership_id = m.id AND c.organization_id = m.organization_id)))"
        " ORDER BY lower(u.full_name), m.id",
        (scope.org_id,),
    )
    return await cur.fetchall()
