"""The streaming functions' app (send, confirm, confirm-batch, pick, undo).

`functions/api/run.sh` starts uvicorn with this factory; the Lambda Web Adapter relays each
Function URL request to it and streams the response. Uvicorn runs the lifespan once per process,
so the pool opens once per container.
"""

from __future__ import annotations

from fastapi import FastAPI

from spotter.aws.secrets import load_secrets
from spotter.http.app import create_app as create_http_app


def create_app() -> FastAPI:
    load_secrets()
    return create_http_app(mcp=False)  # the MCP server is its own function (spotter.aws.mcp)
