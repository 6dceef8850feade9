"""What a person reads about a tool call, in their language: the action's title, a one-line
summary of its result, and the labels of a confirmation card. The one owner of that text, so the
dev console, the AI SDK history and MCP clients say the same thing about a call.

The words are data, one catalog per locale (`en.json`, `he.json`, `ru.json` beside this module),
keyed by each declared action (`router.action`; a test holds every action of the catalog to a
title in every locale):

- `tools`: `[title, segment, ...]`. A segment is a template over the call's output: `{path}` is
  the value at a dotted path, `{path|format}` formats it. The summary is the segments that could
  be filled, joined by ` · `: a segment naming a missing, empty or null value is left out, so a
  summary never shows a placeholder, a key or `None`.
- formats: a noun of `nouns` (the count of a list, or a number, in the locale's plural form,
  chosen by CLDR's rules through Babel; a noun's optional `"0"` form says zero, otherwise a zero
  count is left out), `status` (an enum value in words, from `statuses`), `pct` (a fraction as a
  percentage), `period` (`{from, to}` as a localized day range), `names` (a list of names as the
  locale lists them). A plain `{path}` shows text as it is, an ISO date as the locale's day and
  an ISO instant in the gym's time zone.
- `errors`: a failed call's code in words (a declined call with its person's reason).
- `fields`, `consequences`, `values`: a card's labels; an argument or change field the catalog
  does not name is spelled out from its name (`delayHours` → "Delay hours"), never shown raw.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from functools import cache
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from spotter.i18n import DEFAULT_LOCALE, Locale, plural_category
from spotter.i18n.dates import format_day_range, format_local_date, format_local_datetime

SEPARATOR = " · "
_PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_.]+)(?:\|([a-z_]+))?\}")
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_ISO_INSTANT = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_TEXT_LIMIT = 80


@dataclass(frozen=True)
class Voice:
    """Whom a summary is for: their language, the gym's clock, and their role (what they may read
    of a call's output: `domain.form_compliance.withhold_health_answers`; None reads least)."""

    locale: Locale
    tz: ZoneInfo
    role: str | None = None

    @classmethod
    def of(cls, locale: Locale, timezone: str, role: str | None = None) -> Voice:
        return cls(locale, ZoneInfo(timezone), role)


@cache
def catalog(locale: Locale) -> dict[str, dict[str, Any]]:
    text = (Path(__file__).parent / f"{locale}.json").read_text(encoding="utf-8")
    data: dict[str, dict[str, Any]] = json.loads(text)
    return data


def _entry(section: str, key: str, locale: Locale) -> Any:
    """The locale's entry, else English's: a catalog behind by a key still says something."""
    found = catalog(locale)[section].get(key)
    return found if found is not None else catalog(DEFAULT_LOCALE)[section].get(key)


def title(router: str, action: str, locale: Locale) -> str:
    entry = _entry("tools", f"{router}.{action}", locale)
    return str(entry[0]) if entry else spelled(action, locale)


def spelled(name: str, locale: Locale) -> str:
    """A field or action the catalog does not name, as words: `delayHours` → `Delay hours`."""
    words = _CAMEL.sub(" ", name).replace("_", " ").strip().lower()
    return words[:1].upper() + words[1:]


def field_label(name: str, locale: Locale) -> str:
    """A field's label; a change named by what it changes (a class's own label, as a day's
    set_day_workouts card gives each class) is words already and stays as it is."""
    if not _IDENTIFIER.match(name):
        return name
    found = _entry("fields", name, locale)
    return str(found) if found else spelled(name, locale)


def consequence_text(key: str, locale: Locale) -> str:
    found = _entry("consequences", key, locale)
    return str(found) if found else spelled(key, locale)


def value_text(value: Any, voice: Voice) -> str:
    """An argument's or a change's value as a person reads it (a list as its items)."""
    if isinstance(value, bool) or value is None:
        return str(_entry("values", "none" if value is None else str(value).lower(), voice.locale))
    if isinstance(value, list):
        return ", ".join(value_text(v, voice) for v in value)
    if isinstance(value, dict):
        return ", ".join(
            f"{field_label(k, voice.locale)}: {value_text(v, voice)}" for k, v in value.items()
        )
    if isinstance(value, str) and value in catalog(DEFAULT_LOCALE)["values"]:
        return str(_entry("values", value, voice.locale))
    return _plain(value, voice) or ""


