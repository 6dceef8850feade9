"""The coach-text parser: every fixture text reads to its expected workout, plus the rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spotter.domain.workout_parser import movements_of, parse_workout

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "coach_texts"
TEXTS = sorted(FIXTURES.glob("*.txt"))


def test_there_are_at_least_fifteen_coach_texts() -> None:
    assert len(TEXTS) >= 15
    assert all(t.with_suffix(".json").exists() for t in TEXTS)


@pytest.mark.parametrize("text", TEXTS, ids=lambda p: p.stem)
def test_fixture_reads_to_its_expected_workout(text: Path) -> None:
    expected = json.loads(text.with_suffix(".json").read_text(encoding="utf-8"))
    assert parse_workout(text.read_text(encoding="utf-8")) == expected


def _read(name: str) -> dict:  # type: ignore[type-arg]
    return parse_workout((FIXTURES / name).read_text(encoding="utf-8"))


def test_parts_keep_their_clock_window_and_optional_flag() -> None:
    parts = _read("02_full_day.txt")["parts"]
    assert [p["name"] for p in parts] == ["Warm-up", "Lift", "Conditioning", "Optional Successory"]
    assert parts[0]["window"] == {"start": "0:00", "end": "12:00"}
    assert [p["optional"] for p in parts] == [False, False, False, True]
    assert parts[1]["sections"][0]["note"] == "Rest 2 minutes between sets"


def test_percentages_sets_and_reps() -> None:
    lift = _read("02_full_day.txt")["parts"][1]["sections"][0]
    assert lift["format"] == "strength"
    assert lift["movements"][0] | {"key": None} == {
        "key": None,
        "mention": "Back squat 5x3 @ 80%",
        "name": "Back squat",
        "sets": 5,
        "reps": 3,
        "percent": 80.0,
    }


def test_a_complex_splits_into_its_pieces_sharing_sets_and_percent() -> None:
    section = _read("04_complex.txt")["parts"][0]["sections"][0]
    assert (section["format"], section["rounds"], section["intervalSeconds"]) == ("emom", 6, 120)
    assert section["complex"] is True
    assert [(m["name"], m["reps"], m["percent"]) for m in section["movements"]] == [
        ("power clean", 1, 70.0),
        ("front squats", 2, 70.0),
    ]
    weightlifting = _read("09_weightlifting.txt")["parts"][0]["sections"][1]["movements"]
    assert [(m["name"], m["sets"], m["reps"]) for m in weightlifting] == [
        ("clean", 5, 1),
        ("jerk", 5, 1),
    ]


def test_for_time_with_rep_scheme_and_cap() -> None:
    fran = _read("01_fran.txt")
    section = fran["parts"][0]["sections"][0]
    assert fran["title"] == "Fran"
    assert (section["format"], section["repScheme"], section["timeCapSeconds"]) == (
        "for_time",
        "21-15-9",
        480,
    )


def test_distances_calories_heights_and_loads() -> None:
    movements = movements_of(_read("07_tabata_mixed.txt")) + movements_of(_read("03_emom.txt"))
    by_name = {m["name"]: m for m in movements}
    assert by_name["run"]["distance"] == "400m"
    assert by_name["KB swings"]["load"] == "24/16kg"
    assert by_name["box jumps"]["height"] == "24/20in"
    assert by_name["row"]["calories"] == "12/9"
    assert by_name["plank"]["seconds"] == 30


def test_hebrew_movements_and_units() -> None:
    parsed = _read("05_hebrew.txt")
    assert [p["name"] for p in parsed["parts"]] == ["חימום", "כוח", "מטקון"]
    movements = {m["name"]: m for m in movements_of(parsed)}
    assert movements["ריצה"]["distance"] == "200m"
    assert movements["חתירה"]["calories"] == "15"
    assert movements["דדליפט"] | {"key": None, "mention": None} == {
        "key": None,
        "mention": None,
        "name": "דדליפט",
        "sets": 5,
        "reps": 3,
        "percent": 80.0,
    }
    assert parsed["parts"][2]["sections"][0]["durationSeconds"] == 720


def test_movement_keys_are_part_section_position() -> None:
    keys = [m["key"] for m in movements_of(_read("02_full_day.txt"))]
    assert keys == ["1.1.1", "1.1.2", "1.1.3", "2.1.1", "3.1.1", "3.1.2", "3.1.3", "4.1.1"]


def test_abbreviations_with_digits_stay_movement_names() -> None:
    names = [m["name"] for m in movements_of(_read("08_every.txt"))]
    assert names == ["HSPU", "T2B"]


def test_text_without_headers_is_one_part() -> None:
    parsed = parse_workout("10 burpees\n20 sit-ups")
    assert [p["name"] for p in parsed["parts"]] == ["Workout"]
    assert [m["reps"] for m in movements_of(parsed)] == [10, 20]


def test_buy_in_and_cash_out_are_sections_of_the_part() -> None:
    parts = _read("17_buyin_cashout.txt")["parts"]
    assert [p["name"] for p in parts] == ["Metcon"]
    sections = parts[0]["sections"]
    assert [(s["format"], s.get("note")) for s in sections] == [
        ("other", "Buy-in"),
        ("amrap", None),
        ("other", "Cash-out"),
    ]
    assert sections[2]["movements"][0]["distance"] == "800m"


def test_advice_lines_are_notes_and_header_words_are_kept() -> None:
    section = _read("18_hebrew_partner_note.txt")["parts"][0]["sections"][0]
    assert section["note"] == "partner style\nקצב קבוע, לא לעצור"
    assert [m["name"] for m in section["movements"]] == [
        "קפיצות לקופסה",
        "סנאץ' משקולת",
        "ריצה ביחד",
    ]
    assert section["movements"][1]["load"] == "22.5/15kg"
    assert section["movements"][0]["height"] == "60/50cm"


def test_a_short_first_line_before_any_header_is_the_title() -> None:
    assert _read("10_hebrew_mixed.txt")["title"] == "אימון יום שלישי"
    assert _read("06_murph.txt")["title"] == "Murph"  # 'Hero WOD "Murph"': the known name
    assert _read("02_full_day.txt")["title"] is None


def test_any_text_parses_without_error_into_well_formed_parts() -> None:
    lines = [line for text in TEXTS for line in text.read_text(encoding="utf-8").splitlines()]
    odd = [
        "",
        "   ",
        ":",
        "+",
        "@ 80%",
        "5x",
        "x5",
        "AMRAP",
        "EMOM x",
        "1 + 2",
        "(0:00-)",
        "–",
        "100%",
    ]
    # Every line, and every line paired with its neighbours, in both orders.
    samples = odd + lines + [a + "\n" + b for a, b in zip(lines, reversed(lines), strict=True)]
    for sample in samples:
        parsed = parse_workout(sample)
        for part in parsed["parts"]:
            assert part["name"] and isinstance(part["optional"], bool)
            for section in part["sections"]:
                assert section["format"] in {
                    "amrap",
                    "emom",
                    "for_time",
                    "rounds",
                    "strength",
                    "tabata",
                    "other",
                }
                for movement in section["movements"]:
                    assert movement["name"].strip() and movement["mention"].strip(), sample
