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


def _moves(text: str) -> list[tuple[Any, ...]]:
    return [
        (m["name"], m.get("reps"), m.get("load"), m.get("distance"))
        for m in movements_of(parse_workout(text))
    ]


# -- everything on one line ---------------------------------------------------------------------


def test_a_title_a_format_and_movements_on_one_line_with_no_separator_after_the_format() -> None:
    parsed = parse_workout("Eva: 5 RFT 800m run, 30 KBS 2/1.5 pood, 30 pull-ups")
    assert parsed["title"] == "Eva"
    section = _only_section("Eva: 5 RFT 800m run, 30 KBS 2/1.5 pood, 30 pull-ups")
    assert (section["format"], section["rounds"]) == ("for_time", 5)
    assert _moves("Eva: 5 RFT 800m run, 30 KBS 2/1.5 pood, 30 pull-ups") == [
        ("run", None, None, "800m"),
        ("KBS", 30, "2/1.5pood", None),
        ("pull-ups", 30, None, None),
    ]


def test_movements_written_without_separators_split_before_each_count() -> None:
    assert _moves("Cindy 20 min AMRAP 5 pull-ups 10 push-ups 15 squats") == [
        ("pull-ups", 5, None, None),
        ("push-ups", 10, None, None),
        ("squats", 15, None, None),
    ]


def test_plus_separates_movements_that_carry_no_counts() -> None:
    section = _only_section("Lynne – 5 rounds, max reps: bench press BW + pull-ups")
    assert (section["format"], section["rounds"]) == ("rounds", 5)
    assert [(m["name"], m.get("load"), m.get("max")) for m in section["movements"]] == [
        ("bench press", "BW", True),
        ("pull-ups", None, True),
    ]


def test_slashes_separate_lifts_with_bodyweight_loads() -> None:
    assert _moves("Linda 10-9-8-7-6-5-4-3-2-1 of DL 1.5xBW / bench BW / clean 0.75xBW") == [
        ("DL", None, "1.5xBW", None),
        ("bench", None, "BW", None),
        ("clean", None, "0.75xBW", None),
    ]


def test_a_format_line_naming_movements_without_counts_reads_them() -> None:
    section = _only_section("Fran 21-15-9 thrusters and pull-ups")
    assert section["repScheme"] == "21-15-9"
    assert [m["name"] for m in section["movements"]] == ["thrusters", "pull-ups"]


def test_clean_and_jerk_is_one_movement_however_it_is_joined() -> None:
    assert [m[0] for m in _moves("For time: 30 clean & jerks, 30 burpees")] == [
        "clean & jerks",
        "burpees",
    ]


def test_then_inside_a_line_starts_the_next_section() -> None:
    parsed = parse_workout("5 min row, then 3 rounds: 10 push-ups, 10 squats")
    formats = [(s["format"], s.get("rounds")) for s in parsed["parts"][0]["sections"]]
    assert formats == [("other", None), ("rounds", 3)]


# -- shorthand and clocks -----------------------------------------------------------------------


def test_interval_clocks_written_every_way() -> None:
    for text, interval, rounds in (
        ("E2:30 x 5\n1 clean", 150, 5),
        ("E90s x 8\n3 HSPU", 90, 8),
        ("Every 2:00 for 10 min\n3 front squats", 120, 5),
        ("Every 2:00 for 10\n3 front squats", 120, 5),
        ("Every 4 min for 4\n400m run", 240, 4),
        ("EMOTM 12\n5 burpees", 60, 12),
        ("E3MOM x 4\n10 burpees", 180, 4),
        ("8 x (1:00 on / 1:00 off)\nmax cal bike", 120, 8),
    ):
        section = _only_section(text)
        assert (section["format"], section["intervalSeconds"], section["rounds"]) == (
            "emom",
            interval,
            rounds,
        ), text


def test_x3_and_3x_alone_are_rounds_but_3x10_is_a_lift() -> None:
    assert _only_section("x3\n10 push-ups")["rounds"] == 3
    assert _only_section("3x\n10 push-ups")["rounds"] == 3
    lift = _only_movement("3 x 10 strict T2B")
    assert (lift["sets"], lift["reps"]) == (3, 10)


