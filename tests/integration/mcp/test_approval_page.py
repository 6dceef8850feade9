"""A client with no elicitation gets the approval page's URL, not a dead end: once the person
approves there (signed in to the dashboard), the client's retry of the same call runs it once;
a retry without approval runs nothing; a rejection or a lapsed question is told once."""

from __future__ import annotations

import uuid
from typing import Any

import httpx2
from fastapi import FastAPI

from spotter.agent.approvals.settle import sweep
from spotter.db import Database
from tests.integration.mcp.conftest import BASE, connect, http_client, payload, rows, token_for
from tests.support.hitl import add_program, program_status
from tests.support.tokens import TokenFactory
from tests.support.world import Org


def _archive(program_id: uuid.UUID) -> dict[str, Any]:
    return {"programId": str(program_id)}


async def _call(app: FastAPI, token: str, program: uuid.UUID) -> dict[str, Any]:
    async with connect(app, token) as client:  # no elicitation callback: none declared
        result = await client.call_tool("programs_archive", _archive(program))
    body: dict[str, Any] = payload(result)
    return body


async def _decide(app: FastAPI, token: str, execution_id: str, decision: str) -> httpx2.Response:
    async with http_client(app, token) as http:
        return await http.post(f"/agent/approvals/{execution_id}", json={"decision": decision})


async def test_no_elicitation_gets_an_approval_url_naming_the_action_and_its_card(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    program = add_program(clean_db, org, "Barbell Club")
    body = await _call(mcp_app, token_for(tokens, org, "owner"), program)
    assert body["code"] == "confirmation_required"
    assert body["approvalUrl"] == f"{BASE}/approvals/{body['executionId']}"
    assert body["tool"] == "programs_archive" and body["card"]["target"] == "Barbell Club"
    assert body["approvalUrl"] in body["message"]
    assert program_status(clean_db, program) == "active"


async def test_approved_on_the_page_the_retry_runs_the_call_once(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    program = add_program(clean_db, org, "Barbell Club")
    owner = token_for(tokens, org, "owner")
    asked = await _call(mcp_app, owner, program)
    async with http_client(mcp_app, owner) as http:
        page = (await http.get(f"/agent/approvals/{asked['executionId']}")).json()
    assert page["state"] == "pending" and page["card"]["target"] == "Barbell Club"
    approved = await _decide(mcp_app, owner, asked["executionId"], "approve")
    assert approved.status_code == 200 and approved.json()["state"] == "approved"
    assert program_status(clean_db, program) == "active"  # approving runs nothing by itself
    ran = await _call(mcp_app, owner, program)
    again = await _call(mcp_app, owner, program)
    assert ran["executionId"] == asked["executionId"] and "output" in ran
    assert program_status(clean_db, program) == "archived"
    assert rows(clean_db, "SELECT count(*) FROM audit_logs") == [(1,)]
    # the next identical call is a new one: it asks again (and the program is archived already)
    assert again.get("code") != "tool_already_resolved"


async def test_a_retry_without_approval_runs_nothing_and_asks_the_same_question(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    program = add_program(clean_db, org, "Barbell Club")
    owner = token_for(tokens, org, "owner")
    first = await _call(mcp_app, owner, program)
    second = await _call(mcp_app, owner, program)
    assert second["code"] == "confirmation_required"
    assert second["executionId"] == first["executionId"]
    assert program_status(clean_db, program) == "active"
    assert rows(clean_db, "SELECT status FROM ai_tool_executions") == [("pending",)]


async def test_rejected_on_the_page_the_retry_is_told_and_nothing_runs(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    program = add_program(clean_db, org, "Barbell Club")
    owner = token_for(tokens, org, "owner")
    asked = await _call(mcp_app, owner, program)
    assert (await _decide(mcp_app, owner, asked["executionId"], "reject")).json()["state"] == (
        "rejected"
    )
    told = await _call(mcp_app, owner, program)
    assert told["code"] == "rejected_by_user"
    assert program_status(clean_db, program) == "active"


async def test_only_the_caller_sees_and_decides_their_pending_call(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org, other_org: Org, clean_db: str
) -> None:
    program = add_program(clean_db, org, "Barbell Club")
    asked = await _call(mcp_app, token_for(tokens, org, "owner"), program)
    for intruder in (token_for(tokens, org, "admin"), token_for(tokens, other_org, "owner")):
        async with http_client(mcp_app, intruder) as http:
            seen = await http.get(f"/agent/approvals/{asked['executionId']}")
        decided = await _decide(mcp_app, intruder, asked["executionId"], "approve")
        assert seen.status_code == decided.status_code == 404
    assert rows(clean_db, "SELECT approved_at FROM ai_tool_executions") == [(None,)]


async def test_an_oauth_client_token_cannot_approve_on_the_page(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    # The model's client holds an OAuth access token: the page's API takes sessions only.
    program = add_program(clean_db, org, "Barbell Club")
    asked = await _call(mcp_app, token_for(tokens, org, "owner"), program)
    person = org["owner"]
    oauth = tokens.sign(
        {**tokens.claims(person.clerk_user_id, org.clerk_org_id), "client_id": "ide", "aud": BASE},
        headers={"typ": "at+jwt"},
    )
    assert (await _decide(mcp_app, oauth, asked["executionId"], "approve")).status_code == 401
    assert rows(clean_db, "SELECT approved_at FROM ai_tool_executions") == [(None,)]


async def test_a_lapsed_question_is_closed_expired_and_the_late_retry_is_told_once(
    mcp_app: FastAPI, db: Database, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    program = add_program(clean_db, org, "Barbell Club")
    owner = token_for(tokens, org, "owner")
    asked = await _call(mcp_app, owner, program)
    rows(clean_db, "UPDATE ai_tool_executions SET expires_at = now() - interval '1 second'"
         " RETURNING id")  # fmt: skip
    report = await sweep(db)
    assert report.mcp_expired == 1
    assert rows(clean_db, "SELECT status, error->>'code' FROM ai_tool_executions") == [
        ("failed", "expired")
    ]
    late = await _decide(mcp_app, owner, asked["executionId"], "approve")
    told = await _call(mcp_app, owner, program)
    fresh = await _call(mcp_app, owner, program)
    assert late.status_code == 409
    assert told["code"] == "expired"
    assert fresh["code"] == "confirmation_required" and fresh["executionId"] != asked["executionId"]
    assert program_status(clean_db, program) == "active"
