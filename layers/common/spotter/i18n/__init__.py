"""Localized strings for the client, keyed as the web app's catalogs are (`agent.errors.<code>`)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any, Literal, get_args

Locale = Literal["en", "he", "ru"]
LOCALES: tuple[Locale, ...] = get_args(Locale)
DEFAULT_LOCALE: Locale = "en"


@cache
def catalog(locale: Locale) -> dict[str, str]:
    text = (Path(__file__).parent / f"{locale}.json").read_text(encoding="utf-8")
    data: dict[str, str] = json.loads(text)
    return data


def translate(key: str, locale: Locale) -> str:
    """The string for `key` in `locale`, falling back to English, then to the key itself."""
    return catalog(locale).get(key) or catalog(DEFAULT_LOCALE).get(key) or key


def error_message(code: str, locale: Locale) -> str:
    return translate(f"agent.errors.{code}", locale)


def plural_category(locale: Locale, count: int | float) -> str:
    """CLDR's plural category of `count` in `locale` (`one`, `two`, `few`, `many`, `other`), from
    Babel's copy of the CLDR rules: Russian says 1 / 2–4 / 5–20 / 21 apart, Hebrew has a dual."""
    return str(_babel_locale(locale).plural_form(abs(count)))


@cache
def _babel_locale(locale: Locale) -> Any:
    # imported on first use: its locale data loads once per locale, when a count is first told
    from babel import Locale as BabelLocale

    return BabelLocale.parse(locale)
