"""The MCP function's app: `/mcp` and its OAuth metadata beside the JSON reads, without the
streaming routes (so neither the model SDK nor the embedding SDK is imported).

`functions/mcp/run.sh` starts uvicorn with this factory under the Lambda Web Adapter; the
Function URL streams each response (most are one JSON answer; a confirmation asked inside a
tools/call is a stream that waits for the person: docs/mcp.md). Under SnapStart the pool opens
after each restore (`spotter.aws.snapstart`); the two secrets the server is built with are read
before the snapshot: the MCP state key (it seals state for every instance alike, never rotated)
and the Clerk secret key (OAuth token verification; a new key reaches it with the next deploy).
"""

from __future__ import annotations

from typing import Any

from spotter.aws.secrets import load_secrets
from spotter.aws.snapstart import LifecycleApp, snapstart_init, warm_secrets_client
from spotter.http.app import create_app as create_http_app

# What the MCP server is built with (spotter.mcp.server), so read before the snapshot.
BUILT_WITH = ("MCP_STATE_KEY", "CLERK_SECRET_KEY")


def warm() -> None:
    from spotter.mcp.catalog import catalog_for, catalog_keys

    warm_secrets_client()
    for key in catalog_keys():  # every list, read from the layer, and the specs its calls run
        catalog = catalog_for(key.role, key.day_grain, key.forms, key.toolset, writes=key.writes)
        _ = catalog.tools, catalog.specs


def create_app() -> Any:
    """The ASGI app uvicorn serves (`--factory`)."""
    if not snapstart_init():
        load_secrets()
        return create_http_app(streaming=False, mcp=True)
    load_secrets(only=BUILT_WITH)
    app = create_http_app(streaming=False, mcp=True, open_pool=False)
    return LifecycleApp(app, warm=warm, warm_request=("/mcp", b"{}"))