def test_number_words_count_rounds() -> None:
    assert _only_section("Five rounds for time of:\n10 burpees")["rounds"] == 5


def test_not_for_time_is_rounds() -> None:
    assert _only_section("3 rounds NOT for time: 10 ring rows")["format"] == "rounds"


def test_an_alternative_after_a_slash_is_the_movements_note() -> None:
    movement = _only_movement("50 DU/SU")
    assert (movement["name"], movement["note"]) == ("DU", "or SU")


def test_per_side_counts() -> None:
    for text, reps in (("10/10 single-arm DB row", 10), ("5 each side Cossack squats", 5)):
        movement = _only_movement(text)
        assert (movement["reps"], movement["perSide"]) == (reps, True), text
    lunge = _only_movement("Bulgarian split squat 3x8/leg")
    assert (lunge["sets"], lunge["reps"], lunge["perSide"]) == (3, 8, True)


def test_distance_repeats_are_sets() -> None:
    movement = _only_movement("Run 400m x 6")
    assert (movement["sets"], movement["distance"]) == (6, "400m")


# -- strength notation --------------------------------------------------------------------------


def test_percent_of_a_named_lift_and_a_range_note() -> None:
    movement = _only_movement("Front squat 3x3 @ 70-75% of back squat 1RM")
    assert (movement["percent"], movement["percentOf"], movement["note"]) == (
        70.0,
        "back squat",
        "70-75%",
    )
    assert "percentOf" not in _only_movement("Push press 5 x 3 @ 80% of 1RM")


def test_tempo_after_at_or_the_word_tempo() -> None:
    assert _only_movement("Back squat 4x6 @ 32X1")["tempo"] == "3-2-X-1"
    assert _only_movement("Back squat 4x6 tempo 3-1-1-0")["tempo"] == "3-1-1-0"


def test_a_line_of_marks_belongs_to_the_lift_above() -> None:
    movement = _only_movement("Back squat\n5 x 3 @ 70%\nTempo 3-1-1-0")
    assert (movement["sets"], movement["reps"], movement["percent"], movement["tempo"]) == (
        5,
        3,
        70.0,
        "3-1-1-0",
    )


def test_a_percent_alone_belongs_to_every_piece_of_the_complex_above() -> None:
    section = _only_section("E2:30 x 5:\n2 hang power snatch + 1 overhead squat\n@ 60-65%")
    assert [m["percent"] for m in section["movements"]] == [60.0, 60.0]


def test_a_complex_with_its_counts_after_the_names() -> None:
    section = _only_section("Power clean + front squat + jerk (1+2+1) x 5 @ 75%")
    assert [(m["name"], m["reps"], m["sets"]) for m in section["movements"]] == [
        ("Power clean", 1, 5),
        ("front squat", 2, 5),
        ("jerk", 1, 5),
    ]


def test_a_rep_max_is_a_lift() -> None:
    section = _only_section("Deadlift 1RM")
    assert (section["format"], section["movements"][0]["reps"]) == ("strength", 1)


def test_build_to_after_the_lifts_name() -> None:
    section = _only_section("Snatch: build to a heavy single (15 min)")
    assert section["format"] == "strength"
    assert [(m["name"], m.get("seconds")) for m in section["movements"]] == [("Snatch", None)]


def test_slashed_rep_scheme_on_a_lift() -> None:
    assert _only_movement("Bench press 5/5/5/5/5 @ 70%")["repScheme"] == "5-5-5-5-5"


# -- loads --------------------------------------------------------------------------------------


def test_loads_per_sex_in_every_order_and_unit() -> None:
    for text, load in (
        ("30 snatches ♂ 60 ♀ 40 kg", "60/40kg"),
        ("12 KB snatches (♀12 / ♂16 kg)", "16/12kg"),
        ("15 DB thrusters (M 22.5 kg / W 15 kg)", "22.5/15kg"),
        ("10 deadlifts 100kg/70kg", "100/70kg"),
        ("10 deadlifts 225#/155#", "225/155lb"),
        ("12 DB push press 2x22,5 kg", "2x22.5kg"),
        ("10 cleans (53/35)", "53/35"),
    ):
        assert _only_movement(text)["load"] == load, text


