"""The parser's general safety nets: what holds for forms no writer listed.

A net reads again what the ordinary reading could not name, with the words around a known
movement set aside. Each test is one net; its cases are neighbours in English, Hebrew and
Russian that no rule names one by one.
"""

from __future__ import annotations

from typing import Any

import pytest

from spotter.domain.workout_parser import movements_of, parse_workout
from spotter.domain.workout_parser.cores import known_core
from tests.support.workout_metrics import library_name, named_movements

# -- a name unknown as written shrinks to its known core ------------------------------------------


@pytest.mark.parametrize(
    ("name", "core"),
    [
        ("wall balls FT", "wall balls"),
        ("RFT thrusters", "thrusters"),
        ("burpees 🔥", "burpees"),
        ("and T2B", "T2B"),
        ("and a run", "run"),
        ("the rower", "rower"),
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
    assert named_movements(text) == names


# -- no line is lost: a line that names nothing known is read again in pieces --------------------


def _sections(text: str) -> list[dict[str, Any]]:
    return [s for p in parse_workout(text)["parts"] for s in p["sections"] if s["movements"]]


@pytest.mark.parametrize(
    "text",
    [
        "Sweaty Tuesday FT (cap 20'): 40 WB 9/6, 30 KBS 24/16, 20 burpees",
        "Потогонка FT (cap 20'): 40 WB 9/6, 30 KBS 24/16, 20 бёрпи",
        "סיוט של שלישי FT (cap 20'): 40 WB 9/6, 30 KBS 24/16, 20 ברפי",
    ],
)
def test_a_name_before_a_format_and_its_cap_leaves_the_list_whole(text: str) -> None:
    [section] = _sections(text)
    assert (section["format"], section["timeCapSeconds"]) == ("for_time", 1200)
    assert named_movements(text) == ["Wall Ball", "Kettlebell Swing", "Burpee"]
    assert section["movements"][0]["load"] == "9/6"


@pytest.mark.parametrize(
    "text",
    [
        "Score today: 21-15-9 thrusters and pull-ups",
        "ניקוד היום: 21-15-9 תראסטרים ומתח",
        "Счёт дня: 21-15-9 трастеры и подтягивания",
    ],
)
def test_a_label_before_a_colon_that_opens_a_workout_is_not_its_note(text: str) -> None:
    [section] = _sections(text)
    assert (section["format"], section["repScheme"]) == ("for_time", "21-15-9")
    assert named_movements(text) == ["Thruster", "Pull-up"]


@pytest.mark.parametrize(
    "text",
    [
        "Deadlift 5-5-3-3-1-1 (rest 3 min between sets)",
        "דדליפט 5-5-3-3-1-1 (rest 3 min between sets)",
        "Становая тяга 5-5-3-3-1-1 (отдых 3 мин между подходами)",
    ],
)
def test_a_remark_in_a_trailing_bracket_leaves_the_lift_and_is_kept(text: str) -> None:
    [section] = _sections(text)
    [lift] = section["movements"]
    assert (library_name(lift["name"]), lift["repScheme"]) == ("Deadlift", "5-5-3-3-1-1")
    assert "3" in section.get("note", "") + lift.get("note", "")


@pytest.mark.parametrize(
    "text",
    [
        "♂60 / ♀40 kg — 3 rounds for time: 12 push jerks, 12 front squats, 12 thrusters",
        "♂60 / ♀40 кг — 3 раунда на время: 12 толчковых швунгов, 12 фронтальных приседаний,"
        " 12 трастеров",
        "♂60 / ♀40 ק\"ג — 3 סבבים לזמן: 12 פוש ג'רק, 12 פרונט סקוואט, 12 תראסטרים",
    ],
)
def test_a_load_before_the_format_is_the_load_of_its_lifts(text: str) -> None:
    [section] = _sections(text)
    assert (section["format"], section["rounds"]) == ("for_time", 3)
    assert named_movements(text) == ["Push Jerk", "Front Squat", "Thruster"]
    assert {m.get("load") for m in section["movements"]} == {"60/40kg"}


@pytest.mark.parametrize(
    "text",
    [
        "For time:\n30 thrusters\nScaled: 45/35 lb, jumping pull-ups",
        "For time:\n30 thrusters\nFor time. Scaled: 35/25 + ring rows",
        "For time:\n30 thrusters\nМасштабирование: 30/20 кг, прыжковые подтягивания",
    ],
)
def test_what_a_note_word_heads_is_not_read_again_as_movements(text: str) -> None:
    assert named_movements(text) == ["Thruster"]


# -- a header that carries a clock and/or a shared load -------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "4 rds (KB 24/16): 10 goblet squats, 15 KBS, 10 push-ups",
        "4 סבבים (KB 24/16): 10 גובלט סקוואט, 15 סווינג, 10 שכיבות סמיכה",
        "4 раунда (KB 24/16): 10 гоблет приседаний, 15 махов гирей, 10 отжиманий",
    ],
)
def test_an_implements_load_in_the_header_is_given_to_the_movements_using_it(text: str) -> None:
    [section] = _sections(text)
    assert (section["format"], section["rounds"]) == ("rounds", 4)
    assert [m.get("load") for m in section["movements"]] == ["24/16", "24/16", None]


