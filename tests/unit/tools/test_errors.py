"""The tool error vocabulary: each refusal class carries its own fixed code."""

from __future__ import annotations

import pytest

from spotter.domain.errors import DomainError, NotFound
from spotter.tools.errors import (
    TOOL_ERROR_CODES,
    FeatureUnavailable,
    Forbidden,
    NeedsUser,
    ToolArgsError,
    UnknownTool,
    internal_error,
)


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (ToolArgsError("bad"), "invalid_args"),
        (Forbidden("x.y"), "forbidden"),
        (UnknownTool("x.y"), "unknown_tool"),
        (FeatureUnavailable("x.y", "gate"), "feature_unavailable"),
        (NeedsUser("x.y"), "needs_user"),
        (NotFound("program"), "not_found"),
    ],
)
def test_each_refusal_class_fixes_its_code(error: DomainError, code: str) -> None:
    assert error.as_result()["code"] == code
    assert code in TOOL_ERROR_CODES


def test_an_internal_error_names_the_tool_and_nothing_else() -> None:
    assert internal_error("x.y") == {"code": "internal", "message": "x.y failed unexpectedly."}
