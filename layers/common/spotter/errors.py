"""Errors that carry a stable code: the client's i18n key is `agent.errors.<code>`."""

from __future__ import annotations

from typing import Literal, get_args

ErrorCode = Literal[
    # the spec's agent codes
    "agent_disabled",
    "agent_budget_exceeded",
    "rate_limited",
    "replay_integrity_violation",
    "tool_execution_not_found",
    "tool_already_resolved",
    "tool_not_awaiting_approval",
    "confirm_batch_mixed_messages",
    "invalid_pick",
    "undo_not_available",
    "undo_already_done",
    "confirmation_stale",
    "invalid_edited_args",
    "run_stopped",
    "aborted",
    "provider_invalid_request",
    "provider_unauthorized",
    "provider_overloaded",
    "provider_rate_limited",
    "provider_unavailable",
    "provider_output_truncated",
    "provider_not_configured",
    "max_turns_reached",
    "conversation_busy",
    "internal",
    # HTTP surface
    "missing_token",
    "invalid_token",
    "token_expired",
    "invalid_issuer",
    "invalid_authorized_party",
    "no_active_organization",
    "not_a_member",
    "membership_inactive",
    "staff_only",
    # a dashboard read the org's tier does not include (the leads board without lead_management)
    "feature_unavailable",
    "invalid_request",
    "payload_too_large",
    "not_found",
    "not_implemented",
    "method_not_allowed",
    "service_unavailable",
]

ERROR_CODES: frozenset[str] = frozenset(get_args(ErrorCode))


class SpotterError(Exception):
    """An expected failure with a stable code, an HTTP status and a developer-facing message;
    `headers` go on its HTTP answer (a 429's Retry-After)."""

    status: int = 500

    def __init__(self, code: ErrorCode, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = message
        self.headers: dict[str, str] = {}
        if status is not None:
            self.status = status


class AuthError(SpotterError):
    status = 401


class ForbiddenError(SpotterError):
    status = 403


class NotFoundError(SpotterError):
    status = 404

    def __init__(self, message: str = "Not found.") -> None:
        super().__init__("not_found", message)
