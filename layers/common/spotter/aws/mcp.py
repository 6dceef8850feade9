"""The MCP function's app: `/mcp` and its OAuth metadata beside the JSON reads, without the
streaming routes (so neither the model SDK nor the embedding SDK is imported).

`functions/mcp/run.sh` starts uvicorn with this factory under the Lambda Web Adapter; the
Function URL streams each response (most are one JSON answer; a confirmation asked inside a
tools/call is a stream that waits for the person: docs/mcp.md).
"""

from __future__ import annotations

from fastapi import FastAPI

from spotter.aws.secrets import load_secrets
from spotter.http.app import create_app as create_http_app


def create_app() -> FastAPI:
    load_secrets()
    return create_http_app(streaming=False, mcp=True)
