"""The MCP function's app: `/mcp` and its OAuth metadata beside the JSON reads, without the
streaming routes (so neither the model SDK nor the embedding SDK is imported).

`functions/mcp/run.sh` starts uvicorn with this factory under the Lambda Web Adapter; the
Function URL relays each request (the SDK answers JSON, nothing streams). Under SnapStart the
pool opens after each restore (`spotter.aws.snapstart`); the MCP state key, which seals request
state for every instance alike and is never rotated, is the one secret read before the snapshot
(the server is built with it).
"""

from __future__ import annotations

from typing import Any

from spotter.aws.secrets import load_secrets
from spotter.aws.snapstart import LifecycleApp, snapstart_init, warm_secrets_client
from spotter.http.app import create_app as create_http_app


def warm() -> None:
    from spotter.mcp.catalog import catalog_for
    from spotter.tools.prebuilt import surfaces

    warm_secrets_client()
    for role, day_grain in surfaces():
        catalog_for(role, day_grain)


def create_app() -> Any:
    """The ASGI app uvicorn serves (`--factory`)."""
    if not snapstart_init():
        load_secrets()
        return create_http_app(streaming=False, mcp=True)
    load_secrets(only=("MCP_STATE_KEY",))
    app = create_http_app(streaming=False, mcp=True, open_pool=False)
    return LifecycleApp(app, warm=warm, warm_request=("/mcp", b"{}"))
