"""Over MCP too, a picker offers what the server knows each id to be (issue 30 item 8)."""

from __future__ import annotations

import uuid
from typing import Any

from fastapi import FastAPI
from mcp_types import ElicitRequestParams, ElicitResult

from tests.integration.mcp.conftest import connect, payload, rows, token_for
from tests.support.memberships import add_member
from tests.support.tokens import TokenFactory
from tests.support.world import Org


async def test_the_elicitation_names_each_candidate_from_its_id(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    maya = add_member(clean_db, org, "Maya Rosen", "maya@example.com")
    dana = add_member(clean_db, org, "Dana Levi", "dana@example.com")
    offered: list[dict[str, Any]] = []

    async def pick(_ctx: Any, params: ElicitRequestParams) -> ElicitResult:
        offered.extend(params.requested_schema["properties"]["pick"]["oneOf"])  # type: ignore[union-attr]
        return ElicitResult(action="accept", content={"pick": str(dana.membership_id)})

    args = {"kind": "member", "prompt": "Which one?", "candidates": [
        {"id": str(dana.membership_id), "label": "Maya Rosen"},
        {"id": str(maya.membership_id), "label": "Dana Levi"},
    ]}  # fmt: skip
    async with connect(mcp_app, token_for(tokens, org, "coach"), elicit=pick) as client:
        result = await client.call_tool("read_ask_user_to_pick", args)
    assert [o["title"] for o in offered] == ["Dana Levi", "Maya Rosen"]
    assert payload(result)["output"]["pickedLabel"] == "Dana Levi"


async def test_an_id_the_server_cannot_name_is_not_found_and_nothing_is_stored(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    maya = add_member(clean_db, org, "Maya Rosen")
    args = {"kind": "member", "prompt": "Which one?", "candidates": [
        {"id": str(maya.membership_id), "label": "Maya Rosen"},
        {"id": str(uuid.uuid4()), "label": "Maya Rosen"},
    ]}  # fmt: skip
    asked: list[ElicitRequestParams] = []

    async def pick(_ctx: Any, params: ElicitRequestParams) -> ElicitResult:
        asked.append(params)
        return ElicitResult(action="cancel")

    async with connect(mcp_app, token_for(tokens, org, "coach"), elicit=pick) as client:
        result = await client.call_tool("read_ask_user_to_pick", args)
    assert result.is_error and payload(result)["code"] == "not_found"
    assert asked == [], "nobody is asked to pick what the server cannot name"
    assert rows(clean_db, "SELECT count(*) FROM ai_tool_executions") == [(0,)]
