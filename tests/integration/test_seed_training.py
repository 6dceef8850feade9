"""The demo gym's training seed: a library with aliases, three programs, a week of workouts."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import psycopg

from spotter.auth import resolve_caller
from spotter.auth.clerk import SessionClaims
from spotter.db import Database
from spotter.domain.workout_parser import movements_of
from spotter.seed.day_grain import DAY_GRAIN_CLERK_ORG_ID, DAY_GRAIN_PROGRAM
from spotter.seed.demo import DEMO_CLERK_ORG_ID, DEMO_TIMEZONE, seed_demo
from spotter.seed.training import PROGRAMS
from spotter.tools.invoke import invoke_tool


def _training(owner_url: str) -> tuple[int, int, int, int]:
    # Other seeds may add programs of their own; count this seed's.
    names = [name for name, _ in PROGRAMS]
    with psycopg.connect(owner_url) as conn:
        row = conn.execute(
            "SELECT (SELECT count(*) FROM exercises),"
            " (SELECT count(*) FROM programs WHERE name = ANY(%s)),"
            " (SELECT count(*) FROM workouts w JOIN programs p ON p.id = w.program_id"
            "   WHERE p.name = ANY(%s)),"
            " (SELECT count(*) FROM exercises WHERE cardinality(aliases) > 0)",
            (names, names),
        ).fetchone()
    assert row is not None
    return (row[0], row[1], row[2], row[3])


def test_training_seed_is_idempotent_and_sized(clean_db: str) -> None:
    asyncio.run(seed_demo(clean_db))
    first = _training(clean_db)
    asyncio.run(seed_demo(clean_db))
    assert _training(clean_db) == first
    exercises, programs, workouts, with_aliases = first
    assert exercises >= 100 and with_aliases == exercises
    assert (programs, workouts) == (3, 10)


def test_seeded_library_knows_abbreviations_and_hebrew(clean_db: str) -> None:
    asyncio.run(seed_demo(clean_db))
    with psycopg.connect(clean_db) as conn:
        for alias, name in (
            ("DU", "Double-Under"),
            ("T2B", "Toes-to-Bar"),
            ("C2B", "Chest-to-Bar Pull-up"),
            ("HSPU", "Handstand Push-up"),
            ("C&J", "Clean and Jerk"),
            ("KB swing", "Kettlebell Swing"),
            ("סקוואט", "Back Squat"),
            ("דדליפט", "Deadlift"),
            ("מתח", "Pull-up"),
            ("שכיבות סמיכה", "Push-up"),
            ("חתירה", "Row"),
        ):
            row = conn.execute(
                "SELECT name FROM exercises WHERE %s = ANY(aliases)", (alias,)
            ).fetchone()
            assert row == (name,), alias


def test_seeded_week_is_linked_to_the_library_and_keeps_its_text(clean_db: str) -> None:
    now = datetime.now(UTC)
    asyncio.run(seed_demo(clean_db, now=now))
    today = now.astimezone(ZoneInfo(DEMO_TIMEZONE)).date()  # the gym's week, not the machine's
    monday = today - timedelta(days=today.weekday())
    with psycopg.connect(clean_db) as conn:
        rows = conn.execute(
            "SELECT w.title, w.scheduled_on, w.parts, w.source_text, p.name FROM workouts w"
            " JOIN programs p ON p.id = w.program_id JOIN organizations o"
            " ON o.id = w.organization_id WHERE o.clerk_org_id = %s",
            (DEMO_CLERK_ORG_ID,),
        ).fetchall()
        ids = {r[0] for r in conn.execute("SELECT id::text FROM exercises").fetchall()}
    ours = [r for r in rows if r[4] in {name for name, _ in PROGRAMS}]
    crossfit_days = sorted(r[1] for r in ours if r[4] == "CrossFit")
    assert crossfit_days == [monday + timedelta(days=i) for i in range(5)]
    for title, _day, parts, source_text, _program in ours:
        assert title and source_text
        movements = movements_of({"parts": parts})
        assert movements and all(m["exerciseId"] in ids for m in movements), title


def test_a_library_seeded_before_learns_the_aliases_added_since(clean_db: str) -> None:
    asyncio.run(seed_demo(clean_db))
    with psycopg.connect(clean_db) as conn:
        conn.execute(
            "UPDATE exercises SET aliases = array_remove(aliases, 'S2OH')"
            " WHERE name = 'Shoulder-to-Overhead'"
        )
    asyncio.run(seed_demo(clean_db))
    with psycopg.connect(clean_db) as conn:
        rows = conn.execute(
            "SELECT aliases FROM exercises WHERE name = 'Shoulder-to-Overhead'"
        ).fetchall()
    assert rows and all(r[0].count("S2OH") == 1 for r in rows)


async def test_the_day_grain_demo_coach_parses_and_saves_a_day(db: Database, clean_db: str) -> None:
    await seed_demo(clean_db)
    coach = await resolve_caller(
        db, SessionClaims("user_daygrain_coach", DAY_GRAIN_CLERK_ORG_ID, None, None), "en"
    )
    assert coach.day_grain_programming and coach.role == "coach"
    listed = await invoke_tool(db, coach, "programs", {"action": "list", "args": {}})
    assert listed.ok, listed.error
    [program] = [p for p in listed.output["programs"] if p["name"] == DAY_GRAIN_PROGRAM[0]]
    text = "Helen\n3 rounds for time:\n400m run\n21 KB swings (1.5/1 pood)\n12 pull-ups"
    out = await invoke_tool(
        db,
        coach,
        "workouts",
        {
            "action": "parse",
            "args": {"text": text, "date": "2027-03-01", "save": {"programId": program["id"]}},
        },
    )
    assert out.ok, out.error
    assert out.output["saved"] is True, out.output
    names = [m["name"] for m in movements_of(out.output["workout"])]
    assert names == ["Run", "Kettlebell Swing", "Pull-up"]
