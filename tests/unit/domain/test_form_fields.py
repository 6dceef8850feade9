"""Form fields: the publish lint and the check of a member's answers (pure rules)."""

from __future__ import annotations

from typing import Any

import pytest

from spotter.domain.errors import DomainError
from spotter.domain.form_fields import check_answers, check_field, lint

TERMS = "I release the gym from liability for injuries during training, classes and open gym."
SIGNATURE = {"key": "signature", "label": "Signature", "type": "signature", "required": True}


def _codes(kind: str, body: str, fields: list[dict[str, Any]]) -> list[str]:
    return [p.code for p in lint(kind, "Title", body, fields)]


def test_a_complete_waiver_has_no_problems() -> None:
    assert lint("waiver", "Liability waiver", TERMS, [SIGNATURE]) == []


def test_a_waiver_without_terms_or_signature_reports_both() -> None:
    field = {"key": "name", "label": "Name", "type": "short_text", "required": True}
    assert _codes("waiver", "", [field]) == ["missing_signature", "missing_terms"]


def test_an_intake_form_needs_no_signature_but_needs_fields() -> None:
    assert _codes("intake", "", []) == ["no_fields"]


def test_a_choice_field_needs_two_distinct_options() -> None:
    field = {"key": "goal", "label": "Goal", "type": "single_choice", "required": True,
             "options": ["Strength", "strength"]}  # fmt: skip
    problems = lint("intake", "Intake", "", [field])
    assert [(p.code, p.field) for p in problems] == [("choice_needs_options", "goal")]


def test_an_optional_signature_is_a_problem() -> None:
    optional = {**SIGNATURE, "required": False}
    assert "optional_signature" in _codes("waiver", TERMS, [optional])


def test_duplicate_keys_are_reported() -> None:
    assert "duplicate_key" in _codes("waiver", TERMS, [SIGNATURE, SIGNATURE])


def test_check_field_refuses_a_key_that_is_not_snake_case() -> None:
    with pytest.raises(DomainError) as info:
        check_field({"key": "Full Name", "label": "Name", "type": "short_text"})
    assert info.value.code == "invalid_args"


def test_answers_report_every_problem_at_once() -> None:
    fields = [
        {"key": "goal", "label": "Goal", "type": "single_choice", "required": True,
         "options": ["Strength", "Weight loss"]},
        {"key": "injuries", "label": "Injuries", "type": "yes_no", "required": True},
        SIGNATURE,
    ]  # fmt: skip
    with pytest.raises(DomainError) as info:
        check_answers(fields, {"goal": "Cardio", "injuries": "no", "extra": 1})
    problems = {p["field"]: p["problem"] for p in info.value.details["problems"]}
    assert problems == {
        "extra": "not on this form",
        "goal": "expects one of the options",
        "injuries": "expects yes or no",
        "signature": "required",
    }


def test_empty_optional_answers_are_dropped() -> None:
    fields = [
        {"key": "notes", "label": "Notes", "type": "long_text", "required": False},
        SIGNATURE,
    ]
    assert check_answers(fields, {"notes": "", "signature": "Dana Levi"}) == {
        "signature": "Dana Levi"
    }
