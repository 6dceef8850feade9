"""The demo gym's past: eight weeks of the timetable with bookings marked checked in, no-show or
cancelled, so attendance, retention and the other reports have something real to say.

Deterministic (a hash of member, class and day decides, never a random generator) and
idempotent: a past session that exists already is left as it is. Members differ on purpose:
regulars, occasional visitors, a few who stopped coming three weeks ago (inactive, churn-like),
and a few who only started two weeks ago (new in retention).
"""

from __future__ import annotations

import hashlib
from datetime import UTC, date, datetime, timedelta
from typing import Any
from uuid import UUID
from zoneinfo import ZoneInfo

from psycopg import AsyncConnection

from spotter.domain.schedule import local_to_utc
from spotter.seed.schedule import CLASS_TYPES, CREDIT_PACKS, MEMBERS, TIMETABLE

WEEKS = 8
LAPSED = ("Omer Biton", "Gal Dahan", "Dor Amsalem", "Ido Barak")  # last visit 3+ weeks ago
NEWCOMERS = ("Ofir Stern", "Rotem Hadad", "Nadav Ezra")  # first visit 2 weeks ago
# How popular each TIMETABLE row is (the evening CrossFit fills up, Kids is small).
SLOT_WEIGHTS = (1.0, 0.6, 0.4, 1.8, 1.2)
LAPSED_AFTER_DAYS = 21
NEW_WITHIN_DAYS = 14

Conn = AsyncConnection[Any]


def _chance(*parts: object) -> float:
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def _visits_per_week(index: int) -> float:
    """Regulars (4-5 a week) to occasional visitors (1 a week), spread over the member list."""
    return (4.5, 3.0, 2.0, 1.0)[index % 4]


def _outcome(member: str, slot: int, day: date) -> str:
    roll = _chance("outcome", member, slot, day)
    if roll < 0.07:
        return "no_show"
    return "cancelled" if roll < 0.15 else "checked_in"


async def _past_session(
    conn: Conn, org_id: UUID, type_id: UUID, starts: datetime, minutes: int, coach: UUID
) -> UUID | None:
    """A new published, coached session at `starts`; None when one exists already."""
    cur = await conn.execute(
        "SELECT 1 FROM class_sessions WHERE organization_id = %s AND class_type_id = %s"
        " AND starts_at = %s AND deleted_at IS NULL",
        (org_id, type_id, starts),
    )
    if await cur.fetchone():
        return None
    cur = await conn.execute(
        "INSERT INTO class_sessions (organization_id, class_type_id, starts_at, ends_at, capacity,"
        " status, published_at) SELECT %s, id, %s, %s, default_capacity, 'published', %s"
        " FROM class_types WHERE id = %s AND organization_id = %s RETURNING id",
        (org_id, starts, starts + timedelta(minutes=minutes), starts - timedelta(days=7),
         type_id, org_id),
    )  # fmt: skip
    row = await cur.fetchone()
    assert row is not None
    await conn.execute(
        "INSERT INTO class_session_coaches (organization_id, session_id, membership_id)"
        " VALUES (%s, %s, %s)",
        (org_id, row[0], coach),
    )
    return UUID(str(row[0]))


def _weekly_weight() -> float:
    return sum(w * len(list(row[2])) for w, row in zip(SLOT_WEIGHTS, TIMETABLE, strict=True))


def _attendees(
    slot: int, day: date, today: date, capacity: int, members: dict[str, UUID]
) -> list[str]:
    """Who booked this class: each member at their weekly rate, spread by slot popularity."""
    chosen = []
    for index, name in enumerate(MEMBERS):
        if name in CREDIT_PACKS or name not in members:  # the seed never spends credits
            continue
        age = (today - day).days
        if (name in LAPSED and age < LAPSED_AFTER_DAYS) or (
            name in NEWCOMERS and age > NEW_WITHIN_DAYS
        ):
            continue
        chance = _visits_per_week(index) * SLOT_WEIGHTS[slot] / _weekly_weight()
        if _chance("book", name, slot, day) < chance:
            chosen.append(name)
    return chosen[:capacity]


async def seed_attendance_history(conn: Conn, org_id: UUID, *, today: date | None = None) -> int:
    """Past sessions of the last `WEEKS` weeks with their bookings; returns sessions created."""
    cur = await conn.execute("SELECT timezone FROM organizations WHERE id = %s", (org_id,))
    tz_row = await cur.fetchone()
    tz = ZoneInfo(str(tz_row[0]) if tz_row else "UTC")
    first_day = today or datetime.now(UTC).astimezone(tz).date()
    cur = await conn.execute(
        "SELECT name, id FROM class_types WHERE organization_id = %s AND deleted_at IS NULL",
        (org_id,),
    )
    types = {str(r[0]): UUID(str(r[1])) for r in await cur.fetchall()}
    cur = await conn.execute(
        "SELECT u.clerk_user_id, m.id FROM org_memberships m JOIN users u ON u.id = m.user_id"
        " WHERE m.organization_id = %s AND m.role IN ('owner', 'admin', 'coach')",
        (org_id,),
    )
    coaches = {str(r[0]): UUID(str(r[1])) for r in await cur.fetchall()}
    cur = await conn.execute(
        "SELECT u.full_name, m.id FROM org_memberships m JOIN users u ON u.id = m.user_id"
        " WHERE m.organization_id = %s AND m.role = 'member' AND u.full_name = ANY(%s)",
        (org_id, list(MEMBERS)),
    )
    members = {str(r[0]): UUID(str(r[1])) for r in await cur.fetchall()}
    created = 0
    bookings: list[tuple[Any, ...]] = []
    for offset in range(WEEKS * 7, 0, -1):
        day = first_day - timedelta(days=offset)
        for slot, (name, at, weekdays, coach) in enumerate(TIMETABLE):
            if day.weekday() not in weekdays or name not in types or coach not in coaches:
                continue
            minutes, capacity = CLASS_TYPES[name]
            starts = local_to_utc(day, at, tz)
            session_id = await _past_session(
                conn, org_id, types[name], starts, minutes, coaches[coach]
            )
            if session_id is None:
                continue
            created += 1
            for person in _attendees(slot, day, first_day, capacity, members):
                status = _outcome(person, slot, day)
                bookings.append((
                    org_id, session_id, members[person], status, starts - timedelta(days=1),
                    starts if status == "checked_in" else None,
                    starts - timedelta(hours=4) if status == "cancelled" else None,
                ))  # fmt: skip
    if bookings:
        async with conn.cursor() as cur:
            await cur.executemany(
                "INSERT INTO bookings (organization_id, session_id, membership_id, status,"
                " booked_at, checked_in_at, cancelled_at) VALUES (%s, %s, %s, %s, %s, %s, %s)",
                bookings,
            )
    return created
