"""The agent's errors, each under `SpotterError` with its code fixed on the class, and the one
function that maps any failure of a run to the spec's stable codes (`agent.errors.<code>`).

A `SpotterError` is a refusal (the request cannot be served as asked: a foreign conversation,
a decided call, an undo that is not available); anything else is a fault.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, ClassVar
from uuid import UUID

from spotter.errors import ErrorCode, SpotterError

if TYPE_CHECKING:
    import anthropic


class _CodedError(SpotterError):
    """A `SpotterError` whose code is its class's; the message may be left to the class."""

    code: ErrorCode
    default_message: ClassVar[str] = ""

    def __init__(self, message: str | None = None) -> None:
        super().__init__(type(self).code, message or self.default_message)


class DecisionError(_CodedError):
    """A confirm / confirm-batch / pick batch refused as a whole: nothing is claimed or run."""

    status = 409


class ToolExecutionNotFound(DecisionError):
    code: ErrorCode = "tool_execution_not_found"
    status = 404
    default_message = "No such tool call in this conversation."


class ToolAlreadyResolved(DecisionError):
    code: ErrorCode = "tool_already_resolved"
    default_message = "That call was already handled."


class ToolNotAwaitingApproval(DecisionError):
    code: ErrorCode = "tool_not_awaiting_approval"
    default_message = "That call is not waiting for this kind of decision."


class ConfirmBatchMixedMessages(DecisionError):
    code: ErrorCode = "confirm_batch_mixed_messages"
    status = 400
    default_message = "Decisions must belong to one assistant message."


class InvalidPick(DecisionError):
    code: ErrorCode = "invalid_pick"
    status = 400
    default_message = "That choice is not one of the options."


class ConfirmationStale(DecisionError):
    code: ErrorCode = "confirmation_stale"
    default_message = "The decision names a card that no longer shows this call."


class InvalidEditedArgs(DecisionError):
    code: ErrorCode = "invalid_edited_args"
    status = 400
    default_message = "The edited arguments are not valid for this action."


class ReplayIntegrityViolation(_CodedError):
    """A stored history that repair cannot make valid: the run stops instead of sending a
    request the model's API would refuse (a fault, not a refusal: Sentry sees it)."""

    code: ErrorCode = "replay_integrity_violation"
    status = 500
    default_message = "This conversation's history cannot be replayed."


class AgentDisabled(_CodedError):
    """A kill switch is on (this organization's or the platform's): nothing is written."""

    code: ErrorCode = "agent_disabled"
    status = 403
    default_message = "Spotter is turned off for this organization."


class RateLimited(_CodedError):
    """Over the per-user send window: 429 with Retry-After, nothing written."""

    code: ErrorCode = "rate_limited"
    status = 429

    def __init__(self, retry_after_seconds: int, limit: int, window_seconds: int) -> None:
        super().__init__(
            f"At most {limit} messages in {window_seconds} s: try again in {retry_after_seconds} s."
        )
        self.retry_after_seconds = retry_after_seconds
        self.headers = {"retry-after": str(retry_after_seconds)}


class UndoRefused(_CodedError):
    """An undo refused before its stream starts (422, as JSON)."""

    status = 422


class UndoNotAvailable(UndoRefused):
    code: ErrorCode = "undo_not_available"
    default_message = "Only a succeeded call with an inverse undoes."


class UndoAlreadyDone(UndoRefused):
    code: ErrorCode = "undo_already_done"
    default_message = "This call was already undone."


def is_refusal(exc: BaseException) -> bool:
    """Not a server fault: logged with its code, never sent to Sentry."""
    return isinstance(exc, SpotterError) and exc.status < 500


def classify(exc: BaseException) -> ErrorCode:
    if isinstance(exc, asyncio.CancelledError):
        return "aborted"
    if isinstance(exc, SpotterError):
        return exc.code
    # the SDK is loaded by whatever raised its errors; importing it here only then keeps the
    # sweep and reads functions (which classify nothing from it) free of it
    import anthropic

    from spotter.providers.anthropic import ProviderNotConfigured

    if isinstance(exc, ProviderNotConfigured):
        return "provider_not_configured"
    if isinstance(exc, anthropic.APIStatusError):
        return _by_status(exc)
    if isinstance(exc, anthropic.APIConnectionError):  # includes timeouts
        return "provider_unavailable"
    import httpx2

    if isinstance(exc, httpx2.TransportError):
        # a connection dropped or a read timed out mid-stream: the SDK passes these through
        return "provider_unavailable"
    from spotter.db.errors import is_unavailable

    if is_unavailable(exc):
        return "service_unavailable"
    return "internal"


def _by_status(exc: anthropic.APIStatusError) -> ErrorCode:
    status = exc.status_code
    body = exc.body if isinstance(exc.body, dict) else {}
    error = body.get("error")
    kind = error.get("type") if isinstance(error, dict) else None
    if status == 529 or kind == "overloaded_error":
        return "provider_overloaded"
    if status in (401, 403):
        return "provider_unauthorized"
    if status == 429 or kind == "rate_limit_error":
        return "provider_rate_limited"
    # a mid-stream `error` event arrives on a 200 response: its type says what it was
    if status >= 500 or kind == "api_error":
        return "provider_unavailable"
    return "provider_invalid_request"


class ConversationBusy(_CodedError):
    """Another run of this conversation is live: this request writes nothing; `live_run_id`
    names the run a client can follow instead."""

    code: ErrorCode = "conversation_busy"
    status = 409
    default_message = "Another run of this conversation is still live."

    def __init__(self, live_run_id: UUID | None) -> None:
        super().__init__()
        self.live_run_id = live_run_id  # None: the lease was lost, and nobody holds it now


class BudgetExhausted(_CodedError):
    """A model call's upper-bound cost does not fit in what is left of today's budget."""

    code: ErrorCode = "agent_budget_exceeded"
    status = 402
    default_message = "Today's AI budget does not cover another model call."
