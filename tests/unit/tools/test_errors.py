"""The tool error vocabulary: each refusal class carries its own fixed code, and every refusal
becomes the one error value the model, the rows and the client read."""

from __future__ import annotations

import pytest

from spotter.domain.errors import DomainError, NotFound
from spotter.tools.errors import (
    TOOL_ERROR_CODES,
    CallRefused,
    FeatureUnavailable,
    Forbidden,
    NeedsUser,
    Refusal,
    ToolArgsError,
    ToolError,
    UnknownTool,
    internal_error,
    tool_error,
)


@pytest.mark.parametrize(
    ("refusal", "code"),
    [
        (ToolArgsError("bad"), "invalid_args"),
        (Forbidden("x.y"), "forbidden"),
        (UnknownTool("x.y"), "unknown_tool"),
        (FeatureUnavailable("x.y", "gate"), "feature_unavailable"),
        (NeedsUser("x.y"), "needs_user"),
        (NotFound("program"), "not_found"),
    ],
)
def test_each_refusal_class_fixes_its_code(refusal: Refusal, code: str) -> None:
    assert tool_error(refusal).code == code
    assert code in TOOL_ERROR_CODES


def test_fixing_the_arguments_and_a_domain_refusal_are_different_types() -> None:
    assert not isinstance(ToolArgsError("bad"), DomainError)
    assert not isinstance(Forbidden("x.y"), DomainError)
    assert not issubclass(CallRefused, ToolArgsError)


def test_an_error_is_stored_as_code_message_and_only_the_parts_it_has() -> None:
    bad = tool_error(ToolArgsError("Arguments are invalid.", problems=[{"field": "name"}]))
    assert bad.as_json() == {
        "code": "invalid_args",
        "message": "Arguments are invalid.",
        "details": {"problems": [{"field": "name"}]},
    }
    refused = tool_error(DomainError("conflict", "Taken.", reason="duplicate_lead"))
    assert refused.as_json() == {
        "code": "conflict",
        "message": "Taken.",
        "details": {"reason": "duplicate_lead"},
    }
    declined = ToolError("rejected_by_user", "Declined.", reason="wrong day")
    assert declined.as_json() == {
        "code": "rejected_by_user",
        "message": "Declined.",
        "reason": "wrong day",
    }
    assert ToolError.from_json(declined.as_json()) == declined


def test_an_internal_error_names_the_tool_and_nothing_else() -> None:
    assert internal_error("x.y").as_json() == {
        "code": "internal",
        "message": "x.y failed unexpectedly.",
    }