@pytest.mark.parametrize(
    "text",
    [
        "3 RFT w/ DBs 22.5/15kg — 400m run, 12 DB box step-overs, 10 DB snatches",
        "3 RFT with DBs 22.5/15kg: 400m run, 12 DB box step-overs, 10 DB snatches",
    ],
)
def test_a_load_said_with_its_implement_after_the_format_is_that_implements(text: str) -> None:
    [section] = _sections(text)
    assert (section["format"], section["rounds"]) == ("for_time", 3)
    assert [m.get("load") for m in section["movements"]] == [None, "22.5/15kg", "22.5/15kg"]


@pytest.mark.parametrize(
    ("text", "names"),
    [
        (
            "Clean complex E2:30 x 5 @ 70%: power clean + hang clean + split jerk",
            ["Power Clean", "Hang Clean", "Split Jerk"],
        ),
        (
            "Комплекс рывка E2:30 x 5 @ 70%: тяга рывковая + рывок с виса + присед над головой",
            ["Snatch Pull", "Hang Snatch", "Overhead Squat"],
        ),
        (
            "קומפלקס קלין E2:30 x 5 @ 70%: פאוור קלין + האנג קלין + ספליט ג'רק",
            ["Power Clean", "Hang Clean", "Split Jerk"],
        ),
    ],
)
def test_a_clock_and_percent_after_a_heading_are_the_complexs(text: str, names: list[str]) -> None:
    [section] = _sections(text)
    assert (section["format"], section["intervalSeconds"], section["rounds"]) == ("emom", 150, 5)
    assert named_movements(text) == names
    assert [m.get("percent") for m in section["movements"]] == [70.0] * 3


@pytest.mark.parametrize(
    "text",
    [
        "Complex: 1 power clean + 2 front squats + 1 push jerk — every 90 sec x 8, start 60%",
        "Power Clean + Hang Clean + Split Jerk\nevery 90 sec x 8 @ 60% of your C&J 1RM",
        "Комплекс: 1 взятие на грудь + 2 фронтальных приседа + 1 швунг — каждые 90 сек х 8, 60%",
    ],
)
def test_a_clock_said_after_the_lifts_is_their_sections_and_its_percent_theirs(
    text: str,
) -> None:
    [section] = _sections(text)
    assert (section["format"], section["intervalSeconds"], section["rounds"]) == ("emom", 90, 8)
    assert [m.get("percent") for m in section["movements"]] == [60.0] * 3


@pytest.mark.parametrize(
    "text",
    [
        "For time:\n21 thrusters\n21 pull-ups\nNote: stay under 80% effort",
        "AMRAP 12 @ 70%: 10 burpees, 10 box jumps",
    ],
)
def test_a_percent_in_a_note_is_not_given_to_movements_that_are_no_barbell_lifts(
    text: str,
) -> None:
    assert all("percent" not in m for m in movements_of(parse_workout(text)))


# -- program jargon, a guessed name and a remark after the last comma -----------------------------


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Strict press 3x3 @ 90% TM, then BBB 5x10 DB rows", ["Strict Press", "Dumbbell Row"]),
        ("Жим стоя 3x3 @ 90% TM, затем BBB 5x10 DB rows", ["Strict Press", "Dumbbell Row"]),
        ("לחיצת כתפיים 3x3 @ 90% TM", ["Strict Press"]),
    ],
)
def test_a_strength_programs_words_beside_a_lift_are_no_part_of_its_name(
    text: str, names: list[str]
) -> None:
    assert named_movements(text) == names


def test_a_core_known_as_written_wins_over_a_guess_at_the_whole_name() -> None:
    assert known_core("BBB DB rows") == "DB rows"


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("5 rounds for time of:\n1 legless rope climb, 15 ft.\n10 ring dips", "Legless Rope Climb"),
        ("5 סבבים לזמן:\n2 טיפוסי חבל, 4.5 מ'.\n10 מקבילים", "Rope Climb"),
        ("5 раундов на время:\n2 лазания по канату, 4,5 м.\n10 отжиманий на брусьях", "Rope Climb"),
    ],
)
def test_a_remark_after_a_counted_movements_last_comma_leaves_the_movement(
    text: str, name: str
) -> None:
    assert named_movements(text)[0] == name
