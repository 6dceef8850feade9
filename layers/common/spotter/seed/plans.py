"""Demo plans: two program templates and the "Competition team" group on a program.

Idempotent: each thing is created only when missing, by name. Runs after the rest of the demo
seed (it uses whatever active members exist then; with none, the group is seeded empty and
still gets its program, so members who join later inherit it).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any
from uuid import UUID
from zoneinfo import ZoneInfo

from psycopg import AsyncConnection
from psycopg.rows import dict_row

from spotter.db import Conn
from spotter.db.scope import OrgScope
from spotter.domain import assignments, program_templates, programs
from spotter.domain.program_templates import Day

GROUP_NAME = "Competition team"
PROGRAM_NAME = "Competition"
GROUP_SIZE = 6


def _part(name: str, movements: list[dict[str, Any]], **section: Any) -> dict[str, Any]:
    return {"name": name, "sections": [{**section, "movements": movements}]}


def _beginner_week(week: int) -> list[Day]:
    base = week * 7
    squat_sets = 3 + week // 2
    return [
        Day(
            base,
            f"Week {week + 1} · Squat & row",
            "Learn the squat; steady pace on the rower.",
            [
                _part(
                    "Lift", [{"name": "Back Squat", "reps": 5}], format="sets", rounds=squat_sets
                ),
                _part(
                    "Conditioning",
                    [{"name": "Row", "distanceMeters": 250}, {"name": "Air Squat", "reps": 10}],
                    format="for_time",
                    rounds=3,
                ),
            ],
        ),
        Day(
            base + 2,
            f"Week {week + 1} · Press & bike",
            None,
            [
                _part("Lift", [{"name": "Strict Press", "reps": 5}], format="sets", rounds=3),
                _part(
                    "Conditioning",
                    [{"name": "Assault Bike", "calories": 8}, {"name": "Push-up", "reps": 8}],
                    format="emom",
                    intervalSeconds=60,
                    rounds=10,
                ),
            ],
        ),
        Day(
            base + 4,
            f"Week {week + 1} · Deadlift & run",
            None,
            [
                _part("Lift", [{"name": "Deadlift", "reps": 5}], format="sets", rounds=3),
                _part(
                    "Conditioning",
                    [{"name": "Run", "distanceMeters": 200}, {"name": "Sit-up", "reps": 12}],
                    format="amrap",
                    timeCapSeconds=720,
                ),
            ],
        ),
    ]


TEMPLATES: dict[str, tuple[str, list[Day]]] = {
    "Beginner 4-week": (
        "Three days a week for new members: squat, press, deadlift, short conditioning.",
        [day for week in range(4) for day in _beginner_week(week)],
    ),
    "Deload week": (
        "Half volume at easy intensity before a new cycle.",
        [
            Day(
                0, "Deload · Mobility flow", None, [_part("Mobility", [{"name": "Couch Stretch"}])]
            ),
            Day(
                2,
                "Deload · Light squat",
                None,
                [_part("Lift", [{"name": "Back Squat", "reps": 5}], format="sets", rounds=2)],
            ),
            Day(
                4,
                "Deload · Easy aerobic",
                None,
                [_part("Conditioning", [{"name": "Row", "timeSeconds": 1200}])],
            ),
        ],
    ),
}


async def _one(conn: Conn, query: str, params: tuple[Any, ...]) -> dict[str, Any] | None:
    cur = await conn.execute(query, params)
    return await cur.fetchone()


async def _seed_templates(scope: OrgScope) -> None:
    existing = {t["name"] for t in await program_templates.list_templates(scope, None)}
    for name, (description, days) in TEMPLATES.items():
        if name not in existing:
            await program_templates.create_template(
                scope, name=name, description=description, days=days
            )


async def _program_id(scope: OrgScope) -> UUID:
    row = await _one(
        scope.conn,
        "SELECT id FROM programs WHERE organization_id = %s AND deleted_at IS NULL"
        " AND lower(name) = lower(%s)",
        (scope.org_id, PROGRAM_NAME),
    )
    if row is None:
        row = await programs.create_program(
            scope, name=PROGRAM_NAME, description="Competition prep: strength and engine."
        )
    return UUID(str(row["id"]))


async def _seed_group(scope: OrgScope, user_id: UUID, today: date) -> None:
    group = await _one(
        scope.conn,
        "SELECT id FROM member_groups WHERE organization_id = %s AND deleted_at IS NULL"
        " AND lower(name) = lower(%s)",
        (scope.org_id, GROUP_NAME),
    )
    if group is not None:
        return
    cur = await scope.conn.execute(
        "SELECT m.id FROM org_memberships m JOIN users u ON u.id = m.user_id"
        " WHERE m.organization_id = %s AND m.role = 'member' AND m.status = 'active'"
        " ORDER BY u.full_name, m.id LIMIT %s",
        (scope.org_id, GROUP_SIZE),
    )
    members = [r["id"] for r in await cur.fetchall()]
    group_id = await assignments.create_group(scope, GROUP_NAME, members, user_id=user_id)
    program_id = await _program_id(scope)
    await assignments.assign(
        scope,
        assignments.Subject(program_id=program_id),
        assignments.Assignee(group_id=group_id),
        today,
        None,
        user_id=user_id,
    )


async def seed_plans(
    owner_url: str, clerk_org_id: str, clerk_owner_id: str, *, today: date | None = None
) -> None:
    """Seed the demo org's plans (assigned from `today`, default the gym's local date);
    `clerk_owner_id` is recorded as their author."""
    async with (
        await AsyncConnection.connect(owner_url, row_factory=dict_row) as conn,
        conn.transaction(),
    ):
        org = await _one(
            conn,
            "SELECT id, timezone FROM organizations WHERE clerk_org_id = %s",
            (clerk_org_id,),
        )
        owner = await _one(conn, "SELECT id FROM users WHERE clerk_user_id = %s", (clerk_owner_id,))
        assert org is not None
        assert owner is not None
        scope = OrgScope(conn, org["id"])
        await _seed_templates(scope)
        local_today = today or datetime.now(ZoneInfo(org["timezone"])).date()
        await _seed_group(scope, owner["id"], local_today)
