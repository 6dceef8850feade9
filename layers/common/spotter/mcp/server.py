"""The MCP server: `MCPServer` from the official SDK, stateless streamable HTTP (2026-07-28),
serving the caller's tools from the registry.

`SpotterMCP` overrides the two tool methods: `list_tools` answers from the caller's catalog
(role x org flags, byte-stable), `call_tool` hands the call to `spotter.mcp.calls`. The SDK
does the rest: bearer auth through our verifier (401 with the protected-resource metadata hint),
the metadata document, and sealing the request state of input-required results.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from mcp.server.auth.routes import build_resource_metadata_url, create_protected_resource_routes
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.request_state import RequestStateSecurity
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import CallToolResult, InputRequiredResult, Tool
from starlette.applications import Starlette
from starlette.routing import Route

from spotter.auth import TokenVerifier
from spotter.config import Settings
from spotter.db import Database
from spotter.mcp.auth import ClerkMcpVerifier, current_caller
from spotter.mcp.calls import McpCall, call_tool
from spotter.mcp.catalog import catalog_for
from spotter.providers.email import EmailSender
from spotter.tools.registry import surface_of

MCP_PATH = "/mcp"
SERVER_NAME = "spotter"
DEFAULT_RESOURCE_URL = "http://localhost:8000/mcp"


class SpotterMCP(MCPServer[Any]):
    def __init__(
        self, db: Callable[[], Database], sender: Callable[[], EmailSender], **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self._db = db
        self._sender = sender

    async def list_tools(self) -> list[Tool]:
        caller = current_caller()
        if not caller.is_staff:
            return []
        return list(catalog_for(*surface_of(caller)).tools)

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        caps = context.client_capabilities if context is not None else None
        request = McpCall(
            caller=current_caller(),
            name=name,
            arguments=arguments,
            can_elicit=caps is not None and caps.elicitation is not None,
            request_state=context.request_state if context is not None else None,
            input_responses=context.input_responses if context is not None else None,
        )
        return await call_tool(self._db(), self._sender(), request)


def _state_security(settings: Settings) -> RequestStateSecurity:
    if settings.mcp_state_key:
        return RequestStateSecurity(keys=[settings.mcp_state_key], audience=SERVER_NAME)
    if settings.environment == "production":
        raise RuntimeError("MCP_STATE_KEY is required in production (shared by every instance)")
    return RequestStateSecurity.ephemeral(audience=SERVER_NAME)


@dataclass(frozen=True)
class McpApp:
    """The SDK's ASGI app for `/mcp`, its session manager (run it in the host's lifespan), and
    the protected-resource metadata routes the host serves at its root."""

    app: Starlette
    session_manager: StreamableHTTPSessionManager
    metadata_routes: list[Route]
    resource_url: str


def build_mcp(
    settings: Settings,
    verifier: TokenVerifier,
    db: Callable[[], Database],
    sender: Callable[[], EmailSender],
) -> McpApp:
    resource_url = settings.mcp_resource_url or DEFAULT_RESOURCE_URL
    issuer = settings.clerk_issuer or resource_url
    auth = AuthSettings(
        issuer_url=issuer,
        resource_server_url=resource_url,
        validate_token_resource=False,  # Clerk session tokens carry no resource indicator
    )
    server = SpotterMCP(
        db,
        sender,
        name=SERVER_NAME,
        title="Spotter",
        instructions="Spotter's gym tools: programs, workouts, schedule, bookings, members.",
        token_verifier=ClerkMcpVerifier(verifier, db, settings.clerk_issuer),
        auth=auth,
        request_state_security=_state_security(settings),
    )
    host = urlparse(resource_url).netloc
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[host, "localhost:*", "127.0.0.1:*"],
        allowed_origins=[f"{urlparse(resource_url).scheme}://{host}", "http://localhost:*",
                         "http://127.0.0.1:*"],
    )  # fmt: skip
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=True,
        json_response=True,
        transport_security=security,
    )
    metadata = create_protected_resource_routes(
        resource_url=auth.resource_server_url,  # type: ignore[arg-type]
        authorization_servers=[auth.issuer_url],
        resource_name="Spotter",
    )
    # RFC 9728's path-suffixed document, and the bare one clients also try first.
    bare = [Route("/.well-known/oauth-protected-resource", r.endpoint, methods=r.methods)
            for r in metadata]  # fmt: skip
    return McpApp(app, server.session_manager, metadata + bare, resource_url)


def metadata_url(resource_url: str) -> str:
    return str(build_resource_metadata_url(resource_url))  # type: ignore[arg-type]
