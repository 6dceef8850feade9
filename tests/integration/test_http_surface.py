"""The HTTP skeleton: health, 400 on malformed bodies before any write, body limit, trace ids."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from spotter.config import Settings
from spotter.db import Database
from spotter.http.app import create_app
from tests.support.tokens import TokenFactory
from tests.support.world import Org

CID = "00000000-0000-0000-0000-0000000000aa"


@pytest.fixture
def staff_headers(tokens: TokenFactory, org: Org) -> dict[str, str]:
    return {"authorization": f"Bearer {tokens.token(org['coach'].clerk_user_id, org.clerk_org_id)}"}


async def test_healthz_answers_without_auth(client: httpx.AsyncClient) -> None:
    response = await client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "reachable"}


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/agent/messages", {}),
        ("/agent/messages", {"text": "", "pageContext": {"pathname": "/"}}),
        ("/agent/messages", {"text": "   ", "pageContext": {"pathname": "/"}}),
        ("/agent/messages", {"text": "hi"}),
        (
            "/agent/messages",
            {"text": "hi", "pageContext": {"pathname": "/"}, "conversationId": "nope"},
        ),
        ("/agent/messages", {"text": "hi", "pageContext": {"pathname": "/"}, "surprise": 1}),
        ("/agent/messages", {"text": "x" * 20_001, "pageContext": {"pathname": "/"}}),
        (f"/agent/conversations/{CID}/confirm/toolu_1", {"approved": "maybe"}),
        (f"/agent/conversations/{CID}/confirm-batch", {"decisions": []}),
        (
            f"/agent/conversations/{CID}/confirm-batch",
            {"decisions": [{"toolUseId": f"t{i}", "approved": True} for i in range(21)]},
        ),
        (
            f"/agent/conversations/{CID}/confirm-batch",
            {
                "decisions": [
                    {"toolUseId": "t", "approved": True},
                    {"toolUseId": "t", "approved": False},
                ]
            },
        ),
        (f"/agent/conversations/{CID}/pick/toolu_1", {"id": ""}),
    ],
)
async def test_malformed_body_is_400_invalid_request(
    client: httpx.AsyncClient, staff_headers: dict[str, str], path: str, body: dict[str, Any]
) -> None:
    response = await client.post(path, json=body, headers=staff_headers)
    assert response.status_code == 400
    payload = response.json()
    assert payload["code"] == "invalid_request"
    assert payload["detail"], "the client is told what is wrong"
    assert payload["traceId"] == response.headers["x-trace-id"]


async def test_invalid_json_is_400(
    client: httpx.AsyncClient, staff_headers: dict[str, str]
) -> None:
    headers = {**staff_headers, "content-type": "application/json"}
    response = await client.post("/agent/messages", content=b"{not json", headers=headers)
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_request"


async def test_validation_errors_do_not_echo_the_input(
    client: httpx.AsyncClient, staff_headers: dict[str, str]
) -> None:
    body = {"text": "my secret plan", "pageContext": {"pathname": "/"}, "surprise": "sk-live-123"}
    response = await client.post("/agent/messages", json=body, headers=staff_headers)
    assert response.status_code == 400
    assert "sk-live-123" not in response.text


async def test_oversized_body_is_413(
    client: httpx.AsyncClient, staff_headers: dict[str, str]
) -> None:
    body = {"text": "x" * 70_000, "pageContext": {"pathname": "/"}}
    response = await client.post("/agent/messages", json=body, headers=staff_headers)
    assert response.status_code == 413
    assert response.json()["code"] == "payload_too_large"


async def test_oversized_chunked_body_is_413(
    client: httpx.AsyncClient, staff_headers: dict[str, str]
) -> None:
    async def chunks():  # type: ignore[no-untyped-def]
        for _ in range(80):
            yield b"x" * 1024

    headers = {**staff_headers, "content-type": "application/json"}
    response = await client.post("/agent/messages", content=chunks(), headers=headers)
    assert response.status_code == 413


async def test_every_response_carries_a_fresh_trace_id(client: httpx.AsyncClient) -> None:
    first = await client.get("/healthz")
    second = await client.get("/healthz")
    assert first.headers["x-trace-id"] != second.headers["x-trace-id"]


async def test_error_message_is_localized(client: httpx.AsyncClient) -> None:
    response = await client.get("/agent/usage", headers={"x-locale": "he"})
    assert response.json()["message"] == "התחברו כדי להשתמש ב-Spotter."


async def test_send_without_a_provider_streams_a_clear_error(
    client: httpx.AsyncClient, staff_headers: dict[str, str]
) -> None:
    body = {
        "text": "schedule open gym tomorrow 13:00-14:00",
        "pageContext": {"pathname": "/schedule"},
    }
    response = await client.post("/agent/messages", json=body, headers=staff_headers)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    events = [block.split("\n")[0] for block in response.text.strip().split("\n\n")]
    assert events == ["event: error", "event: done"]
    assert '"code":"provider_not_configured"' in response.text
    assert response.headers["x-trace-id"] in response.text


async def test_an_unexpected_error_is_a_500_internal_with_the_trace_id(
    settings: Settings, db: Database
) -> None:
    app = create_app(settings, db=db)

    @app.get("/boom")
    async def boom() -> None:
        raise RuntimeError("secret internals")

    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://spotter.test") as c:
        response = await c.get("/boom")
    assert response.status_code == 500
    body = response.json()
    assert body["code"] == "internal"
    assert body["traceId"] == response.headers["x-trace-id"]
    assert "secret internals" not in response.text
