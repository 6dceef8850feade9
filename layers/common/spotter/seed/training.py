"""The demo gym's training: an exercise library with aliases, three programs, a week of workouts.

Idempotent: exercises and programs are matched by name, workouts by (program, date); a second
run changes nothing. Runs on the seed's owner connection, inside its transaction.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any
from uuid import UUID

from psycopg import AsyncConnection
from psycopg.types.json import Jsonb

from spotter.domain import movement_vocabulary as vocabulary
from spotter.domain.movement_match import MovementIndex
from spotter.domain.workout_parser import parse_workout

# (name, category, equipment, aliases): the shared movement vocabulary, every language's aliases.
EXERCISES: tuple[tuple[str, str, str | None, tuple[str, ...]], ...] = tuple(
    (m.name, m.category, m.equipment, m.all_aliases) for m in vocabulary.movements()
)

PROGRAMS: tuple[tuple[str, str], ...] = (
    ("CrossFit", "The daily class programming."),
    ("Barbell Club", "Olympic lifting and strength, three days a week."),
    ("Engine", "Monostructural conditioning for aerobic capacity."),
)

# A week of (title, coach text) per program, in training-day order.
_CROSSFIT_WEEK = (
    (
        "Squats and Wall Balls",
        "Warm-up (0:00-10:00)\n2 rounds:\n200m run\n10 air squats\n10 PVC pass-throughs\n\n"
        "Lift (10:00-25:00)\nBack squat 5x3 @ 80%\n\n"
        "Conditioning (25:00-45:00)\nAMRAP 12\n10 pull-ups\n15 wall balls (9/6kg, 10ft)\n20 DU",
    ),
    ("Fran", '"Fran"\n21-15-9 for time\nThrusters 43/30kg\nPull-ups\nTime cap: 8 min'),
    (
        "Clean Complex",
        "Lift\nE2MOM x 6: 1 power clean + 2 front squats @ 70%\n\n"
        "Conditioning\n4 rounds for time (cap 16')\n400m run\n21 KB swings 24/16kg\n"
        '12 box jumps 24/20"',
    ),
    (
        "Gymnastics EMOM",
        "Skill\nEvery 90 sec x 8\n3 HSPU\n5 T2B\n\nConditioning\nEMOM 12\n"
        "Min 1: 12/9 cal row\nMin 2: 10 burpees\nMin 3: 30 sec plank",
    ),
    (
        "יום שישי",
        "חימום (0:00-10:00)\n3 סבבים:\n10 סקוואט אוויר\n10 שכיבות סמיכה\n200 מטר ריצה\n\n"
        "כוח\nדדליפט 5x3 @ 80%\n\nמטקון\nAMRAP 12 דקות\n10 מתח\n15 קלוריות חתירה",
    ),
)
_BARBELL_WEEK = (
    (
        "Snatch and Clean & Jerk",
        "A) Snatch 6x2 @ 75%\nB) Clean & Jerk: 5 x (1 clean + 1 jerk) @ 70%\n"
        "C) Front squat 4x4 @ 75%",
    ),
    (
        "Heavy Deadlift",
        "Lift\nDeadlift 5-5-5-3-3-3\nBuild to a heavy triple across the sets\n\n"
        "Optional: 3 sets of max strict pull-ups",
    ),
    ("Press and Squat", "Lift\nPush press 5x5 @ 70%\nBack squat 3x5 @ 75%"),
)
_ENGINE_WEEK = (
    (
        "Row Intervals",
        "Engine\n3 x 4 min AMRAP, rest 2 min between\n250m row\n10 DB snatches 22.5/15kg\n"
        "15 sit-ups",
    ),
    ("Run and Bike", "Engine\nEvery 2 min x 10\n300m run\n12 cal bike"),
)


async def seed_exercises(conn: AsyncConnection[Any], org_id: UUID) -> dict[str, UUID]:
    """The exercise library (added where missing); returns name -> id.

    Aliases are data: an exercise seeded before gains the aliases added here since (its own
    are kept), so a library seeded once still learns new abbreviations on the next seed.
    """
    # The whole vocabulary in two statements (not two per movement): rows as one jsonb array.
    rows = Jsonb(
        [
            {"name": name, "category": category, "equipment": equipment, "aliases": list(aliases)}
            for name, category, equipment, aliases in EXERCISES
        ]
    )
    await conn.execute(
        "INSERT INTO exercises (organization_id, name, category, equipment, aliases)"
        " SELECT %(org)s, r.name, r.category, r.equipment, r.aliases"
        " FROM jsonb_to_recordset(%(rows)s)"
        "  AS r(name text, category text, equipment text, aliases text[])"
        " WHERE NOT EXISTS (SELECT 1 FROM exercises e WHERE e.organization_id = %(org)s"
        "  AND lower(e.name) = lower(r.name) AND e.deleted_at IS NULL)",
        {"org": org_id, "rows": rows},
    )
    await conn.execute(
        "UPDATE exercises e SET aliases = e.aliases"
        " || ARRAY(SELECT a FROM unnest(r.aliases) a WHERE NOT a = ANY(e.aliases))"
        " FROM jsonb_to_recordset(%(rows)s) AS r(name text, aliases text[])"
        " WHERE e.organization_id = %(org)s AND lower(e.name) = lower(r.name)"
        " AND e.deleted_at IS NULL AND NOT r.aliases <@ e.aliases",
        {"org": org_id, "rows": rows},
    )
    cur = await conn.execute(
        "SELECT id, name FROM exercises WHERE organization_id = %s AND deleted_at IS NULL",
        (org_id,),
    )
    return {row[1]: row[0] for row in await cur.fetchall()}


async def ensure_program(conn: AsyncConnection[Any], org_id: UUID, name: str, about: str) -> UUID:
    """The org's program by this name, created when missing."""
    await conn.execute(
        "INSERT INTO programs (organization_id, name, description) SELECT %s, %s, %s"
        " WHERE NOT EXISTS (SELECT 1 FROM programs WHERE organization_id = %s"
        "  AND lower(name) = lower(%s) AND deleted_at IS NULL)",
        (org_id, name, about, org_id, name),
    )
    cur = await conn.execute(
        "SELECT id FROM programs WHERE organization_id = %s AND lower(name) = lower(%s)"
        " AND deleted_at IS NULL",
        (org_id, name),
    )
    row = await cur.fetchone()
    assert row is not None
    return UUID(str(row[0]))


