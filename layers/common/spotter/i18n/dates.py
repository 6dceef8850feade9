"""Local dates and times as a person reads them, in en, he and ru, without a locale database."""

from __future__ import annotations

from datetime import date, datetime

from spotter.i18n import Locale

_WEEKDAYS: dict[Locale, tuple[str, ...]] = {
    "en": ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"),
    "he": ("יום ב׳", "יום ג׳", "יום ד׳", "יום ה׳", "יום ו׳", "שבת", "יום א׳"),
    "ru": ("пн", "вт", "ср", "чт", "пт", "сб", "вс"),
}
_MONTHS: dict[Locale, tuple[str, ...]] = {
    "en": ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"),
    "he": ("בינו׳", "בפבר׳", "במרץ", "באפר׳", "במאי", "ביוני", "ביולי", "באוג׳", "בספט׳",
           "באוק׳", "בנוב׳", "בדצמ׳"),
    "ru": ("янв.", "февр.", "мар.", "апр.", "мая", "июн.", "июл.", "авг.", "сент.", "окт.",
           "нояб.", "дек."),
}  # fmt: skip


def format_local_date(day: date, locale: Locale) -> str:
    """`Mon 30 Nov` / `יום ב׳ 30 בנוב׳` / `пн 30 нояб.`."""
    return f"{_WEEKDAYS[locale][day.weekday()]} {day.day} {_MONTHS[locale][day.month - 1]}"


def format_local_datetime(local: datetime, locale: Locale) -> str:
    """`Mon 30 Nov 13:00` / `יום ב׳ 30 בנוב׳ 13:00` / `пн 30 нояб. 13:00` (24-hour clock)."""
    return f"{format_local_date(local.date(), locale)} {local:%H:%M}"
