"""MCP during a database outage answers as HTTP does (issue 30, item 6): HTTP 503 with
`Retry-After`, a JSON-RPC error whose data says `service_unavailable`, within seconds — never a
plain-text 500. `/healthz` says whether the database answers (readiness beside liveness)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator

import httpx2
import pytest

from spotter.config import Settings
from spotter.db import Database
from tests.integration.mcp.conftest import http_client, serving
from tests.support.outage import OwnServer
from tests.support.outage import own_server as own_server_for
from tests.support.tokens import TokenFactory
from tests.support.world import Org, create_org

ANSWER_WITHIN_SECONDS = 9.0
LIST = {"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}}
LEGACY = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@pytest.fixture
def own_server() -> Iterator[OwnServer]:
    # not under tmp_path: pytest resets /tmp/pytest-of-<user> to 0700 whenever any session
    # starts (other worktrees' too), locking the server's own user out mid-test
    with own_server_for("spotter-mcp-outage-") as server:
        yield server


@pytest.fixture
async def outage_app(
    settings: Settings, own_server: OwnServer
) -> AsyncIterator[tuple[httpx2.AsyncClient, Org]]:
    org = create_org(own_server.url, name="Outage Box")
    db = await Database.open(own_server.app_url, max_size=2)
    try:
        async with serving(settings, db) as app, http_client(app, None) as client:
            yield client, org
    finally:
        await db.close()


async def test_mcp_during_an_outage_is_503_with_retry_after_and_a_json_rpc_error(
    outage_app: tuple[httpx2.AsyncClient, Org], tokens: TokenFactory, own_server: OwnServer
) -> None:
    client, org = outage_app
    headers = {
        **LEGACY,
        "authorization": f"Bearer {tokens.token(org['owner'].clerk_user_id, org.clerk_org_id)}",
    }
    assert (await client.post("/mcp", json=LIST, headers=headers)).status_code == 200
    await asyncio.to_thread(own_server.stop)
    started = time.monotonic()
    response = await client.post("/mcp", json=LIST, headers=headers)
    elapsed = time.monotonic() - started
    assert response.status_code == 503
    assert int(response.headers["retry-after"]) > 0
    body = response.json()
    assert body["jsonrpc"] == "2.0" and body["error"]["data"]["code"] == "service_unavailable"
    assert elapsed < ANSWER_WITHIN_SECONDS, f"answered after {elapsed:.1f} s"


async def test_healthz_says_whether_the_database_answers(
    outage_app: tuple[httpx2.AsyncClient, Org], own_server: OwnServer
) -> None:
    client, _ = outage_app
    up = await client.get("/healthz")
    assert (up.status_code, up.json()["database"]) == (200, "reachable")
    await asyncio.to_thread(own_server.stop)
    alive = await client.get("/healthz")
    ready = await client.get("/healthz", params={"ready": "1"})
    assert (alive.status_code, alive.json()["database"]) == (200, "unreachable")
    assert ready.status_code == 503 and int(ready.headers["retry-after"]) > 0
