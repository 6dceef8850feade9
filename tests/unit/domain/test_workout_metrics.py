"""The scorer's section alignment: each expected section is compared with the read section that
holds its movements, so one loss is counted once; a title read wrong is listed among the misses."""

from __future__ import annotations

from typing import Any

from tests.support.workout_metrics import aligned_sections, score_fixtures


def _section(fmt: str, *movements: tuple[str, int | None]) -> dict[str, Any]:
    return {
        "format": fmt,
        "movements": [{"name": n} | ({"reps": r} if r is not None else {}) for n, r in movements],
    }


def test_a_lost_section_does_not_shift_the_sections_after_it() -> None:
    expected = [_section("strength", ("Deadlift", None)), _section("rounds", ("Power Clean", 8))]
    read = [_section("rounds", ("Power Clean", 8))]
    assert aligned_sections(expected, read) == [None, read[0]]


def test_a_section_read_as_two_leaves_the_next_with_its_own_partner() -> None:
    expected = [
        _section("strength", ("Strict Press", None), ("Pull-up", 3)),
        _section("amrap", ("Pistol", 5)),
    ]
    read = [
        _section("strength", ("Strict Press", None)),
        _section("strength", ("Pull-up", 3)),
        _section("amrap", ("Pistol", 5)),
    ]
    assert aligned_sections(expected, read) == [read[0], read[2]]


def test_the_same_lift_twice_pairs_by_its_count() -> None:
    expected = [_section("strength", ("Snatch", 1)), _section("emom", ("Snatch", 2))]
    read = [_section("emom", ("Snatch", 2))]
    assert aligned_sections(expected, read) == [None, read[0]]


def test_a_section_whose_movements_were_not_named_takes_the_section_left_in_its_place() -> None:
    expected = [
        _section("for_time", ("Thruster", None)),
        _section("amrap", ("Burpee", 10)),
        _section("emom", ("Row", None)),
    ]
    read = [
        _section("for_time", ("Thruster", None)),
        _section("amrap", ("burpess", 10)),
        _section("emom", ("Row", None)),
    ]
    assert aligned_sections(expected, read) == read


def test_a_title_read_wrong_is_listed_with_what_was_expected_and_read() -> None:
    fixture = {
        "name": "titled",
        "title": "Lumberjack Jr",
        "text": "Jumberjack Jr\nFor time:\n20 deadlifts",
        "sections": [{"format": "for_time", "movements": [{"name": "Deadlift", "reps": 20}]}],
    }
    score = score_fixtures([fixture])
    assert (score.titles, score.titles_right) == (1, 0)
    assert "titled: title 'Lumberjack Jr' != 'Jumberjack Jr'" in score.misses
