"""How a tool fails, read by the model as an `is_error` result `{code, message}`.

`ToolArgsError`: the arguments are wrong; fix them and call again.
`DomainError` (from `spotter.domain.errors`): the operation could not be done; adapt.
`Forbidden`, `UnknownTool`, `FeatureUnavailable`, `NeedsUser`: the runner refuses the call.
Anything else is a bug and reaches the model as `internal`, without its details.
`ToolErrorCode` is every code a tool result can carry, the agent's fixed results included.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from spotter.domain.errors import DomainError, NotFound, RefusalCode, not_found

__all__ = [
    "TOOL_ERROR_CODES",
    "DomainError",
    "FeatureUnavailable",
    "Forbidden",
    "NeedsUser",
    "NotFound",
    "ToolArgsError",
    "ToolErrorCode",
    "UnknownTool",
    "internal_error",
    "not_found",
]

# Results the runner and the agent record without a DomainError.
FixedResultCode = Literal[
    "internal",
    "interrupted",
    "interrupted_not_applied",
    "interrupted_outcome_unknown",
    "superseded",
    "rejected_by_user",
    "skipped_after_rejection",
    "output_truncated",
]
ToolErrorCode = RefusalCode | FixedResultCode
TOOL_ERROR_CODES: frozenset[str] = frozenset(get_args(RefusalCode) + get_args(FixedResultCode))


def internal_error(tool: str) -> dict[str, Any]:
    """A handler's bug, as the model reads it: no details."""
    return {"code": "internal", "message": f"{tool} failed unexpectedly."}


class ToolArgsError(DomainError):
    def __init__(self, message: str, **details: Any) -> None:
        super().__init__("invalid_args", message, **details)


class Forbidden(DomainError):
    def __init__(self, tool: str) -> None:
        super().__init__("forbidden", f"{tool} is not available to your role.")


class UnknownTool(DomainError):
    def __init__(self, tool: str) -> None:
        super().__init__("unknown_tool", f"There is no tool {tool}.")


class FeatureUnavailable(DomainError):
    def __init__(self, tool: str, feature: str) -> None:
        super().__init__("feature_unavailable", f"{tool} needs the {feature} feature.")


class NeedsUser(DomainError):
    def __init__(self, tool: str) -> None:
        super().__init__("needs_user", f"{tool} waits for the user; it never runs.")
