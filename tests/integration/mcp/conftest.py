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
from tests.support.loopback import on_loopback
from tests.support.tokens import TokenFactory
from tests.support.world import Org

BASE = "http://spotter.test"
MCP_URL = f"{BASE}/mcp"

Elicit = Callable[[Any, ElicitRequestParams], Awaitable[ElicitResult]]


# Every instance of a deployment shares the key that seals request state and session ids.
STATE_KEY = "test-mcp-state-key-" + "k" * 32


@asynccontextmanager
async def serving(settings: Settings, db: Database) -> AsyncIterator[FastAPI]:
    """One instance of the app, its lifespan running. The lifespan (the SDK's session manager)
    is entered and left by one task: anyio's cancel scopes refuse to be left from another, and
    fixture setup and teardown are two."""
    app = create_app(
        settings.model_copy(update={"mcp_resource_url": MCP_URL, "mcp_state_key": STATE_KEY}),
        db=db,
    )
    app.state.agent_deps = deps_for(db, ScriptedModel(), settings=settings)  # the undo route
    started, stop = asyncio.Event(), asyncio.Event()

    async def serve() -> None:
        async with app.router.lifespan_context(app):
            started.set()
            await stop.wait()

    task = asyncio.create_task(serve())
    await started.wait()
    try:
        yield app
    finally:
        stop.set()
        await task


@asynccontextmanager
async def listening(settings: Settings, db: Database) -> AsyncIterator[str]:
    """One instance on a loopback port (uvicorn), for what the in-process transport cannot do:
    it buffers a response to its end, so a stream that waits for the client's answer would
    never reach it. Yields the instance's MCP URL."""
    app = create_app(
        settings.model_copy(update={"mcp_resource_url": MCP_URL, "mcp_state_key": STATE_KEY}),
        db=db,
    )
    async with on_loopback(app) as origin:
        yield f"{origin}/mcp"


@pytest.fixture
async def mcp_app(settings: Settings, db: Database) -> AsyncIterator[FastAPI]:
    async with serving(settings, db) as app:
        yield app


def http_client(app: FastAPI, token: str | None) -> httpx2.AsyncClient:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app), base_url=BASE, headers=headers
    )


@asynccontextmanager
async def connect(
    app: FastAPI,
    token: str,
    *,
    elicit: Elicit | None = None,
    mode: str = "auto",
    url: str = MCP_URL,
    http: httpx2.AsyncClient | None = None,
) -> AsyncIterator[Client]:
    """The SDK's client: `mode="legacy"` speaks 2025-11-25 (initialize), "auto" 2026-07-28."""
    async with (
        http or http_client(app, token) as transport,
        Client(
            streamable_http_client(url, http_client=transport),
            elicitation_callback=elicit,
            raise_exceptions=True,
            mode=mode,
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
