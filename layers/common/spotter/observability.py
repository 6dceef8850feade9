"""Structured logs that never carry user text, each line stamped with the request's trace id.

`log_event` is the one door out of the process for diagnostics: it scrubs before it writes.
"""

from __future__ import annotations

import uuid
from contextvars import ContextVar
from functools import cache
from typing import Any

from aws_lambda_powertools import Logger

_trace_id: ContextVar[str | None] = ContextVar("spotter_trace_id", default=None)

# Keys whose values may hold what a person typed, a model wrote, or a credential.
SCRUBBED_KEYS = frozenset(
    {"content", "text", "prompt", "message", "output", "input", "token", "apikey", "api_key",
     "secret", "password", "authorization", "delta", "body"}
)  # fmt: skip


def new_trace_id() -> str:
    trace_id = str(uuid.uuid4())
    _trace_id.set(trace_id)
    return trace_id


def current_trace_id() -> str:
    trace_id = _trace_id.get()
    return trace_id if trace_id is not None else new_trace_id()


def scrub(value: Any) -> Any:
    """Drop every scrubbed key at any depth; keep ids, counts, codes and durations."""
    if isinstance(value, dict):
        return {
            k: scrub(v)
            for k, v in value.items()
            if not (isinstance(k, str) and k.lower().replace("-", "_") in SCRUBBED_KEYS)
        }
    if isinstance(value, list | tuple):
        return [scrub(v) for v in value]
    return value


@cache
def logger() -> Logger:
    return Logger(service="spotter")


def log_event(event: str, *, level: str = "info", **fields: Any) -> None:
    extra = scrub(fields)
    extra["trace_id"] = current_trace_id()
    getattr(logger(), level)(event, extra=extra)
