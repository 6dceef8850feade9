"""The day-grain demo gym: coaches paste a day's programming and `workouts.parse` reads it.

A second demo organization with `day_grain_programming` on, its own staff, the same exercise
library as the demo gym and one program to save parsed days into. It has no workouts: the first
one is the coach's text. Idempotent, on the seed's owner connection, inside its transaction.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from psycopg import AsyncConnection

from spotter.seed.people import DemoPerson, ensure_staff
from spotter.seed.training import ensure_program, seed_exercises

DAY_GRAIN_CLERK_ORG_ID = "org_demo_daygrain"
DAY_GRAIN_PROGRAM = ("Daily WOD", "The box's one workout a day: warm-up, lift, conditioning.")
DAY_GRAIN_STAFF = (
    DemoPerson("user_daygrain_owner", "Noa Owner", "owner@daygrain.spotter.dev", "owner"),
    DemoPerson("user_daygrain_coach", "Eli Coach", "coach@daygrain.spotter.dev", "coach"),
)


async def seed_day_grain(conn: AsyncConnection[Any]) -> UUID:
    """The day-grain gym, its staff, library and program; returns the org id."""
    cur = await conn.execute(
        "INSERT INTO organizations (clerk_org_id, name, timezone, default_locale,"
        " platform_tier, day_grain_programming)"
        " VALUES (%s, 'Day-Grain Demo Box', 'Asia/Jerusalem', 'en', 'growth', true)"
        " ON CONFLICT (clerk_org_id) DO UPDATE SET day_grain_programming = true"
        " RETURNING id",
        (DAY_GRAIN_CLERK_ORG_ID,),
    )
    row = await cur.fetchone()
    assert row is not None
    org_id = UUID(str(row[0]))
    await ensure_staff(conn, org_id, DAY_GRAIN_STAFF)
    await seed_exercises(conn, org_id)
    await ensure_program(conn, org_id, *DAY_GRAIN_PROGRAM)
    return org_id