def error_summary(error: dict[str, Any] | None, locale: Locale) -> str:
    code = str((error or {}).get("code") or "failed")
    reason = (error or {}).get("reason")
    if code == "rejected_by_user" and reason:
        return str(_entry("errors", "rejected_with_reason", locale)).format(reason=reason)
    return str(_entry("errors", code, locale) or _entry("errors", "failed", locale))


def summary(
    router: str, action: str, *, ok: bool, output: Any, error: dict[str, Any] | None, voice: Voice
) -> str:
    """One line about a finished call: its result's facts, or why it did not run."""
    if not ok:
        return error_summary(error, voice.locale)
    entry = _entry("tools", f"{router}.{action}", voice.locale) or []
    if not isinstance(output, dict):
        return ""
    filled = (_fill(segment, output, voice) for segment in entry[1:])
    return SEPARATOR.join(text for text in filled if text)


class _Unfilled(Exception):
    """A segment names a value the output does not have: the segment is left out."""


def _fill(segment: str, output: dict[str, Any], voice: Voice) -> str | None:
    def replace(match: re.Match[str]) -> str:
        value = _at(output, match.group(1))
        text = _format(value, match.group(2), voice)
        if not text:
            raise _Unfilled
        return text

    try:
        return _PLACEHOLDER.sub(replace, segment)
    except _Unfilled:
        return None


def _at(output: dict[str, Any], path: str) -> Any:
    value: Any = output
    for part in path.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def _format(value: Any, how: str | None, voice: Voice) -> str | None:
    if value is None or value == "" or value == []:
        return None
    if how is None:
        return _plain(value, voice)
    formatter = _FORMATS.get(how)
    if formatter is not None:
        return formatter(value, voice)
    return _counted(value, how, voice)


def _plain(value: Any, voice: Voice) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, dict):
        return _plain(value.get("name"), voice) if value.get("name") else None
    if not isinstance(value, str):
        return None
    if _ISO_DATE.match(value):
        return format_local_date(date.fromisoformat(value), voice.locale)
    if _ISO_INSTANT.match(value):
        try:
            instant = datetime.fromisoformat(value)
        except ValueError:
            return value[:_TEXT_LIMIT]
        if instant.tzinfo is not None:
            instant = instant.astimezone(voice.tz)
        return format_local_datetime(instant, voice.locale)
    text = value.strip()
    return text if len(text) <= _TEXT_LIMIT else f"{text[: _TEXT_LIMIT - 1]}…"


