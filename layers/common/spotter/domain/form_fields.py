"""A form's fields: their shape, the publish lint, and checking a member's answers against them.

A field is a dict `{key, label, type, required, options?, help?, health?}` stored in
`form_versions.fields` (`health`: its answers are health data, `form_compliance`).
The lint is what a form must satisfy before members may sign it; it reports every problem at
once so an editor can fix them in one pass.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal, get_args

from spotter.domain.errors import DomainError

FieldType = Literal[
    "short_text",
    "long_text",
    "number",
    "date",
    "yes_no",
    "single_choice",
    "multi_choice",
    "acknowledgement",
    "signature",
]
FIELD_TYPES: frozenset[str] = frozenset(get_args(FieldType))
CHOICE_TYPES = frozenset({"single_choice", "multi_choice"})
KEY_PATTERN = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
MAX_FIELDS = 60
# Shorter than this, a waiver's terms cannot say what the member releases.
MIN_WAIVER_TERMS_CHARS = 80


@dataclass(frozen=True)
class LintProblem:
    code: str
    message: str
    field: str | None = None

    def out(self) -> dict[str, Any]:
        problem: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.field is not None:
            problem["field"] = self.field
        return problem


def check_field(field: dict[str, Any]) -> dict[str, Any]:
    """A field as stored: only known keys, a valid key and type. Raises `invalid_field`."""
    key = field.get("key")
    if not isinstance(key, str) or not KEY_PATTERN.match(key):
        raise DomainError("invalid_args", "A field key is lower_snake_case, at most 40 chars.")
    if field.get("type") not in FIELD_TYPES:
        raise DomainError("invalid_args", f"Field {key}: unknown type.", field=key)
    label = field.get("label")
    if not isinstance(label, str) or not label.strip():
        raise DomainError("invalid_args", f"Field {key}: a label is required.", field=key)
    stored: dict[str, Any] = {
        "key": key,
        "label": label.strip(),
        "type": field["type"],
        "required": bool(field.get("required", False)),
    }
    if field.get("options"):
        stored["options"] = [str(o).strip() for o in field["options"]]
    if field.get("help"):
        stored["help"] = str(field["help"]).strip()
    if isinstance(field.get("health"), bool):
        stored["health"] = field["health"]  # its answers are health data (`form_compliance`)
    return stored


def _field_problems(field: dict[str, Any]) -> list[LintProblem]:
    key, kind = field["key"], field["type"]
    options = field.get("options") or []
    problems: list[LintProblem] = []
    if kind in CHOICE_TYPES:
        if len({o.lower() for o in options if o}) < 2:
            problems.append(
                LintProblem("choice_needs_options", "Give at least two distinct options.", key)
            )
        elif len({o.lower() for o in options}) != len(options) or not all(options):
            problems.append(LintProblem("duplicate_option", "Options must differ.", key))
    elif options:
        problems.append(LintProblem("options_not_allowed", f"A {kind} field has no options.", key))
    if kind == "signature" and not field["required"]:
        problems.append(LintProblem("optional_signature", "A signature must be required.", key))
    if kind == "acknowledgement" and not field["required"]:
        problems.append(
            LintProblem("optional_acknowledgement", "An acknowledgement must be required.", key)
        )
    return problems


def lint(kind: str, title: str, body: str, fields: list[dict[str, Any]]) -> list[LintProblem]:
    """Everything that keeps this version from being published; empty when it may be."""
    problems: list[LintProblem] = []
    if not title.strip():
        problems.append(LintProblem("missing_title", "The form needs a title."))
    if not fields:
        problems.append(LintProblem("no_fields", "The form has no fields."))
    if len(fields) > MAX_FIELDS:
        problems.append(LintProblem("too_many_fields", f"At most {MAX_FIELDS} fields."))
    seen: set[str] = set()
    for field in fields:
        if field["key"] in seen:
            problems.append(LintProblem("duplicate_key", "Two fields share a key.", field["key"]))
        seen.add(field["key"])
        problems.extend(_field_problems(field))
    if kind in ("waiver", "health") and not any(
        f["type"] == "signature" and f["required"] for f in fields
    ):
        problems.append(LintProblem("missing_signature", f"A {kind} form needs a signature."))
    if kind == "waiver" and len(body.strip()) < MIN_WAIVER_TERMS_CHARS:
        problems.append(
            LintProblem("missing_terms", "A waiver needs its terms in the body (what is waived).")
        )
    return problems


def _answer_problem(field: dict[str, Any], value: Any) -> str | None:
    kind = field["type"]
    options = field.get("options") or []
    if kind in ("short_text", "long_text", "signature"):
        return None if isinstance(value, str) and value.strip() else "expects text"
    if kind == "number":
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return None if ok else "expects a number"
    if kind == "date":
        try:
            date.fromisoformat(str(value))
        except ValueError:
            return "expects a date (YYYY-MM-DD)"
        return None
    if kind == "yes_no":
        return None if isinstance(value, bool) else "expects yes or no"
    if kind == "acknowledgement":
        return None if value is True else "must be acknowledged"
    if kind == "single_choice":
        return None if value in options else "expects one of the options"
    if kind == "multi_choice":
        ok = isinstance(value, list) and bool(value) and all(v in options for v in value)
        return None if ok else "expects some of the options"
    return "unknown field type"


def check_answers(fields: list[dict[str, Any]], answers: dict[str, Any]) -> dict[str, Any]:
    """The answers as stored (empty optional answers dropped); raises `invalid_answers` listing
    every problem: unknown keys, missing required answers, values of the wrong kind."""
    by_key = {f["key"]: f for f in fields}
    problems = [{"field": k, "problem": "not on this form"} for k in answers if k not in by_key]
    stored: dict[str, Any] = {}
    for key, field in by_key.items():
        value = answers.get(key)
        if value is None or value == "" or value == []:
            if field["required"]:
                problems.append({"field": key, "problem": "required"})
            continue
        problem = _answer_problem(field, value)
        if problem:
            problems.append({"field": key, "problem": problem})
        else:
            stored[key] = value
    if problems:
        raise DomainError("invalid_answers", "The answers do not fit the form.", problems=problems)
    return stored
