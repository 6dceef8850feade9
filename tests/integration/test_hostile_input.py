"""Input Postgres cannot hold, and the framework's own refusals, answered in our error shape."""

from __future__ import annotations

import json
from typing import Any

import httpx
import psycopg
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


def _stored_rows(url: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT (SELECT count(*) FROM ai_conversations) + (SELECT count(*) FROM ai_messages)"
        ).fetchone()
    assert row is not None
    return int(row[0])


def _assert_error_shape(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status
    body = response.json()
    assert set(body) == {"code", "message", "detail", "traceId"}
    assert body["code"] == code
    assert body["message"] and body["message"] != f"agent.errors.{code}", "localized"
    assert body["traceId"] == response.headers["x-trace-id"]


@pytest.mark.parametrize(
    "body",
    [
        {"text": "hello\u0000world", "pageContext": {"pathname": "/"}},
        {"text": "hello", "pageContext": {"pathname": "/sched\u0000ule"}},
        {"text": "hello", "pageContext": {"pathname": "/", "selection": {"kind": "a\u0000"}}},
        {"text": "hello", "pageContext": {"pathname": "/", "selection": {"k\u0000": 1}}},
        {"text": "hello", "pageContext": {"pathname": "/", "selection": {"ids": ["x", "\u0000"]}}},
    ],
)
async def test_a_nul_anywhere_in_a_send_is_400_and_writes_nothing(
    client: httpx.AsyncClient, staff_headers: dict[str, str], clean_db: str, body: dict[str, Any]
) -> None:
    response = await client.post("/agent/messages", json=body, headers=staff_headers)
    _assert_error_shape(response, 400, "invalid_request")
    assert _stored_rows(clean_db) == 0


# JSON may spell a lone surrogate (`\ud800`), which no UTF-8 text holds: sent as raw escapes
LONE_SURROGATE_BODIES = [
    '{"text": "hello \\ud800x", "pageContext": {"pathname": "/"}}',
    '{"text": "hello", "pageContext": {"pathname": "/\\udfff"}}',
    '{"text": "hello", "pageContext": {"pathname": "/", "selection": {"memberName": "\\ud800x"}}}',
    '{"text": "hello", "pageContext": {"pathname": "/", "selection": {"\\udc00": 1}}}',
]


@pytest.mark.parametrize("content", LONE_SURROGATE_BODIES)
async def test_a_lone_surrogate_anywhere_in_a_send_is_400_and_writes_nothing(
    client: httpx.AsyncClient, staff_headers: dict[str, str], clean_db: str, content: str
) -> None:
    headers = {**staff_headers, "content-type": "application/json"}
    response = await client.post("/agent/messages", content=content.encode(), headers=headers)
    _assert_error_shape(response, 400, "invalid_request")
    assert _stored_rows(clean_db) == 0


@pytest.mark.parametrize(
    ("path", "content"),
    [
        (f"/agent/conversations/{CID}/pick/toolu_1", '{"id": "a\\ud800"}'),
        (f"/agent/conversations/{CID}/confirm/toolu_1", '{"approved": false, "reason": "\\udfff"}'),
    ],
)
async def test_a_lone_surrogate_in_a_decision_body_is_400(
    client: httpx.AsyncClient, staff_headers: dict[str, str], path: str, content: str
) -> None:
    headers = {**staff_headers, "content-type": "application/json"}
    response = await client.post(path, content=content.encode(), headers=headers)
    _assert_error_shape(response, 400, "invalid_request")


@pytest.mark.parametrize(
    ("path", "body"),
    [
        (f"/agent/conversations/{CID}/pick/toolu_1", {"id": "a\u0000b"}),
        (
            f"/agent/conversations/{CID}/confirm-batch",
            {"decisions": [{"toolUseId": "t\u00001", "approved": True}]},
        ),
    ],
)
async def test_a_nul_in_a_decision_body_is_400(
    client: httpx.AsyncClient, staff_headers: dict[str, str], path: str, body: dict[str, Any]
) -> None:
    response = await client.post(path, json=body, headers=staff_headers)
    _assert_error_shape(response, 400, "invalid_request")


@pytest.mark.parametrize(
    "path",
    [
        f"/agent/conversations/{CID}/undo/a%00b",
        f"/agent/conversations/{CID}/confirm/a%00b",
        f"/agent/conversations/{CID}/pick/a%00b",
    ],
)
async def test_a_nul_in_the_path_is_400_not_500(
    client: httpx.AsyncClient, staff_headers: dict[str, str], path: str
) -> None:
    response = await client.post(path, json={"approved": True, "id": "x"}, headers=staff_headers)
    _assert_error_shape(response, 400, "invalid_request")


async def test_a_nul_in_the_query_is_400(
    client: httpx.AsyncClient, staff_headers: dict[str, str]
) -> None:
    response = await client.get("/agent/conversations?cursor=a%00b", headers=staff_headers)
    _assert_error_shape(response, 400, "invalid_request")


async def test_an_unknown_route_is_404_in_our_shape(client: httpx.AsyncClient) -> None:
    _assert_error_shape(await client.get("/no/such/route"), 404, "not_found")


async def test_a_wrong_method_is_405_in_our_shape(client: httpx.AsyncClient) -> None:
    response = await client.delete("/healthz")
    _assert_error_shape(response, 405, "method_not_allowed")
    assert "GET" in response.headers["allow"]


async def test_the_framework_error_is_localized(client: httpx.AsyncClient) -> None:
    response = await client.get("/no/such/route", headers={"x-locale": "ru"})
    assert response.json()["message"] == "Не найдено."


async def test_a_body_nested_2000_deep_is_400_in_our_shape(
    client: httpx.AsyncClient, staff_headers: dict[str, str]
) -> None:
    deep = "[" * 2000 + "]" * 2000
    content = '{"text": "hi", "pageContext": {"pathname": "/", "selection": {"a": ' + deep + "}}}"
    headers = {**staff_headers, "content-type": "application/json"}
    response = await client.post("/agent/messages", content=content.encode(), headers=headers)
    _assert_error_shape(response, 400, "invalid_request")


async def test_openapi_and_docs_are_served_outside_production(client: httpx.AsyncClient) -> None:
    schema = await client.get("/openapi.json")
    assert schema.status_code == 200
    assert "/agent/messages" in json.dumps(schema.json()["paths"])
    assert (await client.get("/docs")).status_code == 200


@pytest.mark.parametrize("path", ["/openapi.json", "/docs", "/redoc"])
async def test_openapi_and_docs_are_off_in_production(
    settings: Settings, db: Database, path: str
) -> None:
    # as the Lambda functions build it (the MCP function's own app is checked in its tests)
    app = create_app(settings.model_copy(update={"environment": "production"}), db=db, mcp=False)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://spotter.test") as c:
        _assert_error_shape(await c.get(path), 404, "not_found")
