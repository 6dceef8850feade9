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

from spotter.domain.exercises import normalize
from spotter.domain.workout_parser import parse_workout

# (name, category, equipment, aliases): abbreviations coaches type, and Hebrew names.
EXERCISES: tuple[tuple[str, str, str | None, tuple[str, ...]], ...] = (
    ("Back Squat", "squat", "barbell", ("BS", "סקוואט", "סקוואט אחורי")),
    ("Front Squat", "squat", "barbell", ("FS", "סקוואט קדמי")),
    ("Overhead Squat", "squat", "barbell", ("OHS", "סקוואט מעל הראש")),
    ("Air Squat", "squat", None, ("AS", "squat", "סקוואט אוויר", "סקוואטים", "bodyweight squat")),
    ("Goblet Squat", "squat", "kettlebell", ("סקוואט גביע",)),
    ("Pistol", "squat", None, ("pistol squat", "פיסטול")),
    ("Wall Ball", "squat", "medicine ball", ("WB", "wall ball shot", "וול בול")),
    ("Thruster", "squat", "barbell", ("תראסטר", "טראסטר", "תראסטרים")),
    ("Deadlift", "hinge", "barbell", ("DL", "דדליפט")),
    ("Sumo Deadlift High Pull", "hinge", "barbell", ("SDHP",)),
    ("Romanian Deadlift", "hinge", "barbell", ("RDL", "דדליפט רומני")),
    (
        "Kettlebell Swing",
        "hinge",
        "kettlebell",
        ("KB swing", "KBS", "סווינג", "סווינגים", "russian swing"),
    ),
    ("American Kettlebell Swing", "hinge", "kettlebell", ("American KB swing",)),
    ("Good Morning", "hinge", "barbell", ("גוד מורנינג",)),
    ("Hip Thrust", "hinge", "barbell", ("היפ טראסט",)),
    ("GHD Hip Extension", "hinge", "GHD", ("hip extension",)),
    ("Back Extension", "hinge", "GHD", ("פשיטת גב",)),
    ("Clean", "olympic", "barbell", ("squat clean", "קלין")),
    ("Power Clean", "olympic", "barbell", ("PC", "פאוור קלין")),
    ("Hang Power Clean", "olympic", "barbell", ("HPC",)),
    ("Hang Clean", "olympic", "barbell", ("HC",)),
    ("Clean and Jerk", "olympic", "barbell", ("C&J", "C and J", "קלין אנד ג'רק")),
    ("Snatch", "olympic", "barbell", ("squat snatch", "סנאץ'", "סנאץ׳")),
    ("Power Snatch", "olympic", "barbell", ("PS", "פאוור סנאץ'")),
    ("Hang Power Snatch", "olympic", "barbell", ("HPS",)),
    ("Hang Snatch", "olympic", "barbell", ("HS",)),
    ("Split Jerk", "olympic", "barbell", ("jerk", "ג'רק")),
    ("Push Jerk", "olympic", "barbell", ("PJ",)),
    ("Push Press", "press", "barbell", ("PP", "פוש פרס")),
    ("Dumbbell Push Press", "press", "dumbbell", ("DB push press",)),
    ("Shoulder-to-Overhead", "press", "barbell", ("S2OH", "STOH", "shoulder to overhead")),
    ("Ground-to-Overhead", "olympic", "barbell", ("G2OH", "GTOH", "ground to overhead")),
    ("Strict Press", "press", "barbell", ("shoulder press", "SP", "לחיצת כתפיים")),
    ("Bench Press", "press", "barbell", ("BP", "לחיצת חזה")),
    ("Dumbbell Bench Press", "press", "dumbbell", ("DB bench press", "לחיצת חזה משקולות")),
    ("Dumbbell Shoulder Press", "press", "dumbbell", ("DB press", "DB shoulder press")),
    ("Dumbbell Snatch", "olympic", "dumbbell", ("DB snatch", "סנאץ' משקולת")),
    ("Dumbbell Clean", "olympic", "dumbbell", ("DB clean",)),
    ("Dumbbell Hang Clean-to-Overhead", "olympic", "dumbbell", ("DB hang clean to overhead",)),
    ("Dumbbell Hang Clean and Jerk", "olympic", "dumbbell", ("DB hang clean and jerk",)),
    ("Dumbbell Box Step-over", "lunge", "dumbbell", ("DB box step-over", "DB step-over")),
    ("Dumbbell Thruster", "squat", "dumbbell", ("DB thruster",)),
    ("Devil Press", "press", "dumbbell", ("devils press",)),
    ("Dumbbell Row", "pull", "dumbbell", ("DB row", "חתירה במשקולת")),
    ("Kettlebell Goblet Lunge", "lunge", "kettlebell", ("KB lunge",)),
    ("Walking Lunge", "lunge", None, ("lunge", "לאנג'", "לאנג'ים", "מכרעים")),
    ("Overhead Walking Lunge", "lunge", "plate", ("OH lunge", "OHL")),
    ("Reverse Lunge", "lunge", None, ("לאנג' אחורי",)),
    ("Step-up", "lunge", "box", ("box step-up", "עליות לקופסה")),
    ("Pull-up", "pull", "pull-up bar", ("PU", "kipping pull-up", "מתח", "עליות מתח")),
    ("Strict Pull-up", "pull", "pull-up bar", ("strict PU", "מתח סטריקט")),
    ("Jumping Pull-up", "pull", "pull-up bar", ("jumping PU",)),
    ("Burpee Pull-up", "conditioning", "pull-up bar", ("burpee PU",)),
    ("Chest-to-Bar Pull-up", "pull", "pull-up bar", ("C2B", "CTB", "chest to bar")),
    ("Bar Muscle-up", "pull", "pull-up bar", ("BMU", "bar MU", "מאסל אפ מוט")),
    ("Ring Muscle-up", "pull", "rings", ("RMU", "muscle-up", "MU", "מאסל אפ")),
    ("Ring Row", "pull", "rings", ("חתירה בטבעות",)),
    ("Ring Dip", "press", "rings", ("dip", "מקבילים", "דיפים")),
    ("Rope Climb", "pull", "rope", ("RC", "טיפוס חבל")),
    ("Legless Rope Climb", "pull", "rope", ("legless",)),
    (
        "Toes-to-Bar",
        "core",
        "pull-up bar",
        ("T2B", "TTB", "toes to bar", "רגליים למוט", "בהונות למוט"),
    ),
    ("Knees-to-Elbows", "core", "pull-up bar", ("K2E", "knees to elbows")),
    ("Hanging Knee Raise", "core", "pull-up bar", ("knee raise", "הרמות ברכיים")),
    ("Sit-up", "core", None, ("situp", "AbMat sit-up", "כפיפות בטן", "בטן")),
    ("GHD Sit-up", "core", "GHD", ("GHD",)),
    ("V-up", "core", None, ("v ups", "וי אפ")),
    ("Hollow Hold", "core", None, ("hollow", "החזקת סירה")),
    ("Hollow Rock", "core", None, ("נדנוד סירה",)),
    ("Superman Hold", "core", None, ("superman", "סופרמן")),
    ("Plank", "core", None, ("front plank", "פלאנק")),
    ("Side Plank", "core", None, ("פלאנק צד",)),
    ("L-sit", "core", "parallettes", ("L sit", "אל סיט")),
    ("Russian Twist", "core", None, ("טוויסט רוסי",)),
    ("Push-up", "press", None, ("pushup", "שכיבות סמיכה", "שכיבת סמיכה")),
    ("Hand-Release Push-up", "press", None, ("HRPU", "hand release push-up")),
    ("Handstand Push-up", "press", None, ("HSPU", "kipping HSPU", "עמידת ידיים שכיבת סמיכה")),
    ("Strict Handstand Push-up", "press", None, ("strict HSPU",)),
    ("Pike Push-up", "press", "box", ("pike push-up on box",)),
    ("Handstand Walk", "gymnastics", None, ("HSW", "הליכת ידיים")),
    ("Handstand Hold", "gymnastics", None, ("wall handstand hold", "עמידת ידיים")),
    ("Wall Walk", "gymnastics", None, ("wall climb", "הליכת קיר")),
    ("Burpee", "conditioning", None, ("burpees", "בורפי", "ברפי", "בורפיז")),
    (
        "Burpee Over the Bar",
        "conditioning",
        "barbell",
        ("BOB", "bar-facing burpee", "BFB", "lateral bar burpee", "bar burpee"),
    ),
    ("Burpee Broad Jump", "conditioning", None, ("BBJ",)),
    ("Burpee Box Jump Over", "conditioning", "box", ("BBJO",)),
    ("Box Jump", "plyometric", "box", ("BJ", "קפיצה לקופסה", "קפיצות לקופסה")),
    ("Box Jump Over", "plyometric", "box", ("BJO", "box jump-over")),
    ("Broad Jump", "plyometric", None, ("קפיצה לרוחק",)),
    ("Tuck Jump", "plyometric", None, ("קפיצות ברכיים",)),
    (
        "Double-Under",
        "conditioning",
        "jump rope",
        ("DU", "DUs", "double unders", "דאבל", "דאבל אנדר", "דאבלים"),
    ),
    ("Single-Under", "conditioning", "jump rope", ("SU", "singles", "דילוגים", "קפיצות חבל")),
    ("Run", "monostructural", None, ("running", "ריצה")),
    ("Row", "monostructural", "rower", ("rowing", "C2 row", "erg", "חתירה")),
    ("Bike Erg", "monostructural", "bike", ("bike", "BikeErg", "אופניים")),
    ("Assault Bike", "monostructural", "air bike", ("AB", "echo bike", "air bike", "אסולט")),
    ("Ski Erg", "monostructural", "ski erg", ("ski", "SkiErg", "סקי")),
    ("Swim", "monostructural", None, ("שחייה",)),
    ("Shuttle Run", "monostructural", None, ("shuttle", "ספרינטים הלוך חזור")),
    ("Sled Push", "strongman", "sled", ("prowler push", "דחיפת מזחלת")),
    ("Sled Pull", "strongman", "sled", ("sled drag",)),
    ("Farmer's Carry", "carry", "dumbbell", ("farmers carry", "farmer carry", "הליכת חקלאי")),
    ("Sandbag Carry", "carry", "sandbag", ("bear hug carry",)),
    ("Sandbag Clean", "strongman", "sandbag", ("sandbag to shoulder",)),
    ("Overhead Carry", "carry", "dumbbell", ("OH carry",)),
    ("Turkish Get-up", "core", "kettlebell", ("TGU", "טורקיש גט אפ")),
    ("Kettlebell Snatch", "olympic", "kettlebell", ("KB snatch",)),
    ("Kettlebell Clean", "olympic", "kettlebell", ("KB clean",)),
    ("Medicine Ball Clean", "olympic", "medicine ball", ("med ball clean", "MB clean")),
    ("Slam Ball", "conditioning", "slam ball", ("ball slam", "med ball slam", "סלאם בול")),
    ("Dumbbell Lunge", "lunge", "dumbbell", ("DB lunge", "DB walking lunge")),
    ("Sandbag Lunge", "lunge", "sandbag", ("sandbag walking lunge",)),
    ("Cossack Squat", "squat", None, ("קוזאק סקוואט",)),
    ("Bulgarian Split Squat", "squat", "dumbbell", ("BSS", "בולגרי")),
    ("Banded Pull-apart", "accessory", "band", ("pull-apart", "band pull apart")),
    ("Face Pull", "accessory", "band", ("פייס פול",)),
    ("Bicep Curl", "accessory", "dumbbell", ("curl", "כפיפת מרפקים")),
    ("Tricep Extension", "accessory", "dumbbell", ("פשיטת מרפקים",)),
    ("Inchworm", "mobility", None, ("inch worm",)),
    ("PVC Pass-through", "mobility", "PVC", ("pass-through", "shoulder pass-through")),
    ("Couch Stretch", "mobility", None, ("מתיחת ספה",)),
    ("Jumping Jack", "conditioning", None, ("jumping jacks", "ג'אמפינג ג'ק")),
    ("Mountain Climber", "conditioning", None, ("מטפס הרים",)),
    ("Bear Crawl", "conditioning", None, ("זחילת דוב",)),
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
    for name, category, equipment, aliases in EXERCISES:
        await conn.execute(
            "INSERT INTO exercises (organization_id, name, category, equipment, aliases)"
            " SELECT %s, %s, %s, %s, %s WHERE NOT EXISTS (SELECT 1 FROM exercises"
            "  WHERE organization_id = %s AND lower(name) = lower(%s) AND deleted_at IS NULL)",
            (org_id, name, category, equipment, list(aliases), org_id, name),
        )
        await conn.execute(
            "UPDATE exercises SET aliases = aliases"
            " || ARRAY(SELECT a FROM unnest(%s::text[]) a WHERE NOT a = ANY(aliases))"
            " WHERE organization_id = %s AND lower(name) = lower(%s) AND deleted_at IS NULL"
            " AND NOT %s::text[] <@ aliases",
            (list(aliases), org_id, name, list(aliases)),
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
    index: dict[str, tuple[str, UUID]] = {}
    for name, _category, _equipment, aliases in EXERCISES:
        for key in (name, *aliases):
            index.setdefault(normalize(key), (name, library[name]))
    for part in parts:
        for section in part["sections"]:
            for movement in section["movements"]:
                found = index.get(normalize(movement["name"]))
                if found:
                    movement["name"], movement["exerciseId"] = found[0], str(found[1])
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
