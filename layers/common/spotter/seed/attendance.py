"""The demo gym's past: eight weeks of the timetable with bookings marked checked in, no-show or
cancelled, so attendance, retention and the other reports have something real to say.

Deterministic and idempotent: a past session that exists already is left as it is. Who booked
what is a hash of member, class and the session's age in days (never a random generator, never
the calendar date), so every day's seed is the same history shifted, and what it promises holds
on every date. Members differ on purpose:
- regulars and occasional visitors, drawn at their weekly rate;
- `LAPSED`: stopped coming three weeks ago or more (inactive, churn-like); each has a placed
  last visit, and the later ones stopped before the previous 30-day window ended (lapsed in
  retention);
- `NEWCOMERS`: started two weeks ago; their visits are placed, not drawn, the last within the
  last three days, so they are never inactive, whatever the date or the hour.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from functools import cache
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
# Placed visits go to the classes that run every day: the 07:00 and the 18:00 CrossFit.
MORNING_SLOT, EVENING_SLOT = 0, 3
# A newcomer's visits, by age in days (+ the newcomer's index): first 12-14 days ago, last 1-3.
NEWCOMER_AGES = (12, 8, 4, 1)

Conn = AsyncConnection[Any]


def _chance(*parts: object) -> float:
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def _visits_per_week(index: int) -> float:
    """Regulars (4-5 a week) to occasional visitors (1 a week), spread over the member list."""
    return (4.5, 3.0, 2.0, 1.0)[index % 4]


def _outcome(member: str, slot: int, age: int) -> str:
    roll = _chance("outcome", member, slot, age)
    if roll < 0.07:
        return "no_show"
    return "cancelled" if roll < 0.15 else "checked_in"


def lapsed_after(name: str) -> int:
    """Days since a lapsed member stopped: 21, 28, 35, 42 by their place in `LAPSED`."""
    return LAPSED_AFTER_DAYS + 7 * LAPSED.index(name)


def _placed(name: str, slot: int, age: int) -> bool:
    """Visits the history promises, checked in whatever the hash says."""
    if name in NEWCOMERS:
        shift = NEWCOMERS.index(name)
        return slot == EVENING_SLOT and age in {a + shift for a in NEWCOMER_AGES}
    if name in LAPSED:
        return slot == MORNING_SLOT and age == lapsed_after(name) + 1
    return False


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


@cache  # a pure function of its arguments, asked for the same (slot, age) on every seed day
def planned_bookings(slot: int, age: int, capacity: int) -> tuple[tuple[str, str], ...]:
    """(member, booking status) of the class in TIMETABLE row `slot` held `age` days ago.

    Placed visits first (so a full class never drops them), then each other member at their
    weekly rate, spread by slot popularity. Members on credit packs never book: the seed never
    spends credits.
    """
    placed: list[tuple[str, str]] = []
    drawn: list[tuple[str, str]] = []
    for index, name in enumerate(MEMBERS):
        if name in CREDIT_PACKS:
            continue
        if _placed(name, slot, age):
            placed.append((name, "checked_in"))
            continue
        if name in NEWCOMERS or (name in LAPSED and age <= lapsed_after(name) + 1):
            continue
        chance = _visits_per_week(index) * SLOT_WEIGHTS[slot] / _weekly_weight()
        if _chance("book", name, slot, age) < chance:
            drawn.append((name, _outcome(name, slot, age)))
    return tuple(placed + drawn)[:capacity]


def planned_history(today: date) -> Iterator[tuple[date, int, tuple[tuple[str, str], ...]]]:
    """(day, TIMETABLE row, bookings) of every class of the `WEEKS` weeks before `today`."""
    for age in range(WEEKS * 7, 0, -1):
        day = today - timedelta(days=age)
        for slot, (name, _at, weekdays, _coach) in enumerate(TIMETABLE):
            if day.weekday() in weekdays:
                yield day, slot, planned_bookings(slot, age, CLASS_TYPES[name][1])


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
    for day, slot, roster in planned_history(first_day):
        name, at, _weekdays, coach = TIMETABLE[slot]
        if name not in types or coach not in coaches:
            continue
        starts = local_to_utc(day, at, tz)
        session_id = await _past_session(
            conn, org_id, types[name], starts, CLASS_TYPES[name][0], coaches[coach]
        )
        if session_id is None:
            continue
        created += 1
        for person, status in roster:
            if person not in members:
                continue
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
