"""Tool summaries read like a person wrote them, in en, he and ru: every declared action has a
title and summary templates in every catalog, every count takes the locale's CLDR plural form, and
no summary shows a key, a placeholder or a null."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from spotter.i18n import LOCALES, Locale, plural_category
from spotter.tools.catalog import load_catalog
from spotter.tools.errors import TOOL_ERROR_CODES
from spotter.tools.summaries import (
    FORMATS,
    Voice,
    catalog,
    consequence_text,
    error_summary,
    field_label,
    present_card,
    summary,
    title,
    value_text,
)

ROOT = Path(__file__).resolve().parents[3]
OUTPUTS: dict[str, Any] = json.loads((ROOT / "tests/fixtures/tool_outputs.json").read_text())
JERUSALEM = ZoneInfo("Asia/Jerusalem")
PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_.]+)(?:\|([a-z_]+))?\}")
# a camelCase key (`sessionIds`), a snake_case one (`bookings_cancelled`), or a leftover brace
RAW_KEY = re.compile(r"\b[a-z]+[A-Z][A-Za-z]*\b|\b[a-z]+_[a-z_]+\b|[{}]|\bNone\b|\bnull\b")
CLDR_FORMS = {"zero", "one", "two", "few", "many", "other", "0"}


def _schema_fields(schema: dict[str, Any]) -> set[str]:
    names: set[str] = set()
    defs = schema.get("$defs", {})
    seen: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item)
            return
        if not isinstance(node, dict):
            return
        ref = node.get("$ref", "").split("/")[-1]
        if ref in defs and ref not in seen:
            seen.add(ref)
            walk(defs[ref])
        for name, sub in (node.get("properties") or {}).items():
            names.add(name)
            walk(sub)
        for key in ("items", "anyOf", "oneOf", "allOf", "additionalProperties"):
            walk(node.get(key))

    walk(schema)
    return names


def _declared_consequences() -> set[str]:
    """Every consequence key a leaf or card builder names: `consequences=`, `card(..., *keys)`,
    and the lists built into a card's consequences."""
    keys: set[str] = set()
    for path in (ROOT / "layers/common/spotter/tools").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            found: list[ast.AST] = []
            if isinstance(node, ast.Call):
                func = node.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
                if name == "card":
                    found += node.args[2:]
                if name == "append" and "consequence" in ast.unparse(func):
                    found += node.args
                found += [k.value for k in node.keywords if k.arg == "consequences"]
            if isinstance(node, ast.Assign) and "consequence" in ast.unparse(node.targets[0]):
                found.append(node.value)
            for value in found:
                for leaf in ast.walk(value):
                    text = leaf.value if isinstance(leaf, ast.Constant) else None
                    if isinstance(text, str) and re.fullmatch(r"[a-z]+(_[a-z]+)*", text):
                        keys.add(text)
    return keys


@pytest.mark.parametrize("locale", LOCALES)
def test_every_declared_action_has_a_title_in_every_locale(locale: Locale) -> None:
    tools = catalog(locale)["tools"]
    missing = sorted(name for name in load_catalog().specs if not (tools.get(name) or [""])[0])
    assert missing == []


@pytest.mark.parametrize("locale", LOCALES)
def test_the_catalogs_name_no_action_that_is_not_declared(locale: Locale) -> None:
    declared = set(load_catalog().specs) | {"undo"}
    assert set(catalog(locale)["tools"]) - declared == set()


@pytest.mark.parametrize("locale", LOCALES)
def test_every_template_formats_with_a_known_format_or_one_of_its_locale_nouns(
    locale: Locale,
) -> None:
    nouns = catalog(locale)["nouns"]
    unknown = {
        (name, how)
        for name, entry in catalog(locale)["tools"].items()
        for segment in entry[1:]
        for _, how in PLACEHOLDER.findall(segment)
        if how and how not in FORMATS and how not in nouns
    }
    assert unknown == set()


