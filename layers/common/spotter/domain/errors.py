"""The one failure a domain operation raises: a stable code the caller (and model) can read."""

from __future__ import annotations

from typing import Any


class DomainError(Exception):
    """The operation could not be done (not_found, conflict, capacity_full, ...); adapt."""

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details

    def as_result(self) -> dict[str, Any]:
        result: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details:
            result["details"] = self.details
        return result


def not_found(what: str) -> DomainError:
    """The one answer for a missing, deleted or other-org id: never say which."""
    return DomainError("not_found", f"No such {what} in this organization.")
