"""The demo gym's schedule: class types, ~30 members, a published week with coaches and bookings.

Idempotent: every row is found before it is written, so a second run the same day changes
nothing (a later day adds that day's new sessions). One session tomorrow evening is full with a
waitlist, and two members share a first name ("Saar Cohen", "Saar Levi") for the pickers.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from uuid import UUID
from zoneinfo import ZoneInfo

from psycopg import AsyncConnection

from spotter.domain.schedule import local_to_utc

# name -> (minutes, capacity)
CLASS_TYPES = {
    "CrossFit": (60, 12),
    "Open Gym": (90, 20),
    "Barbell Club": (75, 10),
    "Kids": (45, 8),
}

MEMBERS = (
    "Saar Cohen", "Saar Levi", "Maya Rosen", "Noa Friedman", "Yonatan Katz", "Tamar Azulay",
    "Eitan Mizrahi", "Shira Peretz", "Omer Biton", "Lior Avraham", "Roni Shapiro", "Gal Dahan",
    "Yael Ben-David", "Amit Golan", "Hila Segal", "Itai Ohana", "Michal Weiss", "Ariel Sasson",
    "Dor Amsalem", "Neta Klein", "Tom Harel", "Inbar Levy", "Guy Nachmani", "Keren Tal",
    "Ido Barak", "Liat Malka", "Nadav Ezra", "Rotem Hadad", "Ofir Stern",
)  # fmt: skip

# (class type, local start, weekdays (Mon=0), coach clerk id)
TIMETABLE = (
    ("CrossFit", time(7, 0), range(7), "user_demo_coach"),
    ("Open Gym", time(12, 0), range(7), "user_demo_owner"),
    ("Kids", time(16, 30), (1, 3, 6), "user_demo_admin"),
    ("CrossFit", time(18, 0), range(7), "user_demo_admin"),
    ("Barbell Club", time(19, 30), (0, 2), "user_demo_coach"),
)
CREDIT_PACKS = {"Saar Levi": 10, "Maya Rosen": 2}
FULL_CLASS_WAITLIST = 3

Conn = AsyncConnection[Any]


async def _one(conn: Conn, query: str, params: tuple[Any, ...]) -> Any:
    cur = await conn.execute(query, params)
    row = await cur.fetchone()
    return row[0] if row else None


async def _class_types(conn: Conn, org_id: UUID) -> dict[str, UUID]:
    ids: dict[str, UUID] = {}
    for name, (minutes, capacity) in CLASS_TYPES.items():
        found = await _one(
            conn,
            "SELECT id FROM class_types WHERE organization_id = %s AND lower(name) = lower(%s)"
            " AND deleted_at IS NULL",
            (org_id, name),
        )
        ids[name] = found or await _one(
            conn,
            "INSERT INTO class_types (organization_id, name, default_duration_minutes,"
            " default_capacity) VALUES (%s, %s, %s, %s) RETURNING id",
            (org_id, name, minutes, capacity),
        )
    return ids


async def _members(conn: Conn, org_id: UUID) -> dict[str, UUID]:
    ids: dict[str, UUID] = {}
    for name in MEMBERS:
        slug = name.lower().replace(" ", "_").replace("-", "_")
        user_id = await _one(
            conn,
            "INSERT INTO users (clerk_user_id, full_name, email) VALUES (%s, %s, %s)"
            " ON CONFLICT (clerk_user_id) DO UPDATE SET clerk_user_id = EXCLUDED.clerk_user_id"
            " RETURNING id",
            (f"user_demo_member_{slug}", name, f"{slug}@demo.spotter.dev"),
        )
        await conn.execute(
            "INSERT INTO org_memberships (organization_id, user_id, role) VALUES (%s, %s, 'member')"
            " ON CONFLICT (organization_id, user_id) DO NOTHING",
            (org_id, user_id),
        )
        ids[name] = await _one(
            conn,
            "SELECT id FROM org_memberships WHERE organization_id = %s AND user_id = %s",
            (org_id, user_id),
        )
    return ids


async def _credits(conn: Conn, org_id: UUID, members: dict[str, UUID]) -> None:
    for name, amount in CREDIT_PACKS.items():
        has_ledger = await _one(
            conn,
            "SELECT 1 FROM member_credit_ledger WHERE organization_id = %s AND membership_id = %s",
            (org_id, members[name]),
        )
        if not has_ledger:
            await conn.execute(
                "INSERT INTO member_credit_ledger (organization_id, membership_id, delta, reason)"
                " VALUES (%s, %s, %s, %s)",
                (org_id, members[name], amount, f"{amount}-class pack"),
            )


async def _session(
    conn: Conn, org_id: UUID, class_type_id: UUID, starts: datetime, minutes: int, coach: UUID
) -> tuple[UUID, bool]:
    """The live session of that type at that instant, created (published, coached) if missing."""
    found = await _one(
        conn,
        "SELECT id FROM class_sessions WHERE organization_id = %s AND class_type_id = %s"
        " AND starts_at = %s AND deleted_at IS NULL",
        (org_id, class_type_id, starts),
    )
    if found:
        return found, False
    session_id = await _one(
        conn,
        "INSERT INTO class_sessions (organization_id, class_type_id, starts_at, ends_at, capacity,"
        " status, published_at) SELECT %s, id, %s, %s, default_capacity, 'published', now()"
        " FROM class_types WHERE id = %s AND organization_id = %s RETURNING id",
        (org_id, starts, starts + timedelta(minutes=minutes), class_type_id, org_id),
    )
    await conn.execute(
        "INSERT INTO class_session_coaches (organization_id, session_id, membership_id)"
        " VALUES (%s, %s, %s)",
        (org_id, session_id, coach),
    )
    return session_id, True


async def _book(
    conn: Conn, org_id: UUID, session_id: UUID, members: list[UUID], waitlist: list[UUID]
) -> None:
    for member in members:
        await conn.execute(
            "INSERT INTO bookings (organization_id, session_id, membership_id, status, booked_at)"
            " VALUES (%s, %s, %s, 'booked', now())",
            (org_id, session_id, member),
        )
    for member in waitlist:
        await conn.execute(
            "INSERT INTO bookings (organization_id, session_id, membership_id, status,"
            " waitlisted_at) VALUES (%s, %s, %s, 'waitlisted', clock_timestamp())",
            (org_id, session_id, member),
        )


async def seed_schedule(conn: Conn, org_id: UUID, *, today: date | None = None) -> None:
    timezone = await _one(conn, "SELECT timezone FROM organizations WHERE id = %s", (org_id,))
    tz = ZoneInfo(timezone)
    first_day = today or datetime.now(UTC).astimezone(tz).date()
    types = await _class_types(conn, org_id)
    members = await _members(conn, org_id)
    await _credits(conn, org_id, members)
    # Bookings draw on members on unlimited plans, so the seed never spends credits.
    unlimited = [mid for name, mid in members.items() if name not in CREDIT_PACKS]
    coaches: dict[str, UUID] = {}
    for clerk_id in {row[3] for row in TIMETABLE}:
        coaches[clerk_id] = await _one(
            conn,
            "SELECT m.id FROM org_memberships m JOIN users u ON u.id = m.user_id"
            " WHERE m.organization_id = %s AND u.clerk_user_id = %s",
            (org_id, clerk_id),
        )
    for offset in range(7):
        day = first_day + timedelta(days=offset)
        for index, (name, at, weekdays, coach) in enumerate(TIMETABLE):
            if day.weekday() not in weekdays:
                continue
            minutes, capacity = CLASS_TYPES[name]
            starts = local_to_utc(day, at, tz)
            session_id, created = await _session(
                conn, org_id, types[name], starts, minutes, coaches[coach]
            )
            if not created:
                continue
            if offset == 1 and name == "CrossFit" and at.hour == 18:
                roster = unlimited[:capacity]
                waiting = unlimited[capacity : capacity + FULL_CLASS_WAITLIST]
                await _book(conn, org_id, session_id, roster, waiting)
            else:
                start = (offset * 5 + index * 3) % len(unlimited)
                count = (offset + index) % (capacity // 2 + 1)
                picked = (unlimited * 2)[start : start + count]
                await _book(conn, org_id, session_id, picked, [])
