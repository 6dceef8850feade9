"""2025-11-25 clients (the initialize handshake) confirm through elicitation inside the tools/call
response stream, on a stateless server: the session id carries what the handshake negotiated,
and the answer's POST may reach another instance (handed over through Postgres)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest
from fastapi import FastAPI
from mcp_types import ElicitRequestParams, ElicitResult

from spotter.config import Settings
from spotter.db import Database
from tests.integration.mcp.conftest import (
    MCP_URL,
    answer,
    connect,
    http_client,
    listening,
    payload,
    rows,
    token_for,
)
from tests.support.callers import caller_for
from tests.support.schedule import class_type, session, today
from tests.support.tokens import TokenFactory
from tests.support.world import Org, add_person

INIT = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
               "clientInfo": {"name": "probe", "version": "1"}},
}  # fmt: skip
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


async def _spot(db: Database, org: Org, clean_db: str) -> dict[str, str]:
    owner = await caller_for(db, org, "owner")
    sid = await session(db, owner, await class_type(db, owner, capacity=10), today(1))
    dana = add_person(clean_db, org, "Dana Levi")
    return {"sessionId": sid, "memberId": str(dana.membership_id)}


def _bookings(url: str) -> list[tuple[Any, ...]]:
    return rows(url, "SELECT status FROM bookings")


@pytest.fixture
async def live(settings: Settings, db: Database) -> AsyncIterator[str]:
    async with listening(settings, db) as url:
        yield url


def _over_http(
    token: str, transport: httpx2.AsyncBaseTransport | None = None
) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(
        transport=transport, headers={"Authorization": f"Bearer {token}"}, timeout=30
    )


async def test_a_legacy_client_confirms_a_booking_in_the_stream_and_it_exists_once(
    live: str, mcp_app: FastAPI, db: Database, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    spot = await _spot(db, org, clean_db)
    asked: list[ElicitRequestParams] = []

    async def approve(_ctx: Any, params: ElicitRequestParams) -> ElicitResult:
        asked.append(params)
        return ElicitResult(action="accept", content={"approved": True})

    token = token_for(tokens, org, "owner")
    async with connect(
        mcp_app, token, elicit=approve, mode="legacy", url=live, http=_over_http(token)
    ) as client:
        assert client.session.protocol_version == "2025-11-25"
        result = await client.call_tool("bookings_book", spot)
    assert not result.is_error, payload(result)
    (question,) = asked
    assert question.message.startswith("Approve: Book a member?")  # the card's words, no key
    assert "Dana Levi" in question.message
    assert _bookings(clean_db) == [("booked",)]
    assert rows(clean_db, "SELECT status, channel FROM ai_tool_executions") == [
        ("succeeded", "mcp")
    ]
    assert rows(clean_db, "SELECT answer->>'action' FROM mcp_elicitations") == [("accept",)]


async def test_a_declined_elicitation_books_nothing(
    live: str, mcp_app: FastAPI, db: Database, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    spot = await _spot(db, org, clean_db)

    async def decline(_ctx: Any, _params: ElicitRequestParams) -> ElicitResult:
        return ElicitResult(action="decline")

    token = token_for(tokens, org, "owner")
    async with connect(
        mcp_app, token, elicit=decline, mode="legacy", url=live, http=_over_http(token)
    ) as client:
        result = await client.call_tool("bookings_book", spot)
    assert result.is_error and payload(result)["code"] == "rejected_by_user"
    assert _bookings(clean_db) == []
    assert rows(clean_db, "SELECT count(*) FROM audit_logs WHERE action LIKE 'booking.%%'") == [
        (0,)
    ]


async def test_answered_no_books_nothing(
    live: str, mcp_app: FastAPI, db: Database, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    spot = await _spot(db, org, clean_db)
    token = token_for(tokens, org, "owner")
    async with connect(
        mcp_app, token, elicit=answer(False), mode="legacy", url=live, http=_over_http(token)
    ) as client:
        result = await client.call_tool("bookings_book", spot)
    assert payload(result)["code"] == "rejected_by_user"
    assert _bookings(clean_db) == []


class TwoInstances(httpx2.AsyncBaseTransport):
    """Sends each POST that answers a server request (a JSON-RPC response) to instance B and
    everything else to instance A: the answer never reaches the instance holding the stream."""

    def __init__(self, b: str) -> None:
        self.http = httpx2.AsyncHTTPTransport()
        self.b = httpx2.URL(b)
        self.answers_to_b = 0

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        body = await request.aread()
        message = json.loads(body) if body else None
        if isinstance(message, dict) and "method" not in message and "result" in message:
            self.answers_to_b += 1
            request.url = request.url.copy_with(port=self.b.port)
            request.headers["host"] = f"{self.b.host}:{self.b.port}"
        return await self.http.handle_async_request(request)


@pytest.fixture
async def instance_b(settings: Settings, db: Database) -> AsyncIterator[str]:
    async with listening(settings, db) as url:
        yield url


async def test_the_answer_reaching_another_instance_still_runs_the_call_once(
    live: str, instance_b: str, mcp_app: FastAPI, db: Database, tokens: TokenFactory, org: Org,
    clean_db: str,
) -> None:  # fmt: skip
    spot = await _spot(db, org, clean_db)
    token = token_for(tokens, org, "owner")
    router = TwoInstances(instance_b)
    http = _over_http(token, router)
    async with connect(
        mcp_app, token, elicit=answer(True), mode="legacy", url=live, http=http
    ) as client:
        result = await client.call_tool("bookings_book", spot)
    assert not result.is_error, payload(result)
    assert router.answers_to_b == 1
    assert _bookings(clean_db) == [("booked",)]


async def _session_id(app: FastAPI, token: str) -> str:
    async with http_client(app, token) as http:
        response = await http.post(MCP_URL, json=INIT, headers=HEADERS)
    assert response.status_code == 200
    return response.headers["mcp-session-id"]


async def test_a_session_id_is_unguessable_and_bound_to_its_user(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org
) -> None:
    owner, admin = token_for(tokens, org, "owner"), token_for(tokens, org, "admin")
    first, second = await _session_id(mcp_app, owner), await _session_id(mcp_app, owner)
    assert first != second and len(first) > 60
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    async with http_client(mcp_app, owner) as http:
        ok = await http.post(MCP_URL, json=ping, headers={**HEADERS, "mcp-session-id": first})
        forged = await http.post(
            MCP_URL, json=ping, headers={**HEADERS, "mcp-session-id": first[:-3] + "AAA"}
        )
    async with http_client(mcp_app, admin) as http:
        stolen = await http.post(MCP_URL, json=ping, headers={**HEADERS, "mcp-session-id": first})
    assert ok.status_code == 200
    assert forged.status_code == stolen.status_code == 404


async def test_an_answer_from_another_session_runs_nothing(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    token = token_for(tokens, org, "owner")
    other_session = await _session_id(mcp_app, token)
    forged = {"jsonrpc": "2.0", "id": "spotter-elicit-00000000-0000-0000-0000-000000000000",
              "result": {"action": "accept", "content": {"approved": True}}}  # fmt: skip
    async with http_client(mcp_app, token) as http:
        response = await http.post(
            MCP_URL, json=forged, headers={**HEADERS, "mcp-session-id": other_session}
        )
    assert response.status_code == 400
    assert rows(clean_db, "SELECT count(*) FROM mcp_elicitations WHERE answer IS NOT NULL") == [
        (0,)
    ]