def _link(parts: list[dict[str, Any]], library: dict[str, UUID]) -> list[dict[str, Any]]:
    """Attach library ids by exact name or alias, as the resolver would (seeds stay offline)."""
    index = MovementIndex.of(
        {"id": library[name], "name": name, "aliases": list(aliases)}
        for name, _category, _equipment, aliases in EXERCISES
    )
    for part in parts:
        for section in part["sections"]:
            for movement in section["movements"]:
                found = index.match(movement["name"])
                if found and not found.ambiguous:
                    row = found.rows[0]
                    movement["name"], movement["exerciseId"] = row["name"], str(row["id"])
    return parts


async def seed_training(
    conn: AsyncConnection[Any], org_id: UUID, *, week_of: date | None = None
) -> None:
    """Library, programs and this week's workouts (Monday-based) for `org_id`."""
    library = await seed_exercises(conn, org_id)
    monday = week_of or date.today() - timedelta(days=date.today().weekday())
    weeks = {"CrossFit": _CROSSFIT_WEEK, "Barbell Club": _BARBELL_WEEK, "Engine": _ENGINE_WEEK}
    for name, about in PROGRAMS:
        program_id = await ensure_program(conn, org_id, name, about)
        for offset, (title, text) in enumerate(weeks[name]):
            # Barbell Club and Engine train every other day; CrossFit Monday to Friday.
            day = monday + timedelta(days=offset if name == "CrossFit" else offset * 2)
            parts = _link(parse_workout(text)["parts"], library)
            await conn.execute(
                "INSERT INTO workouts (organization_id, program_id, scheduled_on, title, parts,"
                " source_text, status) SELECT %s, %s, %s, %s, %s, %s, 'published'"
                " WHERE NOT EXISTS (SELECT 1 FROM workouts WHERE organization_id = %s"
                "  AND program_id = %s AND scheduled_on = %s AND deleted_at IS NULL)",
                (
                    org_id,
                    program_id,
                    day,
                    title,
                    Jsonb(parts),
                    text,
                    org_id,
                    program_id,
                    day,
                ),
            )
