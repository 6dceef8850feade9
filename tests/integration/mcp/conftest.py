"""The MCP server under test: the dev/test app (real Postgres), reached by the SDK's own client
over streamable HTTP (httpx2 to the ASGI app, no socket)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import psycopg
import pytest
from fastapi import FastAPI
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult, ElicitRequestParams, ElicitResult, TextContent

from spotter.config import Settings
from spotter.db import Database
from spotter.http.app import create_app
from spotter.providers.fake import ScriptedModel
from tests.support.agent import deps_for
from tests.support.tokens import TokenFactory
from tests.support.world import Org

BASE = "http://spotter.test"
MCP_URL = f"{BASE}/mcp"

Elicit = Callable[[Any, ElicitRequestParams], Awaitable[ElicitResult]]


@pytest.fixture
async def mcp_app(settings: Settings, db: Database) -> AsyncIterator[FastAPI]:
    app = create_app(settings.model_copy(update={"mcp_resource_url": MCP_URL}), db=db)
    app.state.agent_deps = deps_for(db, ScriptedModel(), settings=settings)  # the undo route
    # The lifespan (the SDK's session manager) is entered and left by one task: anyio's cancel
    # scopes refuse to be left from another, and fixture setup and teardown are two.
    started, stop = asyncio.Event(), asyncio.Event()

    async def serve() -> None:
        async with app.router.lifespan_context(app):
            started.set()
            await stop.wait()

    task = asyncio.create_task(serve())
    await started.wait()
    yield app
    stop.set()
    await task


def http_client(app: FastAPI, token: str | None) -> httpx2.AsyncClient:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app), base_url=BASE, headers=headers
    )


@asynccontextmanager
async def connect(
    app: FastAPI, token: str, *, elicit: Elicit | None = None
) -> AsyncIterator[Client]:
    async with (
        http_client(app, token) as http,
        Client(
            streamable_http_client(MCP_URL, http_client=http),
            elicitation_callback=elicit,
            raise_exceptions=True,
        ) as client,
    ):
        yield client


def token_for(tokens: TokenFactory, org: Org, role: str) -> str:
    return tokens.token(org[role].clerk_user_id, org.clerk_org_id)


def answer(approved: bool) -> Elicit:
    async def elicit(_ctx: Any, _params: ElicitRequestParams) -> ElicitResult:
        return ElicitResult(action="accept", content={"approved": approved})

    return elicit


def rows(url: str, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    with psycopg.connect(url) as conn:
        return conn.execute(sql, params).fetchall()


def payload(result: CallToolResult) -> Any:
    """The JSON a tools/call answered (success or error)."""
    block = result.content[0]
    assert isinstance(block, TextContent)
    return json.loads(block.text)
