"""Every error code has a localized client string in every catalog."""

from __future__ import annotations

import pytest

from spotter.errors import ERROR_CODES
from spotter.i18n import LOCALES, catalog, error_message


@pytest.mark.parametrize("locale", LOCALES)
def test_every_error_code_is_translated(locale: str) -> None:
    keys = catalog(locale)  # type: ignore[arg-type]
    missing = sorted(code for code in ERROR_CODES if not keys.get(f"agent.errors.{code}"))
    assert missing == []


def test_catalogs_hold_no_unknown_error_codes() -> None:
    for locale in LOCALES:
        codes = {
            k.removeprefix("agent.errors.")
            for k in catalog(locale)
            if k.startswith("agent.errors.")
        }
        assert codes <= ERROR_CODES, locale


def test_messages_differ_by_locale() -> None:
    assert len({error_message("staff_only", locale) for locale in LOCALES}) == len(LOCALES)
