"""The one failure a domain operation raises: a stable code the caller (and model) can read."""

from __future__ import annotations

from typing import Any, Literal

# Why a call could not be done. The tool layer's full vocabulary is `tools.errors.ToolErrorCode`.
RefusalCode = Literal[
    "not_found",
    "conflict",
    "capacity_full",
    "insufficient_credits",
    "invalid_time",
    "invalid_args",
    # forms (domain.forms, domain.form_fields)
    "form_has_submissions",
    "form_lint_failed",
    "form_kind_not_allowed",
    "invalid_answers",
    # the org type keeps no forms (domain.form_compliance); the runner's tier gate says the same
    "feature_unavailable",
]


class DomainError(Exception):
    """The operation could not be done (not_found, conflict, capacity_full, ...); adapt."""

    def __init__(self, code: RefusalCode, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code: RefusalCode = code
        self.message = message
        self.details = details


class NotFound(DomainError):
    """A missing, deleted or other-org id: never say which."""

    def __init__(self, what: str) -> None:
        super().__init__("not_found", f"No such {what} in this organization.")


def not_found(what: str) -> DomainError:
    """The one answer for a missing, deleted or other-org id: never say which."""
    return NotFound(what)
