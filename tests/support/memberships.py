"""Plans, members with emails and subscriptions, written on the owner connection."""

from __future__ import annotations

import uuid
from uuid import UUID

import psycopg

from tests.support.world import Org, Person


def add_plan(
    owner_url: str,
    org: Org,
    name: str = "Unlimited",
    *,
    price_cents: int = 18000,
    interval: str = "month",
    credits: int | None = None,
) -> UUID:
    with psycopg.connect(owner_url) as conn:
        row = conn.execute(
            "INSERT INTO membership_plans (organization_id, name, price_cents, interval,"
            " credits_per_interval) VALUES (%s, %s, %s, %s, %s) RETURNING id",
            (org.id, name, price_cents, interval, credits),
        ).fetchone()
    assert row is not None
    return UUID(str(row[0]))


def add_member(
    owner_url: str,
    org: Org,
    full_name: str,
    email: str | None = None,
    *,
    plan_id: UUID | None = None,
    subscription: str = "active",
) -> Person:
    """A gym member with an email (and a live subscription to `plan_id`, when given)."""
    suffix = uuid.uuid4().hex[:8]
    person = Person(uuid.uuid4(), f"user_{suffix}", "member")
    with psycopg.connect(owner_url) as conn:
        conn.execute(
            "INSERT INTO users (id, clerk_user_id, full_name, email) VALUES (%s, %s, %s, %s)",
            (person.user_id, person.clerk_user_id, full_name, email),
        )
        row = conn.execute(
            "INSERT INTO org_memberships (organization_id, user_id, role, status)"
            " VALUES (%s, %s, 'member', 'active') RETURNING id",
            (org.id, person.user_id),
        ).fetchone()
        assert row is not None
        person.membership_id = row[0]
        if plan_id is not None:
            conn.execute(
                "INSERT INTO member_subscriptions (organization_id, membership_id, user_id,"
                " plan_id, status, paused_at) VALUES (%s, %s, %s, %s, %s,"
                " CASE WHEN %s = 'paused' THEN now() END)",
                (org.id, person.membership_id, person.user_id, plan_id, subscription, subscription),
            )
    return person
