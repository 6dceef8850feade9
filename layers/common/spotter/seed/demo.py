"""`spotter seed-demo`: a demo gym with staff of every role, and a day-grain demo gym
(`spotter.seed.day_grain`) where coaches paste a day for `workouts.parse`. Idempotent:
re-running changes nothing. `spotter seed-demo --reset` (`make reset-demo`) puts both gyms back
as a first seed would leave them today: whatever a demo changed (cancelled classes, bookings,
conversations, leads) is gone.

Runs on the owner connection (it creates organizations, which the app role may not).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from graphlib import TopologicalSorter
from typing import Any
from uuid import UUID
from zoneinfo import ZoneInfo

from psycopg import AsyncConnection, sql

from spotter.seed.attendance import seed_attendance_history
from spotter.seed.crm import seed_crm
from spotter.seed.day_grain import DAY_GRAIN_CLERK_ORG_ID, seed_day_grain
from spotter.seed.forms import seed_forms
from spotter.seed.memberships import seed_memberships
from spotter.seed.people import DemoPerson, ensure_staff
from spotter.seed.plans import seed_plans
from spotter.seed.schedule import seed_schedule
from spotter.seed.training import seed_training

DEMO_CLERK_ORG_ID = "org_demo_box"
DEMO_TIMEZONE = "Asia/Jerusalem"

DEMO_STAFF = (
    DemoPerson("user_demo_owner", "Olivia Owner", "owner@demo.spotter.dev", "owner"),
    DemoPerson("user_demo_admin", "Adam Admin", "admin@demo.spotter.dev", "admin"),
    DemoPerson("user_demo_coach", "Coral Coach", "coach@demo.spotter.dev", "coach"),
    DemoPerson("user_demo_member", "Dana Levi", "dana@demo.spotter.dev", "member"),
)


async def seed_demo(owner_url: str, *, now: datetime | None = None) -> None:
    """Seed both demo gyms as of `now` (default: the clock): every date the seed writes is
    relative to the gym's local date at that instant, so the demo holds on any day."""
    at = now or datetime.now(UTC)
    async with await AsyncConnection.connect(owner_url) as conn, conn.transaction():
        cur = await conn.execute(
            "INSERT INTO organizations"
            " (clerk_org_id, name, timezone, default_locale, platform_tier)"
            " VALUES (%s, 'CrossFit Demo Box', %s, 'en', 'growth')"
            " ON CONFLICT (clerk_org_id) DO UPDATE SET clerk_org_id = EXCLUDED.clerk_org_id"
            " RETURNING id",
            (DEMO_CLERK_ORG_ID, DEMO_TIMEZONE),
        )
        org = await cur.fetchone()
        assert org is not None
        await ensure_staff(conn, UUID(str(org[0])), DEMO_STAFF)
        today = at.astimezone(ZoneInfo(DEMO_TIMEZONE)).date()
        await seed_training(conn, org[0], week_of=today - timedelta(days=today.weekday()))
        await seed_schedule(conn, org[0], today=today)
        await seed_memberships(conn, org[0])  # plans for the members the schedule seed created
        await seed_attendance_history(conn, org[0], today=today)
        await seed_day_grain(conn)
    # plans assign programs to the members the schedule seed created
    await seed_plans(owner_url, DEMO_CLERK_ORG_ID, DEMO_STAFF[0].clerk_user_id, today=today)
    # the CRM's inbox threads are with leads and with the members seeded above
    await seed_crm(owner_url, DEMO_CLERK_ORG_ID, DEMO_STAFF[0].clerk_user_id, now=at)
    await seed_forms(owner_url, org[0], now=at)


DEMO_ORGS = (DEMO_CLERK_ORG_ID, DAY_GRAIN_CLERK_ORG_ID)


async def reset_demo(owner_url: str, *, now: datetime | None = None) -> None:
    """Drop both demo gyms, in one transaction, and seed them again as of `now`. Every
    org-owned row goes (table by table, each before the tables it points at: not every foreign
    key cascades); the demo people keep their user rows, so a signed-in console stays signed in;
    other organizations are untouched."""
    async with await AsyncConnection.connect(owner_url) as conn, conn.transaction():
        cur = await conn.execute(
            "SELECT array_agg(id) FROM organizations WHERE clerk_org_id = ANY(%s)",
            (list(DEMO_ORGS),),
        )
        found = await cur.fetchone()
        orgs = found[0] if found and found[0] else []
        for table in await _org_tables_children_first(conn):
            await conn.execute(
                sql.SQL("DELETE FROM {} WHERE organization_id = ANY(%s)").format(
                    sql.Identifier(table)
                ),
                (orgs,),
            )
        await conn.execute("DELETE FROM organizations WHERE id = ANY(%s)", (orgs,))
    await seed_demo(owner_url, now=now)


async def _org_tables_children_first(conn: AsyncConnection[Any]) -> list[str]:
    """Every table with an `organization_id`, each before the tables its foreign keys name (read
    from the catalog, so a table a later migration adds is covered)."""
    cur = await conn.execute(
        "SELECT table_name FROM information_schema.columns"
        " WHERE table_schema = 'public' AND column_name = 'organization_id'"
    )
    tables = {str(row[0]) for row in await cur.fetchall()}
    cur = await conn.execute(
        "SELECT conrelid::regclass::text, confrelid::regclass::text FROM pg_constraint"
        " WHERE contype = 'f' AND conrelid <> confrelid"
    )
    after: dict[str, set[str]] = {table: set() for table in tables}
    for child, parent in await cur.fetchall():
        if child in tables and parent in tables:
            after[parent].add(child)
    return list(TopologicalSorter(after).static_order())
