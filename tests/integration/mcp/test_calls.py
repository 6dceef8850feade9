"""Inline MCP calls: through the tool runner, with execution and audit rows that say `mcp`;
undo from the MCP undo tool and from the agent's undo endpoint."""

from __future__ import annotations

from fastapi import FastAPI

from tests.integration.mcp.conftest import connect, http_client, payload, rows, token_for
from tests.support.agent import sse_payloads
from tests.support.hitl import add_program, program_status
from tests.support.tokens import TokenFactory
from tests.support.world import Org


async def test_read_returns_its_output_and_records_an_mcp_execution(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    add_program(clean_db, org, "Barbell Club")
    async with connect(mcp_app, token_for(tokens, org, "coach")) as client:
        result = await client.call_tool("programs_list", {})
    body = payload(result)
    assert not result.is_error
    assert [p["name"] for p in body["output"]["programs"]] == ["Barbell Club"]
    assert "undoAvailable" not in body
    assert rows(
        clean_db,
        "SELECT channel, actor_user_id, router, action, status, conversation_id"
        " FROM ai_tool_executions WHERE id = %s",
        body["executionId"],
    ) == [("mcp", org["coach"].user_id, "programs", "list", "succeeded", None)]


async def test_inline_write_commits_with_an_audit_row_on_the_mcp_channel(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    async with connect(mcp_app, token_for(tokens, org, "owner")) as client:
        result = await client.call_tool("programs_create", {"name": "Engine"})
    body = payload(result)
    assert body["undoAvailable"] is True
    audit = rows(
        clean_db,
        "SELECT a.action, a.channel, a.resource_id FROM ai_tool_executions e"
        " JOIN audit_logs a ON a.id = e.audit_log_id WHERE e.id = %s",
        body["executionId"],
    )
    assert audit == [("program.created", "mcp", body["output"]["id"])]


async def test_invalid_arguments_are_an_error_result_naming_the_field(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    async with connect(mcp_app, token_for(tokens, org, "owner")) as client:
        result = await client.call_tool("programs_create", {"name": ""})
    assert result.is_error
    body = payload(result)
    assert body["code"] == "invalid_args"
    assert [p["field"] for p in body["details"]["problems"]] == ["name"]
    assert rows(clean_db, "SELECT count(*) FROM programs") == [(0,)]


async def test_member_call_is_refused_and_runs_nothing(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    async with connect(mcp_app, token_for(tokens, org, "member")) as client:
        result = await client.call_tool("programs_list", {})
    assert result.is_error and payload(result)["code"] == "staff_only"
    assert rows(clean_db, "SELECT count(*) FROM ai_tool_executions") == [(0,)]


async def test_inline_write_is_undone_once_through_the_mcp_undo_tool(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    async with connect(mcp_app, token_for(tokens, org, "owner")) as client:
        created = payload(await client.call_tool("programs_create", {"name": "Engine"}))
        undone = await client.call_tool("spotter_undo", {"executionId": created["executionId"]})
        again = await client.call_tool("spotter_undo", {"executionId": created["executionId"]})
    assert not undone.is_error, payload(undone)
    assert program_status(clean_db, created["output"]["id"]) == "archived"
    assert again.is_error and payload(again)["code"] == "undo_already_done"
    linked = rows(
        clean_db,
        "SELECT u.action, a.channel, a.reverses_audit_log_id = e.audit_log_id"
        " FROM ai_tool_undos u JOIN ai_tool_executions e ON e.id = u.execution_id"
        " JOIN audit_logs a ON a.id = u.audit_log_id WHERE u.execution_id = %s",
        created["executionId"],
    )
    assert linked == [("archive", "mcp", True)]


async def test_undo_tool_refuses_another_users_call(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    async with connect(mcp_app, token_for(tokens, org, "owner")) as client:
        created = payload(await client.call_tool("programs_create", {"name": "Engine"}))
    async with connect(mcp_app, token_for(tokens, org, "admin")) as client:
        refused = await client.call_tool("spotter_undo", {"executionId": created["executionId"]})
    assert refused.is_error and payload(refused)["code"] == "not_found"
    assert program_status(clean_db, created["output"]["id"]) == "active"


async def test_mcp_write_is_undone_from_the_agent_undo_endpoint(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    token = token_for(tokens, org, "owner")
    async with connect(mcp_app, token) as client:
        created = payload(await client.call_tool("programs_create", {"name": "Engine"}))
    async with http_client(mcp_app, token) as http:
        response = await http.post(f"/agent/executions/{created['executionId']}/undo")
        twice = await http.post(f"/agent/executions/{created['executionId']}/undo")
    events = sse_payloads(response.text)
    assert [e["type"] for e in events] == ["tool_started", "tool_completed", "done"]
    assert events[1]["ok"] is True
    assert program_status(clean_db, created["output"]["id"]) == "archived"
    assert twice.status_code == 422 and twice.json()["code"] == "undo_already_done"
    assert rows(
        clean_db, "SELECT channel FROM audit_logs WHERE reverses_audit_log_id IS NOT NULL"
    ) == [("agent",)]