def _count(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, list):
        return len(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _counted(value: Any, noun: str, voice: Voice) -> str | None:
    count = _count(value)
    forms = _entry("nouns", noun, voice.locale)
    if count is None or not forms:
        return None
    if count == 0 and "0" not in forms:
        return None
    form = forms.get("0") if count == 0 else None
    form = form or forms.get(plural_category(voice.locale, count)) or forms["other"]
    return str(form).replace("#", str(count))


def _status(value: Any, voice: Voice) -> str | None:
    found = _entry("statuses", str(value), voice.locale)
    return str(found) if found else None


def _percent(value: Any, voice: Voice) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    from babel.numbers import format_percent

    return str(format_percent(value, locale=voice.locale))


def _period(value: Any, voice: Voice) -> str | None:
    if not isinstance(value, dict):
        return None
    try:
        first, last = date.fromisoformat(value["from"]), date.fromisoformat(value["to"])
    except (KeyError, TypeError, ValueError):
        return None
    return format_day_range(first, last, voice.locale)


def _names(value: Any, voice: Voice) -> str | None:
    if not isinstance(value, list):
        return None
    names = [str(v.get("name")) if isinstance(v, dict) else str(v) for v in value]
    names = [n for n in names if n and n != "None"]
    if not names:
        return None
    from babel.lists import format_list

    shown = names[:3] + ([f"+{len(names) - 3}"] if len(names) > 3 else [])
    return str(format_list(shown, locale=voice.locale))


_FORMATS: dict[str, Callable[[Any, Voice], str | None]] = {
    "status": _status,
    "pct": _percent,
    "period": _period,
    "names": _names,
}
FORMATS = frozenset(_FORMATS)


def side_effects(router: str, action: str) -> str:
    """`read` or `write`, as declared (an action no longer declared reads as a write)."""
    from spotter.tools.catalog import load_catalog

    spec = load_catalog().specs.get(f"{router}.{action}")
    return spec.side_effects if spec is not None else "write"


def describe_call(
    router: str,
    action: str,
    *,
    voice: Voice,
    finished: bool = False,
    ok: bool = False,
    output: Any = None,
    error: dict[str, Any] | None = None,
) -> dict[str, str]:
    """The words a client shows on a call's card: `title`, `sideEffects` (a client may fold a
    batch's reads into one line) and, once it finished, `summary`."""
    shown = {
        "title": title(router, action, voice.locale),
        "sideEffects": side_effects(router, action),
    }
    if finished:
        shown["summary"] = summary(router, action, ok=ok, output=output, error=error, voice=voice)
    return shown


def present_card(card: dict[str, Any] | None, voice: Voice) -> dict[str, Any] | None:
    """A confirmation card (its wire form) with its words: each consequence as a sentence
    (`consequenceTexts`), each argument and change with a `label`, each argument's value as
    text. The keys and values the client edits and sends back stay as they were."""
    if card is None:
        return None
    locale = voice.locale
    shown = dict(card)
    shown["consequenceTexts"] = [
        consequence_text(k, locale) for k in card.get("consequences") or []
    ]
    shown["arguments"] = [
        {
            **a,
            "label": field_label(str(a.get("field")), locale),
            "text": value_text(a.get("value"), voice),
        }
        for a in card.get("arguments") or []
        if isinstance(a, dict)
    ]
    if card.get("changes"):
        shown["changes"] = [
            {**c, "label": field_label(str(c.get("field")), locale)}
            for c in card["changes"]
            if isinstance(c, dict)
        ]
    return shown


def card_text(router: str, action: str, card: dict[str, Any] | None, voice: Voice) -> str:
    """A confirmation card as plain text, for a client that shows only a message (an MCP
    elicitation, the approval page's summary): the same words as the console's card, never a
    key or the model's prose."""
    locale = voice.locale

    def frame(key: str) -> str:
        return str(_entry("card", key, locale))

    card = card or {}
    lines = [frame("approve").format(title=title(router, action, locale))]
    if card.get("target"):
        lines.append(f"{frame('target')}: {value_text(card['target'], voice)}")
    if card.get("affectedCount") is not None:
        lines.append(frame("affects").format(count=card["affectedCount"]))
    lines += [f"• {consequence_text(k, locale)}" for k in card.get("consequences") or []]
    changes = [c for c in card.get("changes") or [] if isinstance(c, dict)]
    if changes:
        lines.append(f"{frame('changes')}:")
    for change in changes:
        old = f"{value_text(change['old'], voice)} → " if "old" in change else ""
        new = change["new"] if "new" in change else change.get("to")
        label = field_label(str(change.get("field")), locale)
        lines.append(f"  {label}: {old}{value_text(new, voice)}")
    outbound = card.get("outbound")
    if isinstance(outbound, dict):
        lines.append(f"{frame('outbound')}:")
        recipients = outbound.get("recipients") or []
        count = outbound.get("recipientCount", len(recipients))
        named = value_text(recipients, voice) + ("…" if count > len(recipients) else "")
        lines.append(f"  {frame('recipients')} ({count}): {named}")
        lines.append(f"  {frame('subject')}: {outbound.get('subject') or ''}")
        lines.append(str(outbound.get("body") or ""))
    arguments = [a for a in card.get("arguments") or [] if isinstance(a, dict)]
    if arguments:
        lines.append(f"{frame('arguments')}:")
    lines += [
        f"  {field_label(str(a.get('field')), locale)}: {value_text(a.get('value'), voice)}"
        for a in arguments
    ]
    return "\n".join(lines)
