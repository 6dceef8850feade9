"""`spotter seed-demo`: a demo gym with staff of every role, and a day-grain demo gym
(`spotter.seed.day_grain`) where coaches paste a day for `workouts.parse`. Idempotent:
re-running changes nothing.

Runs on the owner connection (it creates organizations, which the app role may not).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from uuid import UUID
from zoneinfo import ZoneInfo

from psycopg import AsyncConnection

from spotter.seed.attendance import seed_attendance_history
from spotter.seed.crm import seed_crm
from spotter.seed.day_grain import seed_day_grain
from spotter.seed.forms import seed_forms
from spotter.seed.insights import seed_insights
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
    # every insight kind has something to show (domain.insights)
    await seed_insights(owner_url, DEMO_CLERK_ORG_ID, now=at)
