"""The workout's title: a known workout (a benchmark girl, a hero WOD) under its canonical name,
found where a post puts it; an unknown name as written."""

from __future__ import annotations

import pytest

from spotter.domain import movement_vocabulary, named_workouts
from spotter.domain.workout_parser import movements_of, parse_workout
from tests.support.workout_metrics import named_movements


def _title(text: str) -> str | None:
    title: str | None = parse_workout(text)["title"]
    return title


def test_every_alias_names_one_workout_and_no_movement() -> None:
    seen: dict[str, str] = {}
    for workout in named_workouts.WORKOUTS:
        for alias in {named_workouts.compared(a) for a in workout.aliases["en"]
                      + workout.aliases["he"] + workout.aliases["ru"]}:  # fmt: skip
            assert seen.setdefault(alias, workout.name) == workout.name, alias
            assert movement_vocabulary.lookup(alias) is None, alias


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("HELEN\n3 rounds for time:\n400m run\n21 KBS\n12 pull-ups", "Helen"),
        ("helen\n3 rounds for time:\n400m run\n21 KBS\n12 pull-ups", "Helen"),
        ("הלן\n3 סבבים לזמן:\n400 מ' ריצה\n21 קטלבל סווינג", "Helen"),
        ("«Хелен»\n3 раунда на время:\nбег 400 м\n21 мах гирей", "Helen"),
    ],
)
def test_a_known_name_in_any_case_script_or_quotes_is_its_canonical_name(
    text: str, title: str
) -> None:
    assert _title(text) == title


@pytest.mark.parametrize(
    "text",
    [
        "Lumberjack Jr\nFor time:\n20 deadlifts\n400m run",
        "The Chief's Day\nAMRAP 3:\n3 power cleans\n6 push-ups",
        "אימון השף\nלזמן:\n20 דדליפט",
    ],
)
def test_an_unknown_name_stays_as_written(text: str) -> None:
    assert _title(text) == text.splitlines()[0]


@pytest.mark.parametrize(
    "text",
    [
        "Saturday 240914\n\nHelen\n\nThree rounds for time of:\n400m run\n21 KBS\n12 pull-ups",
        "יום שבת\n\nהלן\n\n3 סבבים לזמן:\n400 מ' ריצה\n21 קטלבל סווינג\n12 מתח",
        "Суббота\n\nХелен\n\n3 раунда на время:\nбег 400 м\n21 мах гирей\n12 подтягиваний",
    ],
)
def test_a_name_on_its_own_line_under_a_date_is_the_title_not_a_movement(text: str) -> None:
    parsed = parse_workout(text)
    assert parsed["title"] == "Helen"
    assert len(movements_of(parsed)) == 3 and None not in named_movements(text)


@pytest.mark.parametrize(
    "text",
    [
        "Metcon – HELEN\n3 RFT\n400m run\n21 KBS\n12 pull-ups",
        "Benchmark Friday: HELEN\n3 RFT\n400m run\n21 KBS\n12 pull-ups",
        "אימון בנצ'מרק: הלן\n3 סבבים\n400 מ' ריצה",
        "Бенчмарк пятницы — Хелен\n3 раунда\nбег 400 м",
    ],
)
def test_a_name_after_a_label_is_the_title(text: str) -> None:
    assert _title(text) == "Helen"


@pytest.mark.parametrize(
    "text",
    [
        "Today's benchmark is Fran!\n21-15-9\nthrusters 95/65\npull-ups",
        "היום פראן 🔥\n21-15-9\nתראסטרים 43/30\nמתח",
        "Сегодня у нас Фрэн 😈\n21-15-9\nтрастеры 43/30 кг\nподтягивания",
    ],
)
def test_a_name_inside_a_lead_in_sentence_is_the_title(text: str) -> None:
    assert _title(text) == "Fran"


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ('C) Hero WOD — "Jack"\nAMRAP 20\n10 push press (115/75)\n10 KBS', "Jack"),
        ("diane 21-15-9 DL 225/155 & hspu for time", "Diane"),
        ('היום GRACE 🔥\n30 C&J 60/40 ק"ג לזמן', "Grace"),
        ("Геройский WOD «Джек»\nAMRAP 20\n10 швунгов", "Jack"),
    ],
)
def test_a_name_that_is_also_a_word_counts_where_a_title_stands(text: str, title: str) -> None:
    assert _title(text) == title


@pytest.mark.parametrize(
    "text",
    [
        "Happy birthday jack!\nFor time:\n50 jumping jacks\n400m run",
        "Hope you're ready!\nFor time:\n50 burpees",
        "Warm-up with grace, then:\nAMRAP 10:\n10 burpees",
        "Поздравляем, Диана!\nAMRAP 10:\n10 бёрпи",
    ],
)
def test_a_name_that_is_also_a_word_inside_a_sentence_is_no_title(text: str) -> None:
    assert _title(text) is None


def test_a_name_after_the_first_movements_is_no_title() -> None:
    text = "For time:\n400m run\n21 KBS\nthen Fran: 21-15-9 thrusters, pull-ups"
    assert _title(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "A) Back squat 5x5\nB) Metcon: Fran\n21-15-9 thrusters, pull-ups",
        "A) סקוואט אחורי 5x5\nB) מטקון: פראן\n21-15-9 תראסטרים, מתח",
        "A) Присед 5х5\nB) Меткон: Фрэн\n21-15-9 трастеры, подтягивания",
    ],
)
def test_a_name_alone_below_the_first_movements_is_a_note_not_a_movement(text: str) -> None:
    parsed = parse_workout(text)
    assert parsed["title"] is None
    assert len(movements_of(parsed)) == 3 and None not in named_movements(text)


@pytest.mark.parametrize(
    "text",
    [
        "grace 30 c&j 135/95 for time",
        "גרייס 30 קלין אנד ג'רק 60/40 לזמן",
        "Грейс 30 толчков 60/40 кг на время",
    ],
)
def test_a_name_heading_a_line_of_movements_leaves_them_to_be_read(text: str) -> None:
    parsed = parse_workout(text)
    assert parsed["title"] == "Grace"
    assert named_movements(text) == ["Clean and Jerk"]


@pytest.mark.parametrize(
    "text",
    [
        "Warm-up\n3 rounds:\n20 jumping jack\n10 air squats",
        "חימום\n3 סבבים:\n20 ג'אמפינג ג'קס\n10 סקוואט אוויר",
        "Разминка\n3 раунда:\n20 джампинг джеков\n10 приседаний",
    ],
)
def test_a_name_inside_a_movement_stays_the_movement(text: str) -> None:
    assert _title(text) is None
    assert len(movements_of(parse_workout(text))) == 2
