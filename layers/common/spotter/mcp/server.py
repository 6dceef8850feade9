"""The MCP server: `MCPServer` from the official SDK, stateless streamable HTTP (2026-07-28, and
2025-11-25 `initialize` through `legacy`), serving the caller's tools from the registry.

`SpotterMCP` overrides the two tool methods: `list_tools` answers from the caller's catalog
(role x org flags x toolset x write scope, byte-stable), `call_tool` hands the call to
`spotter.mcp.calls`. The endpoint (`endpoint.McpEndpoint`) stands in front: it authenticates
(session or OAuth token, 401 with the protected-resource metadata and scopes), routes toolsets
and orgs, and serves what the initialize era needs beyond a stateless SDK. The SDK seals the
request state of input-required results.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import urlparse
from uuid import UUID

from mcp.server.auth.routes import build_resource_metadata_url, create_protected_resource_routes
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.request_state import RequestStateSecurity
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, InputRequiredResult, Tool
from starlette.routing import Route

from spotter.auth import TokenVerifier
from spotter.auth.oauth import SCOPES, AccessVerifier
from spotter.config import Settings
from spotter.db import Database
from spotter.db.errors import is_unavailable
from spotter.mcp.auth import current_token
from spotter.mcp.calls import PENDING_TTL, Asking, McpCall, McpDeps, call_tool
from spotter.mcp.catalog import catalog_for
from spotter.mcp.endpoint import McpEndpoint, current_route
from spotter.mcp.legacy import Legacy
from spotter.mcp.results import error_result
from spotter.mcp.session import SessionSealer, elicitation_modes
from spotter.mcp.wire import SERVER_UNAVAILABLE, UNAVAILABLE_MESSAGE, unavailable_data
from spotter.observability import log_event
from spotter.providers.email import EmailSender
from spotter.tools.registry import surface_of

MCP_PATH = "/mcp"
SERVER_NAME = "spotter"
DEFAULT_RESOURCE_URL = "http://localhost:8000/mcp"
# The SDK's seal outlives the question: a late retry still reaches us and is told `expired`.
STATE_TTL = PENDING_TTL + timedelta(hours=1)


class SpotterMCP(MCPServer[Any]):
    def __init__(self, deps: Callable[[], McpDeps], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._deps = deps

    async def list_tools(self) -> list[Tool]:
        token = current_token()
        caller = token.caller
        if not caller.is_staff:
            return []
        toolset = current_route().toolset
        return list(catalog_for(*surface_of(caller), toolset, writes=token.can_write).tools)

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        caps = context.client_capabilities if context is not None else None
        form, url = elicitation_modes(caps)
        token = current_token()
        request = McpCall(
            caller=token.caller,
            name=name,
            arguments=arguments,
            asking=Asking(form=form, url=url),
            toolset=current_route().toolset,
            writes=token.can_write,
            request_state=context.request_state if context is not None else None,
            input_responses=context.input_responses if context is not None else None,
        )
        try:
            answer = await call_tool(self._deps(), request)
        except Exception as exc:
            if is_unavailable(exc):  # the endpoint sends this error with HTTP 503
                raise MCPError(
                    code=SERVER_UNAVAILABLE, message=UNAVAILABLE_MESSAGE, data=unavailable_data()
                ) from exc
            # never a driver's or SQL's words: the error's kind goes to the log, not the client
            log_event("mcp.tool.crashed", error=type(exc).__name__)
            return error_result("internal", "The call failed.")
        if isinstance(answer, CallToolResult | InputRequiredResult):
            return answer
        return error_result("internal", "The call failed.")  # in-stream asks are legacy's


def _state_security(settings: Settings) -> RequestStateSecurity:
    ttl = STATE_TTL.total_seconds()
    if settings.mcp_state_key:
        return RequestStateSecurity(keys=[settings.mcp_state_key], audience=SERVER_NAME, ttl=ttl)
    if settings.environment == "production":
        raise RuntimeError("MCP_STATE_KEY is required in production (shared by every instance)")
    return RequestStateSecurity.ephemeral(audience=SERVER_NAME, ttl=ttl)


@dataclass(frozen=True)
class McpApp:
    """The MCP endpoint (an ASGI app for every `/mcp` URL), its session manager (run it in the
    host's lifespan), and the protected-resource metadata routes the host serves at its root."""

    app: McpEndpoint
    session_manager: StreamableHTTPSessionManager
    metadata_routes: list[Route]
    resource_url: str


def approval_url_for(settings: Settings, resource_url: str) -> Callable[[UUID], str]:
    """The dashboard's approval page of a pending call."""
    parsed = urlparse(resource_url)
    template = settings.mcp_approval_url or f"{parsed.scheme}://{parsed.netloc}/approvals/{{id}}"
    return lambda execution_id: template.replace("{id}", str(execution_id))


def build_mcp(
    settings: Settings,
    verifier: TokenVerifier,
    db: Callable[[], Database],
    sender: Callable[[], EmailSender],
) -> McpApp:
    resource_url = settings.mcp_resource_url or DEFAULT_RESOURCE_URL
    issuer = settings.clerk_oauth_issuer or settings.clerk_issuer or resource_url
    approval_url = approval_url_for(settings, resource_url)

    def deps() -> McpDeps:
        return McpDeps(db(), sender(), approval_url)

    server = SpotterMCP(
        deps,
        name=SERVER_NAME,
        title="Spotter",
        instructions="Spotter's gym tools: programs, workouts, schedule, bookings, members.",
        request_state_security=_state_security(settings),
    )
    host = urlparse(resource_url).netloc
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[host, "localhost:*", "127.0.0.1:*"],
        allowed_origins=[f"{urlparse(resource_url).scheme}://{host}", "http://localhost:*",
                         "http://127.0.0.1:*"],
    )  # fmt: skip
    server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=True,
        json_response=True,
        transport_security=security,
    )
    metadata = create_protected_resource_routes(
        resource_url=resource_url,  # type: ignore[arg-type]
        authorization_servers=[issuer],  # type: ignore[list-item]
        scopes_supported=list(SCOPES),
        resource_name="Spotter",
    )
    handler = metadata[0].endpoint
    # RFC 9728's path-suffixed document for every MCP URL (toolsets, orgs: one resource), and
    # the bare one clients also try first.
    routes = [
        Route("/.well-known/oauth-protected-resource", handler, methods=["GET", "OPTIONS"]),
        *metadata,
        Route("/.well-known/oauth-protected-resource/mcp/{rest:path}", handler,
              methods=["GET", "OPTIONS"]),
    ]  # fmt: skip
    endpoint = McpEndpoint(
        session_manager=server.session_manager,
        verifier=AccessVerifier(settings, verifier),
        db=db,
        legacy=Legacy(SessionSealer(settings.mcp_state_key), deps),
        resource_url=resource_url,
        metadata_url=metadata_url(resource_url),
        issuer=issuer,
        security=security,
    )
    return McpApp(endpoint, server.session_manager, routes, resource_url)


def metadata_url(resource_url: str) -> str:
    return str(build_resource_metadata_url(resource_url))  # type: ignore[arg-type]
