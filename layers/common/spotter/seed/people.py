"""Demo staff: users with a membership (and role) in one demo organization."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from psycopg import AsyncConnection


@dataclass(frozen=True)
class DemoPerson:
    clerk_user_id: str
    full_name: str
    email: str
    role: str


async def ensure_staff(
    conn: AsyncConnection[Any], org_id: UUID, people: Iterable[DemoPerson]
) -> None:
    """Each person as a user and a member of `org_id` with their role (added where missing)."""
    for person in people:
        cur = await conn.execute(
            "INSERT INTO users (clerk_user_id, full_name, email) VALUES (%s, %s, %s)"
            " ON CONFLICT (clerk_user_id) DO UPDATE SET clerk_user_id = EXCLUDED.clerk_user_id"
            " RETURNING id",
            (person.clerk_user_id, person.full_name, person.email),
        )
        user = await cur.fetchone()
        assert user is not None
        await conn.execute(
            "INSERT INTO org_memberships (organization_id, user_id, role) VALUES (%s, %s, %s)"
            " ON CONFLICT (organization_id, user_id) DO NOTHING",
            (org_id, user[0], person.role),
        )
