"""Test data written on the owner connection (it bypasses RLS, as the seed does)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import psycopg


@dataclass
class Person:
    user_id: UUID
    clerk_user_id: str
    role: str
    membership_id: UUID | None = None


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
            row = conn.execute(
                "INSERT INTO org_memberships (organization_id, user_id, role, status)"
                " VALUES (%s, %s, %s, %s) RETURNING id",
                (org.id, person.user_id, role, status),
            ).fetchone()
            assert row is not None
            person.membership_id = row[0]
            org.people[role] = person
    return org


def add_person(
    owner_url: str, org: Org, full_name: str, *, role: str = "member", status: str = "active"
) -> Person:
    """Another person in `org` (a gym member by default); returns ids usable in tool calls."""
    suffix = uuid.uuid4().hex[:8]
    person = Person(uuid.uuid4(), f"user_{suffix}", role)
    with psycopg.connect(owner_url) as conn:
        conn.execute(
            "INSERT INTO users (id, clerk_user_id, full_name) VALUES (%s, %s, %s)",
            (person.user_id, person.clerk_user_id, full_name),
        )
        row = conn.execute(
            "INSERT INTO org_memberships (organization_id, user_id, role, status)"
            " VALUES (%s, %s, %s, %s) RETURNING id",
            (org.id, person.user_id, role, status),
        ).fetchone()
    assert row is not None
    person.membership_id = row[0]
    return person


def add_exercise(
    owner_url: str, org: Org, name: str, *aliases: str, category: str | None = None
) -> UUID:
    """One movement in `org`'s exercise library; returns its id."""
    with psycopg.connect(owner_url) as conn:
        row = conn.execute(
            "INSERT INTO exercises (organization_id, name, aliases, category)"
            " VALUES (%s, %s, %s, %s) RETURNING id",
            (org.id, name, list(aliases), category),
        ).fetchone()
    assert row is not None
    return UUID(str(row[0]))


def sync_next_ordinals(conn: psycopg.Connection[Any]) -> None:
    """After writing ai_messages rows directly (as fixtures do), let appends continue after them."""
    conn.execute(
        "UPDATE ai_conversations c SET next_ordinal = coalesce("
        "(SELECT max(m.ordinal) + 1 FROM ai_messages m WHERE m.conversation_id = c.id), 0)"
    )
