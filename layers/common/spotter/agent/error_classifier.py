"""Failures of a run, mapped to the spec's stable codes (the client's `agent.errors.<code>`)."""

from __future__ import annotations

import asyncio

import anthropic

from spotter.db.errors import is_unavailable
from spotter.errors import ErrorCode, SpotterError
from spotter.providers.anthropic import ProviderNotConfigured


def classify(exc: BaseException) -> ErrorCode:
    if isinstance(exc, asyncio.CancelledError):
        return "aborted"
    if isinstance(exc, SpotterError):
        return exc.code
    if isinstance(exc, ProviderNotConfigured):
        return "provider_not_configured"
    if isinstance(exc, anthropic.APIStatusError):
        return _by_status(exc)
    if isinstance(exc, anthropic.APIConnectionError):  # includes timeouts
        return "provider_unavailable"
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
    if status == 429:
        return "provider_rate_limited"
    if status >= 500:
        return "provider_unavailable"
    return "provider_invalid_request"
