"""Stopwords (articles, verbs, calendar words, entity nouns) are stripped in en, he and ru."""

from __future__ import annotations

from spotter.agent.rag.stopwords import query_tokens


def test_english_request_keeps_only_the_names() -> None:
    assert query_tokens("Please book Saar into tomorrow's open gym class at 07:00") == [
        "saar",
        "open",
    ]


def test_hebrew_request_drops_verbs_calendar_words_and_prefixes() -> None:
    assert query_tokens("תרשום את דנה לאימון מחר בבוקר") == ["דנה"]


def test_russian_request_drops_stopwords() -> None:
    assert query_tokens("Запиши Дану на тренировку завтра утром") == ["дану"]


def test_tokens_are_distinct_and_capped() -> None:
    assert query_tokens("fran fran FRAN grace helen diane karen amanda annie nancy cindy") == [
        "fran", "grace", "helen", "diane", "karen", "amanda", "annie", "nancy",
    ]  # fmt: skip


def test_times_dates_and_rep_schemes_are_dropped() -> None:
    assert query_tokens("book Saar at 7am on 2026-12-01, 5x3 at 13:00") == ["saar"]


def test_numbers_and_single_letters_are_dropped() -> None:
    assert query_tokens("5 x 3 @ 80 % back squat") == ["back", "squat"]
