"""Which answers are health data, and what a reader of each role sees of a submission's output
(`domain.form_compliance`: the one rule every channel applies)."""

from __future__ import annotations

from typing import Any

import pytest

from spotter.domain.form_compliance import (
    HEALTH_ANSWERS_WITHHELD,
    is_health_field,
    withhold_health_answers,
)


@pytest.mark.parametrize(
    "label",
    [
        "Injuries or medical conditions we should know about",
        "Any injuries?",
        "Are you pregnant?",
        "Allergies",
        "Medication you take",
        "פציעות או מצב רפואי",
        "Травмы или заболевания",
        "Операции за последний год",
    ],
)
def test_a_field_whose_words_name_health_is_health_data(label: str) -> None:
    assert is_health_field("waiver", {"key": "q", "label": label})


@pytest.mark.parametrize(
    "label",
    [
        "Emergency contact",
        "What are your goals?",
        "Improve my conditioning",
        "Signature (type your full name)",
        "How did you hear about us?",
    ],
)
def test_other_fields_are_not(label: str) -> None:
    assert not is_health_field("intake", {"key": "q", "label": label})


def test_the_editors_mark_wins_over_the_words_and_a_health_form_is_all_health() -> None:
    assert is_health_field("intake", {"key": "notes", "label": "Notes", "health": True})
    assert not is_health_field("waiver", {"key": "injury", "label": "Injury?", "health": False})
    assert is_health_field("health", {"key": "signature", "label": "Signature", "health": False})


def _output(*answers: dict[str, Any], kind: str = "waiver") -> dict[str, Any]:
    return {"id": "s1", "formKind": kind, "signer": "Noa", "answers": list(answers)}


CONTACT = {"field": "contact", "label": "Emergency contact", "value": "Avi", "health": False}
KNEE = {"field": "knee", "label": "Anything we should know?", "value": "knee", "health": True}


@pytest.mark.parametrize("role", ["owner", "admin"])
def test_a_manager_sees_every_answer(role: str) -> None:
    output = _output(CONTACT, KNEE)
    assert withhold_health_answers(output, role) == output


@pytest.mark.parametrize("role", ["coach", "member", None])
def test_anyone_else_sees_the_rest_and_is_told_what_was_withheld(role: str | None) -> None:
    shown = withhold_health_answers(_output(CONTACT, KNEE), role)
    assert shown["answers"] == [CONTACT]
    assert shown["withheldFields"] == ["knee"]
    assert shown["answersWithheld"] == HEALTH_ANSWERS_WITHHELD


def test_an_output_stored_before_the_marks_is_judged_by_its_words_and_kind() -> None:
    unmarked = {"field": "conditions", "label": "Medical conditions", "value": "asthma"}
    contact = {"field": "contact", "label": "Emergency contact", "value": "Avi"}
    assert withhold_health_answers(_output(contact, unmarked), "coach")["answers"] == [contact]
    parq = withhold_health_answers(_output(contact, kind="health"), "coach")
    assert "answers" not in parq and parq["withheldFields"] == ["contact"]


def test_outputs_without_answers_pass_through() -> None:
    listed = {"submissions": [{"id": "s1", "formKind": "health"}]}
    assert withhold_health_answers(listed, "coach") is listed
    assert withhold_health_answers("text", "coach") == "text"