@pytest.mark.parametrize("locale", LOCALES)
def test_a_noun_has_a_form_for_each_plural_category_its_locale_uses(locale: Locale) -> None:
    # Hebrew's dual may take the plural ("2 שיעורים"); Russian's few and many never may
    required = {plural_category(locale, n) for n in range(1, 200)} - {"two"}
    for noun, forms in catalog(locale)["nouns"].items():
        assert set(forms) <= CLDR_FORMS, noun
        assert "other" in forms, noun
        varying = {text for form, text in forms.items() if form != "0"}
        if len(varying) > 1:  # a noun whose forms differ has every one its locale uses
            assert required <= set(forms), noun


@pytest.mark.parametrize(
    ("locale", "count", "expected"),
    [
        ("en", 1, "1 class"),
        ("en", 2, "2 classes"),
        ("ru", 1, "1 занятие"),
        ("ru", 3, "3 занятия"),
        ("ru", 5, "5 занятий"),
        ("ru", 21, "21 занятие"),
        ("ru", 22, "22 занятия"),
        ("ru", 11, "11 занятий"),
        ("he", 1, "שיעור אחד"),
        ("he", 2, "שני שיעורים"),
        ("he", 7, "7 שיעורים"),
    ],
)
def test_counts_take_the_locales_plural_form(locale: Locale, count: int, expected: str) -> None:
    text = summary(
        "class_sessions",
        "list",
        ok=True,
        output={"sessions": [{}] * count},
        error=None,
        voice=Voice(locale, JERUSALEM),
    )
    assert text == expected


def test_a_zero_count_says_so_when_the_noun_has_a_zero_form_and_is_left_out_otherwise() -> None:
    voice = Voice("en", JERUSALEM)
    cancelled = {"sessionIds": ["a"], "bookingsCancelled": 0}
    assert summary(
        "class_sessions", "cancel", ok=True, output=cancelled, error=None, voice=voice
    ) == ("1 class · no bookings")
    created = {"sessionIds": ["a", "b"], "skipped": 0}
    assert summary(
        "class_sessions", "create_many", ok=True, output=created, error=None, voice=voice
    ) == ("2 classes created")


def test_a_session_is_told_by_class_local_day_and_time_and_fill() -> None:
    session = {"classType": "CrossFit", "date": "2026-12-03", "start": "18:00", "booked": 12,
               "capacity": 12, "status": "published"}  # fmt: skip
    said = {
        locale: summary(
            "class_sessions",
            "get",
            ok=True,
            output=session,
            error=None,
            voice=Voice(locale, JERUSALEM),
        )
        for locale in LOCALES
    }
    assert said == {
        "en": "CrossFit · Thu 3 Dec 18:00 · 12/12 · published",
        "he": "CrossFit · יום ה׳ 3 בדצמ׳ 18:00 · 12/12 · מפורסם",
        "ru": "CrossFit · чт 3 дек. 18:00 · 12/12 · опубликовано",
    }


def test_an_instant_is_told_in_the_gyms_time_zone() -> None:
    # 21:30 UTC on 2 Dec is 23:30 in Jerusalem, 16:30 in New York
    note = {"at": "2026-12-02T21:30:00+00:00"}
    assert summary("leads", "add_note", ok=True, output=note, error=None,
                   voice=Voice("en", JERUSALEM)) == "Wed 2 Dec 23:30"  # fmt: skip
    assert summary("leads", "add_note", ok=True, output=note, error=None,
                   voice=Voice("en", ZoneInfo("America/New_York"))) == "Wed 2 Dec 16:30"  # fmt: skip


