"""Test data written on the owner connection (it bypasses RLS, as the seed does)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from uuid import UUID

import psycopg


@dataclass
class Person:
    user_id: UUID
    clerk_user_id: str
    role: str


@dataclass
class Org:
    id: UUID
    clerk_org_id: str
    people: dict[str, Person] = field(default_factory=dict)

    def __getitem__(self, role: str) -> Person:
        return self.people[role]


def create_org(
    owner_url: str,
    *,
    name: str = "Test Box",
    tier: str = "growth",
    timezone: str = "Asia/Jerusalem",
    roles: tuple[str, ...] = ("owner", "admin", "coach", "member"),
    status: str = "active",
) -> Org:
    suffix = uuid.uuid4().hex[:8]
    org = Org(id=uuid.uuid4(), clerk_org_id=f"org_{suffix}")
    with psycopg.connect(owner_url) as conn:
        conn.execute(
            "INSERT INTO organizations (id, clerk_org_id, name, timezone, platform_tier)"
            " VALUES (%s, %s, %s, %s, %s)",
            (org.id, org.clerk_org_id, name, timezone, tier),
        )
        for role in roles:
            person = Person(uuid.uuid4(), f"user_{role}_{suffix}", role)
            conn.execute(
                "INSERT INTO users (id, clerk_user_id, full_name, email) VALUES (%s, %s, %s, %s)",
                (person.user_id, person.clerk_user_id, f"{role.title()} {suffix}", None),
            )
            conn.execute(
                "INSERT INTO org_memberships (organization_id, user_id, role, status)"
                " VALUES (%s, %s, %s, %s)",
                (org.id, person.user_id, role, status),
            )
            org.people[role] = person
    return org
