"""The fixture set of benchmark, hero, Open and coach-style texts, scored as a whole."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from spotter.domain.workout_parser import movements_of, parse_workout
from tests.support.workout_metrics import (
    BLIND,
    BLIND2,
    BLIND3,
    HELD_OUT,
    Score,
    load_fixtures,
    score_fixtures,
    seeded_index,
)

FIXTURES = load_fixtures()
HELD_OUT_FIXTURES = load_fixtures(HELD_OUT)
BLIND_FIXTURES = load_fixtures(BLIND)
BLIND2_FIXTURES = load_fixtures(BLIND2)
BLIND3_FIXTURES = load_fixtures(BLIND3)


def test_the_set_holds_at_least_two_hundred_texts_of_every_kind() -> None:
    assert len(FIXTURES) >= 200
    kinds = {f["kind"] for f in FIXTURES}
    assert kinds == {
        "benchmark", "hero", "open", "day", "hebrew", "russian", "oneline", "shorthand",
        "strength", "daily",
    }  # fmt: skip


def test_the_set_reads_at_the_aims() -> None:
    score = score_fixtures(FIXTURES)
    print(score.summary())  # the figures docs/workout_parser.md quotes (pytest -s shows them)
    misses = "\n".join(score.misses)
    assert score.recall >= 0.98, misses
    assert score.precision >= 0.98, misses
    assert score.format_accuracy >= 0.95, misses
    assert score.scheme_accuracy >= 0.95, misses
    assert score.load_accuracy >= 0.95, misses


def _sections(text: str) -> list[dict]:  # type: ignore[type-arg]
    parsed = parse_workout(text)
    assert len(parsed["parts"]) == 1, parsed
    return parsed["parts"][0]["sections"]


def _named(section: dict) -> list[tuple]:  # type: ignore[type-arg]
    index = seeded_index()
    out = []
    for m in section["movements"]:
        match = index.match(m["name"])
        assert match is not None and not match.ambiguous, m
        out.append((match.rows[0]["name"], m.get("reps"), m.get("load"), m.get("distance")))
    return out


def test_jt_one_line_is_a_for_time_scheme_of_three_movements() -> None:
    parsed = parse_workout("JT 21-15-9 for time: HSPU, ring dips, push-ups")
    assert parsed["title"] == "JT"
    [section] = _sections("JT 21-15-9 for time: HSPU, ring dips, push-ups")
    assert (section["format"], section["repScheme"]) == ("for_time", "21-15-9")
    assert _named(section) == [
        ("Handstand Push-up", None, None, None),
        ("Ring Dip", None, None, None),
        ("Push-up", None, None, None),
    ]
    assert [m["mention"] for m in section["movements"]] == ["HSPU", "ring dips", "push-ups"]


def test_randy_header_and_inline_for_time_keep_reps_and_load() -> None:
    text = "RANDY - 75 power snatches for time @ 75/55#"
    assert parse_workout(text)["title"] == "Randy"
    [section] = _sections(text)
    assert section["format"] == "for_time"
    assert _named(section) == [("Power Snatch", 75, "75/55lb", None)]


def test_barbara_rounds_each_for_time_with_rest_as_a_note() -> None:
    text = (
        "Barbara — 5 rounds, each for time: 20 pull-ups, 30 push-ups, 40 sit-ups, 50 squats,"
        " rest 3 min"
    )
    [section] = _sections(text)
    assert (section["format"], section["rounds"]) == ("for_time", 5)
    assert _named(section) == [
        ("Pull-up", 20, None, None),
        ("Push-up", 30, None, None),
        ("Sit-up", 40, None, None),
        ("Air Squat", 50, None, None),
    ]
    assert section["note"].endswith("rest 3 min")


def test_amanda_bare_scheme_is_for_time_with_the_snatch_load() -> None:
    [section] = _sections("Amanda\n9-7-5\nMuscle-ups\nSquat snatches (135/95 lb)")
    assert (section["format"], section["repScheme"]) == ("for_time", "9-7-5")
    assert _named(section) == [
        ("Ring Muscle-up", None, None, None),
        ("Snatch", None, "135/95lb", None),
    ]


def test_hebrew_warm_up_on_one_line_reads_its_three_movements() -> None:
    [section] = _sections("2 סבבים: 400 מטר ריצה, 15 כפיפות בטן, 10 שכיבות סמיכה")
    assert (section["format"], section["rounds"]) == ("rounds", 2)
    assert _named(section) == [
        ("Run", None, None, "400m"),
        ("Sit-up", 15, None, None),
        ("Push-up", 10, None, None),
    ]


def test_lines_with_a_quantity_nothing_could_read_are_reported() -> None:
    parsed = parse_workout("AMRAP 12\n10 burpees\n3 @ 70%")
    assert parsed["unread"] == ["3 @ 70%"]
    assert [m["name"] for m in movements_of(parsed)] == ["burpees"]


def test_scaling_and_standards_lines_are_notes_not_movements() -> None:
    parsed = parse_workout(
        "For time:\n30 thrusters\n♀ 65 lb ♂ 95 lb\nScaled: 45/35 lb, jumping pull-ups"
    )
    section = parsed["parts"][0]["sections"][0]
    assert [m["name"] for m in section["movements"]] == ["thrusters"]
    assert section["note"] == "♀ 65 lb ♂ 95 lb\nScaled: 45/35 lb, jumping pull-ups"


def test_every_mention_is_verbatim_coach_text_across_the_set() -> None:
    for fixture in FIXTURES:
        for movement in movements_of(parse_workout(fixture["text"])):
            assert movement["mention"] in fixture["text"], (fixture["name"], movement)


def test_the_held_out_set_reads_at_the_aims() -> None:
    # Texts written before the parser changed and never tuned against: how a new coach's
    # text reads. A drop here is a regression on text the grammar was not shaped to.
    score = score_fixtures(HELD_OUT_FIXTURES)
    misses = "\n".join(score.misses)
    assert len(HELD_OUT_FIXTURES) >= 50
    assert score.recall >= 0.98, misses
    assert score.format_accuracy >= 0.95, misses


def test_the_first_blind_set_reads_at_the_aims() -> None:
    # 60 texts a judge wrote and scored blind before the second round (docs/workout_parser.md
    # has that first reading); seen since, so a drop here is a regression, not a blind figure.
    score = score_fixtures(BLIND_FIXTURES)
    misses = "\n".join(score.misses)
    assert len(BLIND_FIXTURES) == 60
    assert score.recall >= 0.98, misses
    assert score.format_accuracy >= 0.95, misses


def test_the_second_blind_set_reads_at_the_aims() -> None:
    # 60 texts a second judge wrote and scored blind against the second round's parser, with
    # the judge's strict expectations (tests/fixtures/workout_blind2/README.md says which of
    # them we read otherwise); seen since, so a drop here is a regression.
    score = score_fixtures(BLIND2_FIXTURES)
    misses = "\n".join(score.misses)
    assert len(BLIND2_FIXTURES) == 60
    assert score.recall >= 0.98, misses
    assert score.format_accuracy >= 0.95, misses


def test_the_third_blind_set_reads_at_the_aims() -> None:
    # 60 texts a third judge wrote and scored blind against the third round's parser (main
    # d34e4dc), with the judge's strict expectations (tests/fixtures/workout_blind3/README.md
    # says which of them we read otherwise); seen since, so a drop here is a regression.
    score = score_fixtures(BLIND3_FIXTURES)
    misses = "\n".join(score.misses)
    assert len(BLIND3_FIXTURES) == 60
    assert score.recall >= 0.98, misses
    assert score.format_accuracy >= 0.95, misses


def test_the_parser_doc_quotes_the_current_figures() -> None:
    doc = (Path(__file__).resolve().parents[3] / "docs" / "workout_parser.md").read_text()
    sets = [
        score_fixtures(f)
        for f in (
            FIXTURES, HELD_OUT_FIXTURES, BLIND_FIXTURES, BLIND2_FIXTURES, BLIND3_FIXTURES,
        )
    ]  # fmt: skip

    def row(name: str, cell: Callable[[Score], str]) -> str:
        return f"| {name} | " + " | ".join(cell(score) for score in sets) + " |"

    rows = [
        f"| measure | tuned ({len(FIXTURES)} texts) | held-out ({len(HELD_OUT_FIXTURES)} texts)"
        f" | blind set 1 ({len(BLIND_FIXTURES)} texts) | blind set 2 ({len(BLIND2_FIXTURES)} texts)"
        f" | blind set 3 ({len(BLIND3_FIXTURES)} texts) |",
        row(
            "movements named: recall",
            lambda s: f"{s.recall:.1%} ({s.named}/{s.expected_movements})",
        ),
        row(
            "movements named: precision",
            lambda s: f"{s.precision:.1%} ({s.predicted_movements} read)",
        ),
        row(
            "formats (kind, rounds, clock)",
            lambda s: f"{s.format_accuracy:.1%} ({s.formats_right}/{s.sections} sections)",
        ),
        row(
            "schemes (reps, sets, rep schemes, percent, tempo)",
            lambda s: f"{s.scheme_accuracy:.1%} ({s.schemes_right}/{s.schemes})",
        ),
        row(
            "loads (load, distance, calories, height)",
            lambda s: f"{s.load_accuracy:.1%} ({s.loads_right}/{s.loads})",
        ),
    ]
    missing = [r for r in rows if r not in doc]
    assert not missing, "update docs/workout_parser.md:\n" + "\n".join(rows)


def test_a_benchmark_named_inside_a_part_names_its_section() -> None:
    parsed = parse_workout(
        "Monday\n\nConditioning\nBarbara — 5 rounds, each for time: 20 pull-ups, 30 push-ups,"
        " 40 sit-ups, 50 squats, rest 3 min"
    )
    assert parsed["title"] == "Barbara"  # the known name before any movement, not the day
    [section] = parsed["parts"][0]["sections"]
    assert (section["format"], section["rounds"]) == ("for_time", 5)
    assert section["note"].splitlines()[0] == "Barbara"
    assert len(section["movements"]) == 4


def test_a_long_line_of_counted_movements_is_read_not_kept_as_a_note() -> None:
    text = "For time:\n" + ", ".join(f"{n} burpees" for n in range(1, 12))
    assert [m["reps"] for m in movements_of(parse_workout(text))] == list(range(1, 12))