@pytest.mark.parametrize("locale", LOCALES)
def test_no_summary_of_a_recorded_output_shows_a_key_a_placeholder_or_a_null(
    locale: Locale,
) -> None:
    voice = Voice(locale, JERUSALEM)
    shown = {}
    for name, output in OUTPUTS.items():
        router, action = name.split(".")
        text = summary(router, action, ok=True, output=output, error=None, voice=voice)
        shown[name] = f"{title(router, action, locale)} {text}"
    raw = {name: text for name, text in shown.items() if RAW_KEY.search(text)}
    assert raw == {}
    # a fixture per declared action: a new action comes with one
    assert set(OUTPUTS) >= set(load_catalog().specs)


@pytest.mark.parametrize("locale", LOCALES)
def test_every_error_code_is_said_in_every_locale(locale: Locale) -> None:
    missing = sorted(c for c in TOOL_ERROR_CODES if c not in catalog(locale)["errors"])
    assert missing == []


def test_a_rejection_is_said_in_the_readers_language_with_the_persons_reason() -> None:
    rejected = {"code": "rejected_by_user", "message": "The user declined this call."}
    assert error_summary(rejected, "he") == "דחית את הפעולה"
    assert error_summary({**rejected, "reason": "wrong class"}, "ru") == (
        "Вы отклонили действие: wrong class"
    )
    assert "declined" not in error_summary(rejected, "ru")


@pytest.mark.parametrize("locale", LOCALES)
def test_every_argument_field_has_a_label_in_every_locale(locale: Locale) -> None:
    fields: set[str] = set()
    for spec in load_catalog().specs.values():
        fields |= _schema_fields(spec.args_model.model_json_schema(by_alias=True))
    missing = sorted(f for f in fields if f not in catalog(locale)["fields"])
    assert missing == []


@pytest.mark.parametrize("locale", LOCALES)
def test_every_consequence_a_card_can_name_is_said_in_every_locale(locale: Locale) -> None:
    declared = _declared_consequences()
    assert {"session_cancelled", "email_sent", "replaces_group_members"} <= declared
    # literals of the same calls that are not keys (a status compared, a field read)
    declared -= {"active", "status", "skipped", "replaced_workout_ids", "consequences", "parts"}
    missing = sorted(k for k in declared if k not in catalog(locale)["consequences"])
    assert missing == []


def _set_change_fields() -> set[str]:
    """The field a card's whole-set change names where it is a literal (`set_change("coaches",
    ...)`); a change named by a class's own label is words already."""
    fields: set[str] = set()
    for path in (ROOT / "layers/common/spotter/tools").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "set_change":
                first = node.args[0] if node.args else None
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    fields.add(first.value)
    return fields


@pytest.mark.parametrize("locale", LOCALES)
def test_every_whole_set_change_a_card_shows_has_a_label_in_every_locale(locale: Locale) -> None:
    fields = _set_change_fields()
    assert {"coaches", "workouts", "members", "parts"} <= fields
    assert sorted(f for f in fields if f not in catalog(locale)["fields"]) == []


def test_a_change_named_by_a_class_keeps_the_classs_own_words() -> None:
    card = {"changes": [{"field": "CrossFit · Tue 1 Dec 07:00", "old": ["Fran"], "new": []}]}
    shown = present_card(card, Voice("he", JERUSALEM))
    assert shown is not None and shown["changes"][0]["label"] == "CrossFit · Tue 1 Dec 07:00"


def test_an_unnamed_field_is_spelled_out_never_shown_raw() -> None:
    assert field_label("sessionIds", "en") == "Classes"
    assert field_label("someNewField", "he") == "Some new field"
    assert consequence_text("brand_new_effect", "ru") == "Brand new effect"


def test_values_read_as_words() -> None:
    voice = Voice("he", JERUSALEM)
    assert value_text(True, voice) == "כן"
    assert value_text(None, voice) == "אין"
    assert value_text("unlimited", Voice("ru", JERUSALEM)) == "без ограничений"
    assert value_text({"day": "2026-12-03", "start": "18:00"}, Voice("en", JERUSALEM)) == (
        "Day: Thu 3 Dec, Start: 18:00"
    )
