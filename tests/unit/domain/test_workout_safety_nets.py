"""The parser's general safety nets: what holds for forms no writer listed.

A net reads again what the ordinary reading could not name, with the words around a known
movement set aside. Each test is one net; its cases are neighbours in English, Hebrew and
Russian that no rule names one by one.
"""

from __future__ import annotations

import pytest

from spotter.domain.workout_parser import movements_of, parse_workout
from spotter.domain.workout_parser.cores import known_core
from tests.support.workout_metrics import seeded_index


def _library(name: str) -> str | None:
    match = seeded_index().match(name)
    return match.rows[0]["name"] if match and not match.ambiguous else None


def _named(text: str) -> list[str | None]:
    return [_library(m["name"]) for m in movements_of(parse_workout(text))]


# -- a name unknown as written shrinks to its known core ------------------------------------------


@pytest.mark.parametrize(
    ("name", "core"),
    [
        ("wall balls FT", "wall balls"),
        ("RFT thrusters", "thrusters"),
        ("burpees 🔥", "burpees"),
        ("and T2B", "T2B"),
        ("ברפי לזמן", "ברפי"),
        ("на гребном тренажёре", "гребном тренажёре"),
        ("бёрпи на время", "бёрпи"),
    ],
)
def test_words_that_name_no_movement_are_dropped_from_an_unknown_names_edges(
    name: str, core: str
) -> None:
    assert known_core(name) == core


@pytest.mark.parametrize("name", ["pull-ups", "Zombie squat", "with DBs", "Snatch Pull"])
def test_a_name_known_as_written_or_with_no_known_core_is_left_alone(name: str) -> None:
    assert known_core(name) is None or known_core(name) == name


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("21-15-9 thrusters, pull-ups, burpees FT", ["Thruster", "Pull-up", "Burpee"]),
        ("15-12-9 RFT: DL 100/70kg, box jumps", ["Deadlift", "Box Jump"]),
        ("3 rounds: 10 HSPU 🔥, 20 double-unders", ["Handstand Push-up", "Double-Under"]),
        ("3 раунда: 20 кал на эйрбайке, 10 бёрпи", ["Assault Bike", "Burpee"]),
        ("3 סבבים: 10 ברפי לזמן", ["Burpee"]),
    ],
)
def test_a_movement_written_beside_a_format_or_preposition_is_still_named(
    text: str, names: list[str]
) -> None:
    assert _named(text) == names
