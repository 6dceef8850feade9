"""One grammar rule per test: what a single line (or two) reads to."""

from __future__ import annotations

from typing import Any

from spotter.domain.workout_parser import movements_of, parse_workout


def _only_section(text: str) -> dict[str, Any]:
    sections = [s for p in parse_workout(text)["parts"] for s in p["sections"] if s["movements"]]
    assert len(sections) == 1, sections
    return sections[0]


def _only_movement(text: str) -> dict[str, Any]:
    [movement] = movements_of(parse_workout(text))
    return movement


def test_rep_scheme_after_the_format_belongs_to_the_section() -> None:
    section = _only_section("For Time: 21-15-9\nKBS 24/16kg\nBurpees")
    assert (section["format"], section["repScheme"]) == ("for_time", "21-15-9")


def test_rounds_for_time_abbreviated() -> None:
    section = _only_section("5 RFT\n400m run\n15 OHS 95/65")
    assert (section["format"], section["rounds"]) == ("for_time", 5)


def test_amrap_written_as_minutes_first_with_a_hyphen() -> None:
    section = _only_section("15-minute AMRAP:\n3 wall walks")
    assert (section["format"], section["durationSeconds"]) == ("amrap", 900)


def test_every_two_minutes_for_five_rounds() -> None:
    section = _only_section("Every 2:00 x 5\n250m row")
    assert (section["format"], section["intervalSeconds"], section["rounds"]) == ("emom", 120, 5)


def test_every_n_minutes_for_m_minutes_counts_rounds() -> None:
    section = _only_section("Every 2 min for 10 min\n10 burpees")
    assert (section["intervalSeconds"], section["rounds"]) == (120, 5)


def test_odd_even_slots_are_stripped_from_names() -> None:
    names = [
        m["name"] for m in movements_of(parse_workout("EMOM 16\nOdd: 12 cal row\nEven: 10 burpees"))
    ]
    assert names == ["row", "burpees"]


def test_load_without_unit_and_with_pood() -> None:
    assert _only_movement("12 wall balls 20/14")["load"] == "20/14"
    assert _only_movement("21 KB swings (1.5/1 pood)")["load"] == "1.5/1pood"


def test_two_dumbbells_in_kilos() -> None:
    assert _only_movement("8 DB thrusters (2x22.5/15kg)")["load"] == "2x22.5/15kg"


def test_bodyweight_loads() -> None:
    assert _only_movement("For time:\nDeadlift, 1.5 x BW")["load"] == "1.5xBW"


def test_rpe_and_rep_range_become_the_movement_note() -> None:
    assert _only_movement("Bench press 4x6 @ RPE 8")["note"] == "RPE 8"
    movement = _only_movement("3-5 strict HSPU")
    assert (movement["name"], movement.get("reps"), movement["note"]) == (
        "strict HSPU",
        None,
        "3-5 reps",
    )


def test_sets_of_a_hold() -> None:
    movement = _only_movement("3x30s side plank each side")
    assert (movement["name"], movement["sets"], movement["seconds"]) == ("side plank", 3, 30)


def test_hebrew_sets_of_reps() -> None:
    movement = _only_movement("לחיצת חזה 5 סטים של 5 חזרות @ 75%")
    assert (movement["name"], movement["sets"], movement["reps"]) == ("לחיצת חזה", 5, 5)


def test_hebrew_unit_letters_inside_a_word_are_not_a_unit() -> None:
    assert _only_section("כל 90 שניות x 6: 2 קלין + 1 ג'רק @ 75%")["movements"][0]["name"] == "קלין"


def test_death_by_is_an_emom_of_its_movement() -> None:
    section = _only_section("Death by thrusters (40/30kg)")
    assert (section["format"], section["intervalSeconds"]) == ("emom", 60)
    assert section["movements"][0]["load"] == "40/30kg"


def test_build_to_a_heavy_lift_is_a_strength_section() -> None:
    section = _only_section("Build to a heavy 3-rep back squat in 15 min")
    assert section["format"] == "strength"
    assert section["movements"][0]["name"] == "back squat"


def test_a_quantity_piece_rejoins_the_movement_before_it() -> None:
    movement = _only_movement("30 kettlebell swings, 2 pood")
    assert (movement["mention"], movement["load"]) == ("30 kettlebell swings, 2 pood", "2pood")


def test_thousands_are_one_number() -> None:
    assert _only_movement('1,000 box step-ups (20" box)')["reps"] == 1000


def test_semicolons_separate_parts_on_one_line() -> None:
    parts = parse_workout("Strength: Front Squat 5-5-5 @ 70%; Metcon: 10 min AMRAP; 5 pull-ups")
    assert [p["name"] for p in parts["parts"]] == ["Strength", "Metcon"]


def test_a_header_then_another_is_one_section() -> None:
    section = _only_section("All for time:\n5 rounds of:\n10 thrusters")
    assert (section["format"], section["rounds"]) == ("for_time", 5)


def test_a_lift_on_the_first_line_is_a_movement_not_the_title() -> None:
    parsed = parse_workout("Deadlift 5-5-5-3-3-3\nBuild to a heavy triple across the sets")
    assert parsed["title"] is None
    assert [m["name"] for m in movements_of(parsed)] == ["Deadlift"]


def test_a_dated_first_line_is_the_title() -> None:
    assert parse_workout("Monday 3/2\nAMRAP 10\n10 burpees")["title"] == "Monday 3/2"
