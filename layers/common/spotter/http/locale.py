"""The caller's locale: `x-locale`, then `accept-language`, then English."""

from __future__ import annotations

from spotter.i18n import DEFAULT_LOCALE, LOCALES, Locale


def _supported(tag: str) -> Locale | None:
    primary = tag.strip().split("-")[0].split("_")[0].lower()
    # "iw" is the legacy code some browsers still send for Hebrew
    primary = "he" if primary == "iw" else primary
    for locale in LOCALES:
        if locale == primary:
            return locale
    return None


def _weighted(accept_language: str) -> list[tuple[float, int, str]]:
    ranked: list[tuple[float, int, str]] = []
    for index, part in enumerate(accept_language.split(",")):
        tag, _, params = part.partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                quality = 0.0
        if tag.strip() and quality > 0:
            ranked.append((-quality, index, tag))
    return sorted(ranked)


def resolve_locale(x_locale: str | None, accept_language: str | None) -> Locale:
    if x_locale and (locale := _supported(x_locale)):
        return locale
    for _, _, tag in _weighted(accept_language or ""):
        if locale := _supported(tag):
            return locale
    return DEFAULT_LOCALE
