"""Movement names to library exercises: exact before alias, abbreviations, plurals, ambiguity."""

from __future__ import annotations

import pytest

from spotter.domain.movement_match import MovementIndex
from tests.support.workout_metrics import seeded_index

INDEX = seeded_index()


@pytest.mark.parametrize(
    ("written", "exercise"),
    [
        ("HSPU", "Handstand Push-up"),
        ("T2B", "Toes-to-Bar"),
        ("C2B", "Chest-to-Bar Pull-up"),
        ("DU", "Double-Under"),
        ("DUs", "Double-Under"),
        ("KBS", "Kettlebell Swing"),
        ("WB", "Wall Ball"),
        ("C&J", "Clean and Jerk"),
        ("S2OH", "Shoulder-to-Overhead"),
        ("OHS", "Overhead Squat"),
        ("BMU", "Bar Muscle-up"),
        ("RMU", "Ring Muscle-up"),
        ("GHD", "GHD Sit-up"),
        ("box jump overs", "Box Jump Over"),
        ("squats", "Air Squat"),
        ("push presses", "Push Press"),
        ("pullups", "Pull-up"),
        ("strict T2B", "Toes-to-Bar"),
        ("שכיבות סמיכה", "Push-up"),
        ("דאבל אנדר", "Double-Under"),
    ],
)
def test_community_names_reach_their_exercise(written: str, exercise: str) -> None:
    match = INDEX.match(written)
    assert match is not None and not match.ambiguous, written
    assert match.rows[0]["name"] == exercise


def test_a_library_name_is_exact_and_an_abbreviation_is_alias() -> None:
    assert INDEX.match("Thrusters").kind == "exact"  # type: ignore[union-attr]
    assert INDEX.match("HSPU").kind == "alias"  # type: ignore[union-attr]


def test_an_exact_name_wins_over_another_exercise_alias() -> None:
    index = MovementIndex.of(
        [
            {"id": 1, "name": "Jerk", "aliases": []},
            {"id": 2, "name": "Split Jerk", "aliases": ["jerk"]},
        ]
    )
    match = index.match("jerks")
    assert match is not None and match.kind == "exact"
    assert [r["id"] for r in match.rows] == [1]


def test_an_alias_two_exercises_share_is_ambiguous_with_both() -> None:
    index = MovementIndex.of(
        [
            {"id": 1, "name": "Kettlebell Swing", "aliases": ["swing"]},
            {"id": 2, "name": "American Kettlebell Swing", "aliases": ["swing"]},
        ]
    )
    match = index.match("swings")
    assert match is not None and match.ambiguous
    assert sorted(r["id"] for r in match.rows) == [1, 2]


def test_an_unknown_name_matches_nothing() -> None:
    assert INDEX.match("underwater basket weaving") is None


ENGLISH_ONLY = MovementIndex.of(
    [
        {"id": 1, "name": "Pull-up", "aliases": []},
        {"id": 2, "name": "Kettlebell Swing", "aliases": []},
        {"id": 3, "name": "Air Squat", "aliases": []},
        {"id": 4, "name": "Back Squat", "aliases": []},
    ]
)


@pytest.mark.parametrize(
    ("written", "exercise_id"),
    [
        ("подтягиваний", 1),
        ("махов гирей", 2),
        ("KBS", 2),
        ("סווינגים", 2),
        ("приседания", 3),
        ("присед со штангой", 4),
    ],
)
def test_a_name_the_library_lacks_reaches_it_through_the_vocabulary(
    written: str, exercise_id: int
) -> None:
    match = ENGLISH_ONLY.match(written)
    assert match is not None and match.kind == "alias" and not match.ambiguous, written
    assert match.rows[0]["id"] == exercise_id


def test_the_librarys_own_alias_wins_over_the_vocabulary() -> None:
    index = MovementIndex.of(
        [
            {"id": 1, "name": "Kettlebell Swing", "aliases": []},
            {"id": 2, "name": "Russian Swing", "aliases": ["KBS"]},
        ]
    )
    match = index.match("KBS")
    assert match is not None and [r["id"] for r in match.rows] == [2]


def test_russian_endings_fold_to_the_librarys_own_alias() -> None:
    index = MovementIndex.of([{"id": 7, "name": "Kipping Thing", "aliases": ["махи ногой"]}])
    match = index.match("махов ногой")
    assert match is not None and match.rows[0]["id"] == 7
