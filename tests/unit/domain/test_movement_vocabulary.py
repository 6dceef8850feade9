"""The movement vocabulary: one table, aliases per language, each written form one movement's."""

from __future__ import annotations

from collections import defaultdict

import pytest

from spotter.domain.movement_vocabulary import (
    LANGUAGES,
    known_words,
    lookup,
    movements,
    normalize,
)


def test_every_movement_is_named_in_every_language() -> None:
    missing = [
        (m.name, language) for m in movements() for language in LANGUAGES if not m.aliases[language]
    ]
    assert missing == []


def test_a_written_form_belongs_to_one_movement_only() -> None:
    owners: dict[str, set[str]] = defaultdict(set)
    for movement in movements():
        for written in (movement.name, *movement.all_aliases):
            owners[normalize(written)].add(movement.name)
            owners[normalize(written).replace(" ", "")].add(movement.name)
    assert {k: v for k, v in owners.items() if len(v) > 1} == {}


def test_names_are_unique_and_categories_and_equipment_are_words() -> None:
    names = [m.name for m in movements()]
    assert len(names) == len(set(names)) >= 150
    assert all(m.category.isalpha() for m in movements())


@pytest.mark.parametrize(
    ("written", "name"),
    [
        ("KBS", "Kettlebell Swing"),
        ("махов гирей", "Kettlebell Swing"),
        ("подтягиваний", "Pull-up"),
        ("бёрпи", "Burpee"),
        ("берпи", "Burpee"),
        ("clean & jerk", "Clean and Jerk"),
        ("DB hang clean & jerks", "Dumbbell Hang Clean and Jerk"),
        ("strict T2B", "Toes-to-Bar"),
        ("תראסטרים", "Thruster"),
        ("толчок", "Clean and Jerk"),
        ("handstand walk practice", "Handstand Walk"),
    ],
)
def test_lookup_reads_aliases_plurals_endings_and_modifiers(written: str, name: str) -> None:
    found = lookup(written)
    assert found is not None and found.name == name, written


def test_a_folded_form_two_movements_share_is_no_answer() -> None:
    # "סקוואט" is Back Squat and "סקוואטים" Air Squat; a third form folding to both is neither.
    assert lookup("סקוואט").name == "Back Squat"  # type: ignore[union-attr]
    assert lookup("סקוואטים").name == "Air Squat"  # type: ignore[union-attr]
    assert lookup("סקוואטות") is None


def test_known_words_finds_the_longest_name_at_the_start() -> None:
    assert known_words(["hang", "power", "clean", "95/65"]) == 3
    assert known_words(["pood", "30", "pull-ups"]) == 0


@pytest.mark.parametrize(
    ("written", "name"),
    [
        # Hebrew spelling: an English plural "s" kept, doubled or silent letters, final letters
        ("וול בולס", "Wall Ball"),
        ("וולבולס", "Wall Ball"),
        ("ברפיז", "Burpee"),
        ("סקווט אחורי", "Back Squat"),
        ("תרסטרים", "Thruster"),
        # an English name in Hebrew or Russian letters, by its consonants
        ("גובלט סקוואט", "Goblet Squat"),
        ("פרונט סקוואטים", "Front Squat"),
        ("רומניאן דדליפט", "Romanian Deadlift"),
        ("טוז טו בר", "Toes-to-Bar"),
        ("צ'סט טו בר", "Chest-to-Bar Pull-up"),
        ("סנאץ' באלאנס", "Snatch Balance"),
        ("אוברהד סקוואט", "Overhead Squat"),
        ("кеттлбелл свинг", "Kettlebell Swing"),
        ("оверхед сквот", "Overhead Squat"),
        ("клин энд джерк", "Clean and Jerk"),
    ],
)
def test_lookup_reads_a_name_spelled_as_it_sounds(written: str, name: str) -> None:
    found = lookup(written)
    assert found is not None and found.name == name, written


@pytest.mark.parametrize(
    ("written", "name"),
    [
        ("לחיצת כתפיים עם משקולות יד", "Dumbbell Shoulder Press"),
        ("חתירה עם משקולת יד", "Dumbbell Row"),
        ("rows with a dumbbell", "Dumbbell Row"),
        ("lunges with dumbbells", "Dumbbell Lunge"),
        ("בנץ' פרס עם משקולות", "Dumbbell Bench Press"),
        ("snatch with a kettlebell", "Kettlebell Snatch"),
        ("жим стоя с гантелями", "Dumbbell Shoulder Press"),
        ("присед с гирей", "Goblet Squat"),
        # no variant for the implement: the movement itself
        ("run with a plate", "Run"),
        ("ריצה עם אפוד", "Run"),
        ("бег с жилетом", "Run"),
    ],
)
def test_an_implement_said_apart_finds_its_variant(written: str, name: str) -> None:
    found = lookup(written)
    assert found is not None and found.name == name, written


@pytest.mark.parametrize(
    ("written", "name"),
    [
        ("back extentions", "Back Extension"),
        ("deadlfit", "Deadlift"),
        ("thrusers", "Thruster"),
        ("wallbals", "Wall Ball"),
        ("toes to bra", "Toes-to-Bar"),
    ],
)
def test_a_typo_of_one_letter_finds_the_movement(written: str, name: str) -> None:
    found = lookup(written)
    assert found is not None and found.name == name, written


@pytest.mark.parametrize(
    "written",
    # workout names, days, short words and implements alone are not guessed into movements
    ["Barbara", "Elizabeth", "Chelsea", "Thursday", "Monday", "rwo", "DB", "barbell",
     "משקולות", "гантели", "Kelly", "Nicole"],
)  # fmt: skip
def test_names_that_are_not_movements_are_not_guessed(written: str) -> None:
    assert lookup(written) is None, lookup(written)


def test_the_one_movement_inside_a_longer_name() -> None:
    found = lookup("Pause front squat pause at the bottom")
    assert found is not None and found.name == "Front Squat"


@pytest.mark.parametrize(
    "written",
    # a movement of their own, named with a word of another's: never guessed into that one
    ["Sled sprint", "Anderson squat", "zombie squats", "Snatch complex", "Deadlift day"],
)
def test_a_movement_of_its_own_is_not_read_as_the_one_inside(written: str) -> None:
    assert lookup(written) is None, lookup(written)
