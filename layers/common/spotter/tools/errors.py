"""The two ways a tool fails, both read by the model as an `is_error` result `{code, message}`.

`ToolArgsError`: the arguments are wrong; fix them and call again.
`DomainError` (from `spotter.domain.errors`): the operation could not be done; adapt.
Anything else is a bug and reaches the model as `internal`, without its details.
"""

from __future__ import annotations

from typing import Any

from spotter.domain.errors import DomainError, not_found

__all__ = ["DomainError", "ToolArgsError", "not_found"]


class ToolArgsError(DomainError):
    def __init__(self, message: str, **details: Any) -> None:
        super().__init__("invalid_args", message, **details)
