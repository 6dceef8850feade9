"""The sample Lambda events in `events/`, loaded for tests and replayed as the adapter would."""

from __future__ import annotations

import base64
import copy
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

EVENTS_DIR = Path(__file__).resolve().parents[2] / "events"

# The Function URL events of each kind of function (one file per route).
STREAMING_EVENTS = ("send-message", "confirm", "confirm-batch", "pick", "undo", "stream", "chat")
READS_EVENTS = ("reads-conversations", "reads-conversation", "reads-usage")
MIGRATION_EVENTS = ("migrate-create", "migrate-update", "migrate-delete")
SCHEDULED_EVENTS = ("sweep-scheduled",)


def load_event(name: str) -> dict[str, Any]:
    """A fresh copy of `events/<name>.json` (tests may change it freely)."""
    event: dict[str, Any] = json.loads((EVENTS_DIR / f"{name}.json").read_text())
    return copy.deepcopy(event)


def with_bearer(event: dict[str, Any], token: str | None) -> dict[str, Any]:
    """The Function URL event with a real session token, or with no authorization at all."""
    event = copy.deepcopy(event)
    if token is None:
        event["headers"].pop("authorization", None)
    else:
        event["headers"]["authorization"] = f"Bearer {token}"
    return event


@dataclass(frozen=True)
class HttpRequest:
    method: str
    target: str  # path and query string
    headers: dict[str, str]
    body: bytes


def as_http(event: dict[str, Any]) -> HttpRequest:
    """The HTTP request a Function URL event stands for (what the Web Adapter sends the app)."""
    raw = event.get("body") or ""
    body = base64.b64decode(raw) if event.get("isBase64Encoded") else raw.encode()
    query = event.get("rawQueryString") or ""
    # The client library sets host and length for the server it really talks to.
    headers = {k: v for k, v in event["headers"].items() if k not in ("host", "content-length")}
    return HttpRequest(
        method=event["requestContext"]["http"]["method"],
        target=event["rawPath"] + (f"?{query}" if query else ""),
        headers=headers,
        body=body,
    )
