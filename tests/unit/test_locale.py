"""Spec "Locale": x-locale, then accept-language, default en; supported en, he, ru."""

from __future__ import annotations

import pytest

from spotter.http.locale import resolve_locale


@pytest.mark.parametrize(
    ("x_locale", "accept_language", "expected"),
    [
        (None, None, "en"),
        ("he", "ru", "he"),
        ("he-IL", None, "he"),
        ("fr", "ru-RU,ru;q=0.9", "ru"),
        (None, "fr-FR,fr;q=0.9,he;q=0.8,en;q=0.7", "he"),
        (None, "en;q=0.3, ru;q=0.8", "ru"),
        (None, "iw", "he"),
        (None, "de, fr", "en"),
        (None, "ru;q=0", "en"),
        (None, "ru;q=abc, he", "he"),
        ("", "", "en"),
    ],
)
def test_locale_resolution(
    x_locale: str | None, accept_language: str | None, expected: str
) -> None:
    assert resolve_locale(x_locale, accept_language) == expected
