"""Pure ASGI middleware (no BaseHTTPMiddleware, so streamed bodies pass straight through)."""

from __future__ import annotations

import json
from collections.abc import Mapping

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from spotter.http.locale import resolve_locale
from spotter.i18n import error_message
from spotter.observability import log_event, new_trace_id


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return bytes(value).decode("latin-1")
    return None


async def send_json_error(
    scope: Scope, send: Send, status: int, code: str, detail: str | None
) -> None:
    """An error answered before (or instead of) the app: the same body the app's handlers give."""
    locale = resolve_locale(_header(scope, b"x-locale"), _header(scope, b"accept-language"))
    body = json.dumps(
        {
            "code": code,
            "message": error_message(code, locale),
            "detail": detail,
            "traceId": scope.get("state", {}).get("trace_id", ""),
        }
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": body})


class TraceIdMiddleware:
    """A server-generated trace id per request: in every log line, error, and `x-trace-id`.

    It also answers unexpected exceptions (500 `internal`): Starlette's own error middleware sits
    outside every other one, where the trace id header would be lost.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        trace_id = new_trace_id()
        scope.setdefault("state", {})["trace_id"] = trace_id

        started = False

        async def send_with_trace(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                message.setdefault("headers", []).append((b"x-trace-id", trace_id.encode()))
            await send(message)

        try:
            await self.app(scope, receive, send_with_trace)
        except Exception as exc:
            log_event(
                "http.internal", level="exception", path=scope.get("path"), error=type(exc).__name__
            )
            if started:
                raise
            await send_json_error(scope, send_with_trace, 500, "internal", None)


class BodyLimitMiddleware:
    """Refuse bodies over the limit with 413, by header or by counting a chunked stream.
    `per_path`: a path's own limit (the AI SDK chat's POST carries the whole chat)."""

    def __init__(
        self, app: ASGIApp, max_bytes: int, per_path: Mapping[str, int] | None = None
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.per_path = dict(per_path or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.per_path.get(scope.get("path", ""), self.max_bytes)
        declared = _header(scope, b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await self._refuse(scope, send, limit)
            return
        seen = 0
        started = refused = False

        async def counting_receive() -> Message:
            # Raising here would be turned into a 400 by the framework's body parser, so answer
            # 413 ourselves and tell the app the client went away.
            nonlocal seen, refused
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    if not started and not refused:
                        refused = True
                        await self._refuse(scope, send, limit)
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if refused:
                return
            started = started or message["type"] == "http.response.start"
            await send(message)

        await self.app(scope, counting_receive, guarded_send)

    async def _refuse(self, scope: Scope, send: Send, limit: int) -> None:
        await send_json_error(
            scope, send, 413, "payload_too_large", f"The body must be at most {limit} bytes."
        )


class NulPathMiddleware:
    """Refuse a path or query holding a NUL character (`/undo/a%00b`) with 400 before any route
    runs: Postgres cannot compare against such text, so it would otherwise end as a 500."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and (
            "\x00" in scope.get("path", "") or b"%00" in scope.get("query_string", b"")
        ):
            await send_json_error(
                scope, send, 400, "invalid_request", "The path must not contain NUL characters."
            )
            return
        await self.app(scope, receive, send)