def test_standards_lines_place_each_load_on_its_implement() -> None:
    text = (
        "For time:\n20 wall-ball shots\n10 hang power cleans\n10 box jumps\n"
        "♀ 14-lb ball to 9 ft, 95-lb barbell, 20-in box\n"
        "♂ 20-lb ball to 10 ft, 135-lb barbell, 24-in box"
    )
    moves = {m["name"]: m for m in movements_of(parse_workout(text))}
    assert (moves["wall-ball shots"]["load"], moves["wall-ball shots"]["height"]) == (
        "20/14lb",
        "10/9ft",
    )
    assert moves["hang power cleans"]["load"] == "135/95lb"
    assert moves["box jumps"]["height"] == "24/20in"


def test_a_load_stated_once_goes_to_the_lifts_not_the_bodyweight_movements() -> None:
    for text in (
        "5 rounds for time:\n12 deadlifts\n9 hang power cleans\n6 push jerks\n10 burpees\n"
        "Barbell: 155/105 lb",
        "4 rounds (155/105 lb):\n12 deadlifts\n9 hang power cleans\n6 push jerks\n10 burpees",
        "5 RFT: 12 DL, 9 HPC, 6 PJ, 155/105 lb\n10 burpees",
    ):
        loads = [(m["name"], m.get("load")) for m in movements_of(parse_workout(text))]
        assert [load for _, load in loads] == ["155/105lb"] * 3 + [None], text


def test_a_bar_facing_burpee_is_not_loaded_by_a_barbell_standard() -> None:
    text = "Every 2 min x 5:\n5 power cleans\n10 burpees over the bar\n♀ 95 lb ♂ 135 lb"
    assert [m.get("load") for m in movements_of(parse_workout(text))] == ["135/95lb", None]


def test_a_load_no_movement_takes_is_a_warning() -> None:
    parsed = parse_workout("AMRAP 12\n10 burpees\n♀ 35 lb ♂ 50 lb")
    assert parsed["warnings"] == [{"code": "load_not_placed", "text": "50/35lb"}]


# -- Russian, Hebrew, decoration ----------------------------------------------------------------


def test_russian_formats_units_and_cyrillic_times() -> None:
    rounds = _only_section("5 раундов на время:\n400 м бег\n15 махов гирей (24/16 кг)")
    assert (rounds["format"], rounds["rounds"]) == ("for_time", 5)
    assert _moves("5 раундов на время:\n400 м бег\n15 махов гирей (24/16 кг)") == [
        ("бег", None, None, "400m"),
        ("махов гирей", 15, "24/16kg", None),
    ]
    every = _only_section("Каждые 2 минуты x 6 раундов: 250 м гребля")
    assert (every["intervalSeconds"], every["rounds"]) == (120, 6)
    lift = _only_movement("Силовая: присед со штангой 5х5 @ 75%")
    assert (lift["sets"], lift["reps"]) == (5, 5)


def test_hebrew_odd_and_even_minutes_are_slots() -> None:
    text = "EMOM 10 לסירוגין:\nדקה אי-זוגית: 12 קלוריות אופניים\nדקה זוגית: 10 בורפי"
    assert [(m["name"], m.get("calories")) for m in movements_of(parse_workout(text))] == [
        ("אופניים", "12"),
        ("בורפי", None),
    ]


def test_emoji_bullets_direction_marks_and_hashtags_are_not_movements() -> None:
    text = "🔥 WOD 🔥\n⏱️ 15' AMRAP\n▪️ 10 T2B\n\u200f▪️ 200m run\n#crossfit #wod"
    section = _only_section(text)
    assert (section["format"], section["durationSeconds"]) == ("amrap", 900)
    assert [m["name"] for m in section["movements"]] == ["T2B", "run"]


def test_a_count_before_bodyweight_is_reps_not_a_multiple() -> None:
    movement = _only_movement("15 bodyweight back squats")
    assert (movement["reps"], movement["load"]) == (15, "BW")
    assert _only_movement("Deadlift 3x5 @ 2 x BW")["load"] == "2xBW"


def test_a_marks_line_may_name_the_one_rep_max() -> None:
    movement = _only_movement("B) Deadlift\n3 x 5 @ 80% of 1RM")
    assert (movement["sets"], movement["reps"], movement["percent"]) == (3, 5, 80.0)
