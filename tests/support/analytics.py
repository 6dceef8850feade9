"""History for analytics tests: class sessions at local times, bookings with a final status,
subscriptions and leads, written on the owner connection (as the demo seed does)."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from uuid import UUID
from zoneinfo import ZoneInfo

import psycopg

from tests.support.world import Org

TZ = ZoneInfo("Asia/Jerusalem")


def class_type(owner_url: str, org: Org, name: str, capacity: int = 10) -> UUID:
    with psycopg.connect(owner_url) as conn:
        row = conn.execute(
            "INSERT INTO class_types (organization_id, name, default_capacity)"
            " VALUES (%s, %s, %s) RETURNING id",
            (org.id, name, capacity),
        ).fetchone()
    assert row is not None
    return UUID(str(row[0]))


def session(
    owner_url: str,
    org: Org,
    type_id: UUID,
    day: date,
    at: time,
    *,
    capacity: int | None = 10,
    bookings: dict[UUID, str] | None = None,
    status: str = "published",
) -> UUID:
    """A session at a local wall-clock time, with `{membership_id: booking status}`."""
    starts = datetime.combine(day, at, tzinfo=TZ)
    with psycopg.connect(owner_url) as conn:
        row = conn.execute(
            "INSERT INTO class_sessions (organization_id, class_type_id, starts_at, ends_at,"
            " capacity, status) VALUES (%s, %s, %s, %s, %s, %s) RETURNING id",
            (org.id, type_id, starts, starts + timedelta(hours=1), capacity, status),
        ).fetchone()
        assert row is not None
        for membership_id, booking_status in (bookings or {}).items():
            conn.execute(
                "INSERT INTO bookings (organization_id, session_id, membership_id, status,"
                " booked_at, checked_in_at, waitlisted_at, cancelled_at)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                (
                    org.id,
                    row[0],
                    membership_id,
                    booking_status,
                    starts - timedelta(days=1),
                    starts if booking_status == "checked_in" else None,
                    starts - timedelta(days=1) if booking_status == "waitlisted" else None,
                    starts - timedelta(hours=3) if booking_status == "cancelled" else None,
                ),
            )
    return UUID(str(row[0]))


def plan(owner_url: str, org: Org, name: str, price_cents: int, interval: str = "month") -> UUID:
    with psycopg.connect(owner_url) as conn:
        row = conn.execute(
            "INSERT INTO membership_plans (organization_id, name, price_cents, interval)"
            " VALUES (%s, %s, %s, %s) RETURNING id",
            (org.id, name, price_cents, interval),
        ).fetchone()
    assert row is not None
    return UUID(str(row[0]))


def subscription(
    owner_url: str,
    org: Org,
    membership_id: UUID | None,
    plan_id: UUID,
    started: datetime,
    *,
    cancelled: datetime | None = None,
    paused: datetime | None = None,
    replaces: UUID | None = None,
) -> UUID:
    status = "cancelled" if cancelled else "paused" if paused else "active"
    with psycopg.connect(owner_url) as conn:
        row = conn.execute(
            "INSERT INTO member_subscriptions (organization_id, membership_id, user_id, plan_id,"
            " status, started_at, paused_at, cancelled_at, replaces_id)"
            " SELECT %s, m.id, m.user_id, %s, %s, %s, %s, %s, %s FROM org_memberships m"
            " WHERE m.id = %s RETURNING id",
            (org.id, plan_id, status, started, paused, cancelled, replaces, membership_id),
        ).fetchone()
    assert row is not None
    return UUID(str(row[0]))


def pipeline(owner_url: str, org: Org) -> tuple[UUID, UUID]:
    with psycopg.connect(owner_url) as conn:
        p = conn.execute(
            "INSERT INTO lead_pipelines (organization_id, name, is_default)"
            " VALUES (%s, 'Trials', true) RETURNING id",
            (org.id,),
        ).fetchone()
        assert p is not None
        s = conn.execute(
            "INSERT INTO lead_stages (organization_id, pipeline_id, name, position)"
            " VALUES (%s, %s, 'New', 0) RETURNING id",
            (org.id, p[0]),
        ).fetchone()
    assert s is not None
    return UUID(str(p[0])), UUID(str(s[0]))


def lead(
    owner_url: str,
    org: Org,
    stages: tuple[UUID, UUID],
    created: datetime,
    *,
    source: str,
    converted: datetime | None = None,
    converted_user: UUID | None = None,
    status: str = "open",
) -> None:
    with psycopg.connect(owner_url) as conn:
        conn.execute(
            "INSERT INTO leads (organization_id, pipeline_id, stage_id, status, source,"
            " first_name, email, created_at, converted_at, converted_user_id)"
            " VALUES (%s, %s, %s, %s, %s, 'Lead', gen_random_uuid()::text || '@x.test', %s, %s,"
            " %s)",
            (
                org.id,
                stages[0],
                stages[1],
                "converted" if converted else status,
                source,
                created,
                converted,
                converted_user,
            ),
        )
