"""MCP input is validated as HTTP's is (issue 30, item 5): a NUL or an unpaired surrogate in a
tool's arguments is a clean `invalid_args` naming the problem, never a driver's or SQL's words,
and nothing is written."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi import FastAPI

from tests.integration.mcp.conftest import connect, http_client, payload, rows, token_for
from tests.support.tokens import TokenFactory
from tests.support.world import Org

DRIVER_WORDS = ("unicode escape", "portal", "$", "psycopg", "sql", "postgres", "encode")
LEGACY = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def _clean(message: str) -> bool:
    return not any(word in message.lower() for word in DRIVER_WORDS)


async def test_a_nul_in_mcp_arguments_is_invalid_args_and_writes_nothing(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    async with connect(mcp_app, token_for(tokens, org, "owner")) as client:
        result = await client.call_tool("programs_create", {"name": "Barbell\x00Club"})
    body = payload(result)
    assert result.is_error and body["code"] == "invalid_args"
    assert _clean(body["message"]), body["message"]
    assert rows(clean_db, "SELECT count(*) FROM programs") == [(0,)]
    assert rows(clean_db, "SELECT count(*) FROM ai_tool_executions") == [(0,)]


@pytest.mark.parametrize(
    "description", ["line one\x00line two", "broken \ud800 pair"], ids=["nul", "lone-surrogate"]
)
async def test_hostile_text_deep_in_a_legacy_call_is_invalid_args(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org, clean_db: str, description: str
) -> None:
    arguments: dict[str, Any] = {"name": "Engine", "description": description}
    call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "programs_create", "arguments": arguments}}  # fmt: skip
    body = json.dumps(
        call
    )  # ASCII escapes: the surrogate travels as `\ud800`, as a client sends it
    async with http_client(mcp_app, token_for(tokens, org, "owner")) as http:
        response = await http.post("/mcp", content=body, headers=LEGACY)
    assert response.status_code == 200
    result = response.json()["result"]
    assert result["isError"] is True
    assert '"invalid_args"' in result["content"][0]["text"]
    assert _clean(result["content"][0]["text"])
    assert rows(clean_db, "SELECT count(*) FROM programs") == [(0,)]
