"""The demo seed's plans: two templates and a group on a program, seeded once."""

from __future__ import annotations

import psycopg

from spotter.seed.demo import seed_demo


def _plans(url: str) -> dict[str, object]:
    with psycopg.connect(url) as conn:
        templates = conn.execute(
            "SELECT t.name, count(d.day_offset) FROM program_templates t"
            " JOIN program_template_days d ON d.template_id = t.id GROUP BY t.name ORDER BY t.name"
        ).fetchall()
        members = conn.execute(
            "SELECT u.full_name FROM member_groups g"
            " JOIN member_group_members gm ON gm.group_id = g.id"
            " JOIN org_memberships m ON m.id = gm.membership_id JOIN users u ON u.id = m.user_id"
            " WHERE g.name = 'Competition team'"
        ).fetchall()
        assigned = conn.execute(
            "SELECT p.name, a.group_id IS NOT NULL, a.status FROM assignments a"
            " JOIN programs p ON p.id = a.program_id ORDER BY a.group_id IS NULL"
        ).fetchall()
    return {"templates": templates, "members": members, "assigned": assigned}


async def test_seed_plans_once_with_the_demo_members(clean_db: str) -> None:
    await seed_demo(clean_db)
    first = _plans(clean_db)
    assert first == {
        "templates": [("Beginner 4-week", 12), ("Deload week", 3)],
        "members": [("Dana Levi",)],
        # the group's row, then Dana's copy of it
        "assigned": [("Competition", True, "active"), ("Competition", False, "active")],
    }
    await seed_demo(clean_db)
    assert _plans(clean_db) == first
