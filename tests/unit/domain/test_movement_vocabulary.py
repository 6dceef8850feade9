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
