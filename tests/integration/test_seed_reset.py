"""`make reset-demo` (`spotter seed-demo --reset`): whatever a demo changed is gone and the demo
gyms are as a first seed leaves them today; another organization is untouched."""

from __future__ import annotations

from datetime import UTC, datetime

import psycopg

from spotter.seed.demo import DEMO_CLERK_ORG_ID, reset_demo, seed_demo

NOW = datetime(2026, 12, 2, 9, 0, tzinfo=UTC)
COUNTED = (
    "class_sessions", "bookings", "leads", "lead_activities", "ai_conversations", "ai_messages",
    "workouts", "programs", "member_credit_ledger", "audit_logs", "org_memberships",
)  # fmt: skip


def _state(url: str) -> dict[str, object]:
    with psycopg.connect(url) as conn:
        org = conn.execute(
            "SELECT id FROM organizations WHERE clerk_org_id = %s", (DEMO_CLERK_ORG_ID,)
        ).fetchone()
        assert org is not None
        counts = {
            table: conn.execute(
                f"SELECT count(*) FROM {table} WHERE organization_id = %s", (org[0],)
            ).fetchone()[0]  # type: ignore[index]
            for table in COUNTED
        }
        statuses = conn.execute(
            "SELECT array_agg(status || ' ' || to_char(starts_at, 'YYYY-MM-DD HH24:MI')"
            " ORDER BY starts_at, status) FROM class_sessions WHERE organization_id = %s",
            (org[0],),
        ).fetchone()
    return {**counts, "sessions": statuses[0] if statuses else None}  # type: ignore[index]


def _change_the_demo(url: str) -> None:
    """What a demo does: a class cancelled with its bookings, a conversation, a stranger's org."""
    with psycopg.connect(url) as conn:
        org = conn.execute(
            "SELECT id FROM organizations WHERE clerk_org_id = %s", (DEMO_CLERK_ORG_ID,)
        ).fetchone()
        assert org is not None
        conn.execute(
            "UPDATE class_sessions SET status = 'cancelled' WHERE id = (SELECT id FROM"
            " class_sessions WHERE organization_id = %s AND starts_at > now() ORDER BY starts_at"
            " LIMIT 1)",
            (org[0],),
        )
        conn.execute("DELETE FROM bookings WHERE organization_id = %s", (org[0],))
        user = conn.execute(
            "SELECT u.id FROM users u JOIN org_memberships m ON m.user_id = u.id"
            " WHERE m.organization_id = %s AND m.role = 'owner'",
            (org[0],),
        ).fetchone()
        assert user is not None
        conn.execute(
            "INSERT INTO ai_conversations (organization_id, user_id, title) VALUES (%s, %s, 'x')",
            (org[0], user[0]),
        )
        conn.execute(
            "INSERT INTO organizations (clerk_org_id, name, timezone, default_locale,"
            " platform_tier) VALUES ('org_someone_else', 'Another Box', 'UTC', 'en', 'growth')"
        )


async def test_reset_puts_the_demo_gym_back_as_a_first_seed_leaves_it(clean_db: str) -> None:
    await seed_demo(clean_db, now=NOW)
    fresh = _state(clean_db)
    _change_the_demo(clean_db)
    assert _state(clean_db) != fresh
    await reset_demo(clean_db, now=NOW)
    assert _state(clean_db) == fresh
    assert fresh["ai_conversations"] == 0 and fresh["bookings"] > 0  # type: ignore[operator]


async def test_reset_leaves_other_organizations_alone(clean_db: str) -> None:
    await seed_demo(clean_db, now=NOW)
    _change_the_demo(clean_db)
    await reset_demo(clean_db, now=NOW)
    with psycopg.connect(clean_db) as conn:
        other = conn.execute(
            "SELECT name FROM organizations WHERE clerk_org_id = 'org_someone_else'"
        ).fetchone()
    assert other == ("Another Box",)
