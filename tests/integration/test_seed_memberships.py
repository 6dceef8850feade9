"""The demo memberships: every demo member on a plan (some paused, one changed plan), a pending
invitation, automations with valid templates; re-seeding changes nothing."""

from __future__ import annotations

import psycopg

from spotter.domain.automations import check_template
from spotter.seed.demo import seed_demo
from spotter.seed.memberships import PAUSED, PLANS


def _snapshot(url: str) -> dict[str, object]:
    with psycopg.connect(url) as conn:

        def one(query: str) -> object:
            row = conn.execute(query).fetchone()
            assert row is not None
            return row[0]

        return {
            "plans": one("SELECT count(*) FROM membership_plans"),
            "members_without_plan": one(
                "SELECT count(*) FROM org_memberships m WHERE m.role = 'member' AND NOT EXISTS"
                " (SELECT 1 FROM member_subscriptions s WHERE s.membership_id = m.id"
                "  AND s.status <> 'cancelled')"
            ),
            "paused": one("SELECT count(*) FROM member_subscriptions WHERE status = 'paused'"),
            "cancelled": one(
                "SELECT count(*) FROM member_subscriptions WHERE status = 'cancelled'"
            ),
            "subscriptions": one("SELECT count(*) FROM member_subscriptions"),
            "invitations": one("SELECT count(*) FROM member_invitations WHERE status = 'pending'"),
            "automations": one("SELECT array_agg(status ORDER BY name) FROM email_automations"),
            "flag": one("SELECT feature_flags -> 'email_automations' FROM organizations"),
        }


async def test_seed_puts_every_demo_member_on_a_plan_and_is_idempotent(clean_db: str) -> None:
    await seed_demo(clean_db)
    first = _snapshot(clean_db)
    assert first["plans"] == len(PLANS)
    assert first["members_without_plan"] == 0
    assert (first["paused"], first["cancelled"], first["invitations"]) == (len(PAUSED), 1, 1)
    assert first["automations"] == ["draft", "active", "active"]
    assert first["flag"] is True
    await seed_demo(clean_db)
    assert _snapshot(clean_db) == first


async def test_seeded_automation_templates_use_only_known_placeholders(clean_db: str) -> None:
    await seed_demo(clean_db)
    with psycopg.connect(clean_db) as conn:
        rows = conn.execute(
            "SELECT subject_template, body_template FROM email_automations"
        ).fetchall()
    for subject, body in rows:
        check_template(subject, body)  # raises template_invalid otherwise
    assert len(rows) == 3
