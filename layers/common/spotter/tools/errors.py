"""How a tool call fails: a `ToolError` value `{code, message, details?}` the model reads as an
`is_error` result, and the three kinds of refusal that produce one.

- `ToolArgsError`: the arguments are wrong; the model fixes them and calls again.
- `DomainError` (from `spotter.domain.errors`): the operation could not be done; adapt.
- `CallRefused` (`Forbidden`, `UnknownTool`, `FeatureUnavailable`, `NeedsUser`): the runner
  refuses the call itself, before any handler runs.

They are separate types on purpose: a retryable argument problem is not a domain refusal.
`tool_error` turns any of them into the value. Anything else a handler raises is a bug and
reaches the model as `internal`, without its details. `ToolErrorCode` is every code a tool
result can carry, the agent's fixed results included, so a misspelt code fails mypy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, cast, get_args

from spotter.domain.errors import DomainError, NotFound, RefusalCode, not_found

__all__ = [
    "TOOL_ERROR_CODES",
    "TOOL_REFUSALS",
    "CallRefused",
    "DomainError",
    "FeatureUnavailable",
    "Forbidden",
    "NeedsUser",
    "NotFound",
    "Refusal",
    "RunnerCode",
    "ToolArgsError",
    "ToolError",
    "ToolErrorCode",
    "UnknownTool",
    "internal_error",
    "not_found",
    "tool_error",
]

# The runner's own refusals: the call is not run at all.
RunnerCode = Literal["forbidden", "unknown_tool", "feature_unavailable", "needs_user"]
# Results the runner and the agent record without any refusal raised.
FixedResultCode = Literal[
    "internal",
    "interrupted",
    "interrupted_not_applied",
    "interrupted_outcome_unknown",
    "superseded",
    "expired",
    "rejected_by_user",
    "skipped_after_rejection",
    "output_truncated",
]
ToolErrorCode = RefusalCode | RunnerCode | FixedResultCode
TOOL_ERROR_CODES: frozenset[str] = frozenset(
    get_args(RefusalCode) + get_args(RunnerCode) + get_args(FixedResultCode)
)


@dataclass(frozen=True)
class ToolError:
    """A failed call as the model, the stored row and the client read it."""

    code: ToolErrorCode
    message: str
    details: dict[str, Any] | None = None
    # a person's reason for declining the call (the model reads it; logs never do)
    reason: str | None = None

    def as_json(self) -> dict[str, Any]:
        """The stored and sent shape: `{code, message}`, plus `details` / `reason` when set."""
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details:
            out["details"] = self.details
        if self.reason is not None:
            out["reason"] = self.reason
        return out

    @classmethod
    def from_json(cls, stored: dict[str, Any]) -> ToolError:
        """A stored error read back (every writer wrote it with `as_json`)."""
        return cls(
            cast(ToolErrorCode, stored["code"]),
            str(stored.get("message", "")),
            stored.get("details"),
            stored.get("reason"),
        )


def internal_error(tool: str) -> ToolError:
    """A handler's bug, as the model reads it: no details."""
    return ToolError("internal", f"{tool} failed unexpectedly.")


class ToolArgsError(Exception):
    """The arguments are wrong (shape, validation, a value the action cannot take): fix them
    and call again."""

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.error = ToolError("invalid_args", message, details or None)


class CallRefused(Exception):
    """The runner refuses the call itself: no handler runs."""

    def __init__(self, code: RunnerCode, message: str) -> None:
        super().__init__(message)
        self.error = ToolError(code, message)


class Forbidden(CallRefused):
    def __init__(self, tool: str) -> None:
        super().__init__("forbidden", f"{tool} is not available to your role.")


class UnknownTool(CallRefused):
    def __init__(self, tool: str) -> None:
        super().__init__("unknown_tool", f"There is no tool {tool}.")


class FeatureUnavailable(CallRefused):
    def __init__(self, tool: str, feature: str) -> None:
        super().__init__("feature_unavailable", f"{tool} needs the {feature} feature.")


class NeedsUser(CallRefused):
    def __init__(self, tool: str) -> None:
        super().__init__("needs_user", f"{tool} waits for the user; it never runs.")


# Everything a call may be refused with, caught together where a call or its card is built.
Refusal = ToolArgsError | CallRefused | DomainError
TOOL_REFUSALS = (ToolArgsError, CallRefused, DomainError)


def tool_error(refusal: Refusal) -> ToolError:
    """The value of any refusal."""
    if isinstance(refusal, DomainError):
        return ToolError(refusal.code, refusal.message, refusal.details or None)
    return refusal.error
