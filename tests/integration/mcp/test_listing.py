"""tools/list: one MCP tool per action of the caller's registry (role x org flags)."""

from __future__ import annotations

import psycopg
from fastapi import FastAPI

from spotter.mcp.catalog import UNDO_TOOL
from spotter.tools.registry import registry_for
from tests.integration.mcp.conftest import MCP_URL, connect, http_client, payload, token_for
from tests.support.tokens import TokenFactory
from tests.support.world import Org


def _set_day_grain(url: str, org: Org) -> None:
    with psycopg.connect(url) as conn:
        conn.execute(
            "UPDATE organizations SET day_grain_programming = true WHERE id = %s", (org.id,)
        )


async def _names(app: FastAPI, token: str) -> list[str]:
    async with connect(app, token) as client:
        return [t.name for t in (await client.list_tools()).tools]


async def test_owner_lists_one_tool_per_registry_action_and_undo(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org
) -> None:
    names = await _names(mcp_app, token_for(tokens, org, "owner"))
    expected = sorted(
        [f"{s.router}_{s.action}" for s in registry_for("owner", False, True).specs] + [UNDO_TOOL]
    )
    assert names == expected


async def test_coach_lists_the_coach_registry(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org
) -> None:
    names = await _names(mcp_app, token_for(tokens, org, "coach"))
    coach = {f"{s.router}_{s.action}" for s in registry_for("coach", False, True).specs}
    assert set(names) - {UNDO_TOOL} == coach
    assert "programs_archive" not in names  # managers only


async def test_member_lists_no_tools(mcp_app: FastAPI, tokens: TokenFactory, org: Org) -> None:
    assert await _names(mcp_app, token_for(tokens, org, "member")) == []


async def test_day_grain_org_lists_parse_and_upsert(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    token = token_for(tokens, org, "coach")
    assert "workouts_parse" not in await _names(mcp_app, token)
    _set_day_grain(clean_db, org)
    names = await _names(mcp_app, token)
    assert {"workouts_parse", "workouts_upsert"} <= set(names)


async def _raw_list(app: FastAPI, token: str) -> bytes:
    async with http_client(app, token) as http:
        response = await http.post(
            MCP_URL,
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/list",
                "params": {
                    "_meta": {
                        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
                        "io.modelcontextprotocol/clientCapabilities": {},
                    }
                },
            },
            headers={
                "accept": "application/json, text/event-stream",
                "mcp-protocol-version": "2026-07-28",
                "mcp-method": "tools/list",
            },
        )
    assert response.status_code == 200, response.text
    return response.content


async def test_tools_list_is_byte_stable_per_role_and_flags(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org, other_org: Org
) -> None:
    first = await _raw_list(mcp_app, token_for(tokens, org, "coach"))
    again = await _raw_list(mcp_app, token_for(tokens, org, "coach"))
    another_org = await _raw_list(mcp_app, token_for(tokens, other_org, "coach"))
    owner = await _raw_list(mcp_app, token_for(tokens, org, "owner"))
    assert first == again == another_org
    assert owner != first


async def test_annotations_derive_from_the_declaration(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org
) -> None:
    async with connect(mcp_app, token_for(tokens, org, "owner")) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    read, delete, sections, create = (
        tools[n].annotations
        for n in ("workouts_get", "workouts_delete", "workouts_set_sections", "programs_create")
    )
    assert read is not None and delete is not None and sections is not None and create is not None
    assert (read.read_only_hint, read.idempotent_hint, read.open_world_hint) == (True, True, False)
    assert (delete.read_only_hint, delete.destructive_hint) == (False, True)
    assert (sections.destructive_hint, sections.idempotent_hint) == (False, True)
    assert (create.destructive_hint, create.idempotent_hint) == (False, False)
    assert delete.title == "Workouts: delete" == tools["workouts_delete"].title


async def test_schema_is_the_args_model_plus_mcp_only_fields(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org
) -> None:
    async with connect(mcp_app, token_for(tokens, org, "coach")) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    sections = tools["workouts_set_sections"].input_schema
    assert set(sections["properties"]) == {"workoutId", "parts", "sourceText", "scores"}
    assert sections["required"] == ["workoutId", "parts"]
    assert tools["workouts_get"].description == "One workout with its parts."


async def test_description_is_the_mcp_summary_when_declared(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    _set_day_grain(clean_db, org)
    async with connect(mcp_app, token_for(tokens, org, "coach")) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    spec = registry_for("coach", True, True).get("workouts", "upsert")
    assert spec is not None and spec.mcp_summary
    assert tools["workouts_upsert"].description == spec.mcp_summary != spec.summary


async def test_a_toolset_url_serves_its_tools_and_an_unknown_one_is_404(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org
) -> None:
    token = token_for(tokens, org, "owner")
    async with connect(mcp_app, token, url=f"{MCP_URL}/schedule") as client:
        names = [t.name for t in (await client.list_tools()).tools]
        refused = await client.call_tool("programs_create", {"name": "Elsewhere"})
    assert "bookings_book" in names and "programs_create" not in names and len(names) <= 40
    assert payload(refused)["code"] == "unknown_tool"  # a toolset serves only its own tools
    async with http_client(mcp_app, token) as http:
        missing = await http.post(f"{MCP_URL}/no-such-toolset", json={})
    assert missing.status_code == 404
