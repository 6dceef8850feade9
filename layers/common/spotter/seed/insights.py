"""What the demo gym needs for every insight kind (domain.insights) beyond the rest of the seed.

The attendance history already holds the members at risk (`attendance.LAPSED`), the low-fill
slots (Open Gym at noon, Kids) and the schedule a full class with a waitlist; memberships hold
the paused members and the credit pack running low; the CRM a trial that ended without a
conversion. This adds, relative to the seed's one `now` and in the gym's zone:
- `NEW_MEMBER` (the demo member) came once, `FIRST_VISIT_DAYS_AGO` days ago, and booked nothing
  since: a new member who has not booked their second week;
- `UNCONTACTED_LEADS` arrived `LEAD_AGE` ago and nobody has emailed or answered them.

Idempotent: a row already placed is left as it is.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from psycopg import AsyncConnection

from spotter.domain.schedule import local_to_utc
from spotter.seed.attendance import EVENING_SLOT
from spotter.seed.schedule import TIMETABLE

NEW_MEMBER = "Dana Levi"
FIRST_VISIT_DAYS_AGO = 10
UNCONTACTED_LEADS = ("noa.shalev@example.com", "eyal.gross@bank.example.com")
LEAD_AGE = timedelta(days=3)


async def seed_insights(owner_url: str, clerk_org_id: str, *, now: datetime) -> None:
    async with await AsyncConnection.connect(owner_url) as conn, conn.transaction():
        cur = await conn.execute(
            "SELECT id, timezone FROM organizations WHERE clerk_org_id = %s", (clerk_org_id,)
        )
        org = await cur.fetchone()
        assert org is not None
        org_id, tz = org[0], ZoneInfo(str(org[1]))
        await conn.execute("SELECT set_config('app.org_id', %s, true)", (str(org_id),))
        await _first_visit_only(conn, org_id, now, tz)
        await conn.execute(
            "UPDATE leads SET created_at = %(at)s WHERE organization_id = %(org)s"
            " AND lower(email) = ANY(%(emails)s) AND created_at > %(at)s",
            {"org": org_id, "emails": list(UNCONTACTED_LEADS), "at": now - LEAD_AGE},
        )


async def _first_visit_only(
    conn: AsyncConnection[Any], org_id: Any, now: datetime, tz: ZoneInfo
) -> None:
    """The new member checked in to the evening CrossFit `FIRST_VISIT_DAYS_AGO` days ago."""
    name, at, _weekdays, _coach = TIMETABLE[EVENING_SLOT]
    day = now.astimezone(tz).date() - timedelta(days=FIRST_VISIT_DAYS_AGO)
    starts = local_to_utc(day, at, tz)
    await conn.execute(
        "INSERT INTO bookings (organization_id, session_id, membership_id, status, booked_at,"
        " checked_in_at)"
        " SELECT %(org)s, s.id, m.id, 'checked_in', %(starts)s - interval '1 day', %(starts)s"
        "   FROM class_sessions s"
        "   JOIN class_types ct ON ct.id = s.class_type_id AND ct.name = %(type)s"
        "   CROSS JOIN org_memberships m JOIN users u ON u.id = m.user_id"
        "  WHERE s.organization_id = %(org)s AND s.starts_at = %(starts)s"
        "    AND s.deleted_at IS NULL AND m.organization_id = %(org)s AND u.full_name = %(member)s"
        "    AND NOT EXISTS (SELECT 1 FROM bookings b WHERE b.organization_id = %(org)s"
        "                     AND b.membership_id = m.id)",
        {"org": org_id, "starts": starts, "type": name, "member": NEW_MEMBER},
    )
