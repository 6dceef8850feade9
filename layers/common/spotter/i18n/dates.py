"""Local dates and times as a person reads them, in en, he and ru: CLDR's patterns through Babel.

Babel is imported on first use (its locale data loads per locale, once): a function that never
formats a date never pays for it.
"""

from __future__ import annotations

from datetime import date, datetime

from spotter.i18n import Locale

# weekday, day, month: CLDR's `MMMd` pattern of each locale with the weekday before it (Hebrew
# writes the month with its preposition: `d בMMM`)
_DAY_PATTERNS: dict[Locale, str] = {"en": "EEE d MMM", "he": "EEE d בMMM", "ru": "EEE d MMM"}


def format_local_date(day: date, locale: Locale) -> str:
    """`Mon 30 Nov` / `יום ב׳ 30 בנוב׳` / `пн 30 нояб.`."""
    from babel.dates import format_date

    return format_date(day, _DAY_PATTERNS[locale], locale=locale)


def format_local_datetime(local: datetime, locale: Locale) -> str:
    """`Mon 30 Nov 13:00` / `יום ב׳ 30 בנוב׳ 13:00` / `пн 30 нояб. 13:00` (24-hour clock)."""
    return f"{format_local_date(local.date(), locale)} {local:%H:%M}"


def format_day_range(first: date, last: date, locale: Locale) -> str:
    """`Nov 1 – 30` / `1–30 בנוב׳` / `1–30 нояб.`: CLDR's interval format for the two days."""
    from babel.dates import format_interval

    return format_interval(first, last, "MMMd", locale=locale)
