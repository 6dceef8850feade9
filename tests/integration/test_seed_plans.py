"""The demo seed's plans: two templates and a group on a program, seeded once."""

from __future__ import annotations

import psycopg

from spotter.seed.demo import seed_demo
from spotter.seed.plans import GROUP_SIZE


def _plans(url: str) -> dict[str, object]:
    with psycopg.connect(url) as conn:
        templates = conn.execute(
            "SELECT t.name, count(d.day_offset) FROM program_templates t"
            " JOIN program_template_days d ON d.template_id = t.id GROUP BY t.name ORDER BY t.name"
        ).fetchall()
        members = conn.execute(
            "SELECT m.role, m.status FROM member_groups g"
            " JOIN member_group_members gm ON gm.group_id = g.id"
            " JOIN org_memberships m ON m.id = gm.membership_id"
            " WHERE g.name = 'Competition team'"
        ).fetchall()
        active = conn.execute(
            "SELECT count(*) FROM org_memberships WHERE role = 'member' AND status = 'active'"
        ).fetchone()
        assigned = conn.execute(
            "SELECT p.name, a.group_id IS NOT NULL, a.status, count(*) FROM assignments a"
            " JOIN programs p ON p.id = a.program_id GROUP BY 1, 2, 3 ORDER BY 2 DESC"
        ).fetchall()
    assert active is not None
    return {"templates": templates, "members": members, "active": active[0], "assigned": assigned}


async def test_seed_plans_once_with_the_demo_members(clean_db: str) -> None:
    await seed_demo(clean_db)
    first = _plans(clean_db)
    grouped = min(GROUP_SIZE, int(str(first["active"])))
    assert grouped >= 1  # the demo always has at least one active member
    assert first["templates"] == [("Beginner 4-week", 12), ("Deload week", 3)]
    assert first["members"] == [("member", "active")] * grouped
    # the group's row, then each member's copy of it
    assert first["assigned"] == [
        ("Competition", True, "active", 1),
        ("Competition", False, "active", grouped),
    ]
    await seed_demo(clean_db)
    assert _plans(clean_db) == first
