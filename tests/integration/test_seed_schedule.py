"""The demo schedule: a published, coached week in the org's local time, one full class with a
waitlist, look-alike members for pickers; re-seeding changes nothing."""

from __future__ import annotations

import psycopg

from spotter.seed.demo import seed_demo
from spotter.seed.schedule import FULL_CLASS_WAITLIST, MEMBERS


def _snapshot(url: str) -> dict[str, object]:
    with psycopg.connect(url) as conn:

        def one(query: str) -> object:
            row = conn.execute(query).fetchone()
            assert row is not None
            return row[0]

        return {
            "types": one("SELECT array_agg(name ORDER BY name) FROM class_types"),
            "sessions": one("SELECT count(*) FROM class_sessions"),
            "unpublished": one("SELECT count(*) FROM class_sessions WHERE status <> 'published'"),
            "uncoached": one(
                "SELECT count(*) FROM class_sessions s WHERE NOT EXISTS"
                " (SELECT 1 FROM class_session_coaches c WHERE c.session_id = s.id)"
            ),
            # from today on: the days before hold the attendance history (seed/attendance.py)
            "days": one(
                "SELECT count(DISTINCT (starts_at AT TIME ZONE 'Asia/Jerusalem')::date)"
                " FROM class_sessions WHERE (starts_at AT TIME ZONE 'Asia/Jerusalem')::date"
                " >= (now() AT TIME ZONE 'Asia/Jerusalem')::date"
            ),
            "local_starts": one(
                "SELECT array_agg(DISTINCT to_char(starts_at AT TIME ZONE 'Asia/Jerusalem', 'HH24:MI')"
                " ORDER BY to_char(starts_at AT TIME ZONE 'Asia/Jerusalem', 'HH24:MI'))"
                " FROM class_sessions"
            ),
            "bookings": one("SELECT count(*) FROM bookings"),
            "members": one("SELECT count(*) FROM org_memberships WHERE role = 'member'"),
            "saars": one("SELECT count(*) FROM users WHERE full_name LIKE 'Saar %'"),
            "full": one(
                "SELECT count(*) FROM class_sessions s WHERE s.capacity ="
                " (SELECT count(*) FROM bookings b WHERE b.session_id = s.id AND b.status = 'booked')"
                " AND (SELECT count(*) FROM bookings b WHERE b.session_id = s.id"
                "      AND b.status = 'waitlisted') = " + str(FULL_CLASS_WAITLIST)
            ),
        }


async def test_seed_builds_a_published_week_and_is_idempotent(clean_db: str) -> None:
    await seed_demo(clean_db)
    first = _snapshot(clean_db)
    await seed_demo(clean_db)
    assert _snapshot(clean_db) == first
    assert first["types"] == ["Barbell Club", "CrossFit", "Kids", "Open Gym"]
    assert first["days"] == 7 and first["unpublished"] == 0 and first["uncoached"] == 0
    assert first["local_starts"] == ["07:00", "12:00", "16:30", "18:00", "19:30"]
    assert first["members"] == len(MEMBERS) + 1  # plus the demo member of the staff list
    assert first["saars"] == 2 and first["full"] == 1
    assert isinstance(first["bookings"], int) and first["bookings"] > 20
