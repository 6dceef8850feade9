"""The MCP endpoint: every `/mcp` URL, before the SDK sees a request.

    /mcp                      every tool of the caller's role
    /mcp/{toolset}            one toolset (`toolsets`)
    /mcp/o/{org}[/{toolset}]  the same, for the Clerk organization the URL names (for a token
                              that carries none; one that does must name the same)

In order: the DNS-rebinding check (Host / Origin); the bearer token (`auth.authenticate`: 401
with `resource_metadata` and `scope` when missing or untrusted, 403 `insufficient_scope` when a
read-only token calls a write, 503 + `Retry-After` when the database cannot tell who it is); then
the initialize era's requests that need more than a stateless SDK (`legacy`), and the rest to the
SDK's session manager (2026-07-28 and the legacy era's ping, tools/list). A JSON-RPC error the
SDK writes for an outage is sent with HTTP 503 too.
"""

from __future__ import annotations

import contextvars
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcp.server.auth.middleware.auth_context import auth_context_var
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.authentication import AuthCredentials
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import Message, Receive, Scope, Send

from spotter.auth.oauth import SCOPES, AccessVerifier
from spotter.db import Database
from spotter.db.errors import RETRY_AFTER_SECONDS, is_unavailable
from spotter.errors import SpotterError
from spotter.mcp.asgi import rewrite_start
from spotter.mcp.auth import CallerToken, authenticate
from spotter.mcp.catalog import UNDO_TOOL, catalog_for
from spotter.mcp.legacy import Legacy
from spotter.mcp.toolsets import TOOLSETS
from spotter.mcp.wire import is_unavailable_error, unavailable_response
from spotter.observability import log_event
from spotter.tools.registry import surface_of

MAX_BODY_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class McpRoute:
    toolset: str | None
    org: str | None  # a Clerk organization id


# The route of the request being served: the SDK's handlers (tools/list) read its toolset.
_route: contextvars.ContextVar[McpRoute | None] = contextvars.ContextVar("mcp_route", default=None)


def current_route() -> McpRoute:
    return _route.get() or McpRoute(None, None)


def parse_route(path: str, base: str = "/mcp") -> McpRoute | None:
    """The toolset and org a path names, or None for no MCP URL of ours."""
    if path.rstrip("/") == base:
        return McpRoute(None, None)
    parts = path.removeprefix(base + "/").strip("/").split("/")
    if not path.startswith(base + "/") or not all(parts):
        return None
    org = None
    if parts[0] == "o":
        if len(parts) < 2:
            return None
        org, parts = parts[1], parts[2:]
    if len(parts) > 1 or (parts and parts[0] not in TOOLSETS):
        return None
    return McpRoute(parts[0] if parts else None, org)


def _bearer(scope: Scope) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == b"authorization":
            kind, _, token = value.decode("latin-1").partition(" ")
            return token.strip() or None if kind.lower() == "bearer" else None
    return None


def _protocol_version(scope: Scope) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == b"mcp-protocol-version":
            return str(value.decode("latin-1"))
    return None


class McpEndpoint:
    def __init__(
        self,
        *,
        session_manager: StreamableHTTPSessionManager,
        verifier: AccessVerifier,
        db: Callable[[], Database],
        legacy: Legacy,
        resource_url: str,
        metadata_url: str,
        issuer: str | None,
        security: TransportSecuritySettings,
    ) -> None:
        self._manager = session_manager
        self._verifier = verifier
        self._db = db
        self._legacy = legacy
        self._resource = resource_url
        self._metadata_url = metadata_url
        self._issuer = issuer
        self._security = TransportSecurityMiddleware(security)

    def _challenge(self, status: int, error: str, description: str) -> Response:
        """RFC 6750 / RFC 9728: where to learn how to get a token, and which scopes to ask."""
        challenge = (
            f'Bearer error="{error}", error_description="{description}",'
            f' resource_metadata="{self._metadata_url}", scope="{" ".join(SCOPES)}"'
        )
        return JSONResponse(
            {"error": error, "error_description": description},
            status_code=status,
            headers={"www-authenticate": challenge},
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        route = parse_route(scope["path"])
        if route is None:
            await JSONResponse({"code": "not_found"}, status_code=404)(scope, receive, send)
            return
        request = Request(scope, receive)
        refused = await self._security.validate_request(request, is_post=False)
        if refused is not None:
            await refused(scope, receive, send)
            return
        token, failure = await self._authenticate(scope, route)
        if failure is not None or token is None:
            await (failure or self._challenge(401, "invalid_token", "Authentication required"))(
                scope, receive, send
            )
            return
        body = b""
        if scope["method"] == "POST":
            read = await _read_body(receive)
            if read is None:
                await JSONResponse({"code": "payload_too_large"}, status_code=413)(
                    scope, receive, send
                )
                return
            body = read
        message = _parse(body)
        if not token.can_write and _wants_write(message, token, route):
            await self._challenge(403, "insufficient_scope", "This call needs spotter:write")(
                scope, receive, send
            )
            return
        await self._serve(scope, _replay(body, receive), send, message, token, route)

    async def _authenticate(
        self, scope: Scope, route: McpRoute
    ) -> tuple[CallerToken | None, Response | None]:
        bearer = _bearer(scope)
        if bearer is None:
            return None, self._challenge(401, "invalid_token", "Authentication required")
        try:
            token = await authenticate(
                self._verifier, self._db(), bearer, self._resource, route.org, self._issuer
            )
        except SpotterError as exc:
            log_event("mcp.auth.refused", code=exc.code)
            return None, self._challenge(401, "invalid_token", "The token is not accepted here")
        except Exception as exc:
            if not is_unavailable(exc):
                raise
            log_event("mcp.error", code="service_unavailable", status=503)
            return None, unavailable_response()
        if not token.scopes or not (set(token.scopes) & set(SCOPES)):
            return None, self._challenge(
                403, "insufficient_scope", "This token has no Spotter scope"
            )
        return token, None

    async def _serve(
        self, scope: Scope, receive: Receive, send: Send, message: Any, token: CallerToken,
        route: McpRoute,
    ) -> None:  # fmt: skip
        scope["user"] = AuthenticatedUser(token)
        scope["auth"] = AuthCredentials(token.scopes)
        user_token = auth_context_var.set(scope["user"])
        route_token = _route.set(route)
        try:
            version = _protocol_version(scope)

            async def sdk(sending: Send) -> None:
                await self._manager.handle_request(scope, receive, _outage_status(sending))

            legacy = version is None or version in HANDSHAKE_PROTOCOL_VERSIONS
            if legacy and scope["method"] == "POST" and message is not None:
                await self._legacy.handle(scope, receive, send, message, token, route.toolset, sdk)
                return
            await sdk(send)
        finally:
            _route.reset(route_token)
            auth_context_var.reset(user_token)


def _wants_write(message: Any, token: CallerToken, route: McpRoute) -> bool:
    """A tools/call of a write (or the undo) by a token that may only read."""
    if not isinstance(message, dict) or message.get("method") != "tools/call":
        return False
    params = message.get("params")
    name = params.get("name") if isinstance(params, dict) else None
    if name == UNDO_TOOL:
        return True
    caller = token.caller
    if not isinstance(name, str):
        return False
    spec = catalog_for(*surface_of(caller), route.toolset).specs.get(name)
    return spec is not None and spec.side_effects == "write"


def _parse(body: bytes) -> Any:
    if not body:
        return None
    try:
        return json.loads(body)
    except ValueError:
        return None  # the SDK answers the parse error in its own words


async def _read_body(receive: Receive) -> bytes | None:
    chunks: list[bytes] = []
    size = 0
    while True:
        event = await receive()
        if event["type"] != "http.request":
            break
        chunk = event.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            return None
        chunks.append(chunk)
        if not event.get("more_body"):
            break
    return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """The body read already, once; then the client's own events (its disconnect)."""
    sent = False

    async def replaying() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replaying


def _outage_status(send: Send) -> Send:
    """A JSON answer whose JSON-RPC error reports the outage goes out as 503 + Retry-After."""

    def rewrite(start: Message, chunk: Message) -> Message:
        body = chunk.get("body", b"")
        if chunk.get("more_body") or body[:1] != b"{":
            return start
        try:
            parsed = json.loads(body)
        except ValueError:
            return start
        if not is_unavailable_error(parsed):
            return start
        headers = [*start.get("headers", []), (b"retry-after", str(RETRY_AFTER_SECONDS).encode())]
        return {**start, "status": 503, "headers": headers}

    return rewrite_start(send, rewrite)
