"""A destructive / always call over MCP: the input-required round trip on the claim ledger."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from fastapi import FastAPI
from mcp import MCPError
from mcp_types import (
    CallToolResult,
    ElicitRequest,
    ElicitRequestParams,
    ElicitResult,
    InputRequiredResult,
)

from spotter.providers.email import RecordingSender
from tests.integration.mcp.conftest import answer, connect, payload, rows, token_for
from tests.support.hitl import add_program, program_status
from tests.support.memberships import add_member
from tests.support.tokens import TokenFactory
from tests.support.world import Org


def _archive(program_id: uuid.UUID) -> dict[str, Any]:
    return {"programId": str(program_id)}


def _pending(url: str) -> list[tuple[Any, ...]]:
    return rows(
        url,
        "SELECT status, channel, confirm_policy, confirmation->>'target' FROM ai_tool_executions",
    )


async def test_approved_call_runs_once_with_the_server_built_card(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    program = add_program(clean_db, org, "Barbell Club")
    asked: list[ElicitRequestParams] = []

    async def approve(_ctx: Any, params: ElicitRequestParams) -> ElicitResult:
        asked.append(params)
        return ElicitResult(action="accept", content={"approved": True})

    async with connect(mcp_app, token_for(tokens, org, "owner"), elicit=approve) as client:
        result = await client.call_tool("programs_archive", _archive(program))
    assert not result.is_error, payload(result)
    assert program_status(clean_db, program) == "archived"
    (params,) = asked
    assert "Target: Barbell Club" in params.message
    assert _pending(clean_db) == [("succeeded", "mcp", "destructive", "Barbell Club")]
    assert rows(clean_db, "SELECT action, channel FROM audit_logs") == [("program.archived", "mcp")]


async def test_rejected_call_runs_nothing(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    program = add_program(clean_db, org, "Barbell Club")
    async with connect(mcp_app, token_for(tokens, org, "owner"), elicit=answer(False)) as client:
        result = await client.call_tool("programs_archive", _archive(program))
    assert result.is_error and payload(result)["code"] == "rejected_by_user"
    assert program_status(clean_db, program) == "active"
    assert [r[0] for r in _pending(clean_db)] == ["rejected_by_user"]
    assert rows(clean_db, "SELECT count(*) FROM audit_logs") == [(0,)]


async def test_declined_elicitation_runs_nothing(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    program = add_program(clean_db, org, "Barbell Club")

    async def decline(_ctx: Any, _params: ElicitRequestParams) -> ElicitResult:
        return ElicitResult(action="decline")

    async with connect(mcp_app, token_for(tokens, org, "owner"), elicit=decline) as client:
        result = await client.call_tool("programs_archive", _archive(program))
    assert payload(result)["code"] == "rejected_by_user"
    assert program_status(clean_db, program) == "active"


async def _ask(client: Any, program: uuid.UUID) -> InputRequiredResult:
    first = await client.session.call_tool(
        "programs_archive", _archive(program), allow_input_required=True
    )
    assert isinstance(first, InputRequiredResult)
    assert first.input_requests is not None
    assert isinstance(first.input_requests["confirm"], ElicitRequest)
    return first


def _approved() -> dict[str, Any]:
    return {"confirm": ElicitResult(action="accept", content={"approved": True})}


async def _retry(client: Any, program: uuid.UUID, state: str | None) -> Any:
    return await client.session.call_tool(
        "programs_archive", _archive(program), input_responses=_approved(),
        request_state=state, allow_input_required=True,
    )  # fmt: skip


async def test_replayed_state_runs_nothing_a_second_time(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    program = add_program(clean_db, org, "Barbell Club")
    async with connect(mcp_app, token_for(tokens, org, "owner"), elicit=answer(True)) as client:
        asked = await _ask(client, program)
        assert asked.meta is not None
        card = asked.meta["spotter/confirmation"]
        first = await _retry(client, program, asked.request_state)
        replay = await _retry(client, program, asked.request_state)
    assert isinstance(first, CallToolResult) and not first.is_error
    assert isinstance(replay, CallToolResult) and replay.is_error
    assert payload(replay)["code"] == "tool_already_resolved"
    assert card["target"] == "Barbell Club"
    assert card["arguments"] == [{"field": "programId", "value": str(program)}]
    assert rows(clean_db, "SELECT count(*) FROM audit_logs") == [(1,)]


async def test_forged_state_is_refused_and_runs_nothing(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    program = add_program(clean_db, org, "Barbell Club")
    async with connect(mcp_app, token_for(tokens, org, "owner"), elicit=answer(True)) as client:
        asked = await _ask(client, program)
        assert asked.request_state is not None
        sealed = asked.request_state
        forged = sealed[:-4] + ("AAAA" if not sealed.endswith("AAAA") else "BBBB")
        plain = json.dumps({"executionId": str(uuid.uuid4()), "orgId": str(org.id)})
        for state in (forged, plain):
            with pytest.raises(MCPError, match="Invalid or expired requestState"):
                await _retry(client, program, state)
    assert program_status(clean_db, program) == "active"
    assert [r[0] for r in _pending(clean_db)] == ["pending"]


async def test_another_orgs_answer_runs_nothing(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org, other_org: Org, clean_db: str
) -> None:
    program = add_program(clean_db, org, "Barbell Club")
    async with connect(mcp_app, token_for(tokens, org, "owner"), elicit=answer(True)) as client:
        asked = await _ask(client, program)
    async with connect(mcp_app, token_for(tokens, other_org, "owner")) as intruder:
        with pytest.raises(MCPError, match="Invalid or expired requestState"):
            await _retry(intruder, program, asked.request_state)
    assert program_status(clean_db, program) == "active"
    assert [r[0] for r in _pending(clean_db)] == ["pending"]


async def test_card_that_cannot_be_built_stores_nothing(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org, other_org: Org, clean_db: str
) -> None:
    foreign = add_program(clean_db, other_org, "Not yours")
    async with connect(mcp_app, token_for(tokens, org, "owner"), elicit=answer(True)) as client:
        result = await client.call_tool("programs_archive", _archive(foreign))
    assert result.is_error and payload(result)["code"] == "not_found"
    assert _pending(clean_db) == []
    assert program_status(clean_db, foreign) == "active"


async def test_picker_asks_for_one_of_the_candidates(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    offered: list[dict[str, Any]] = []

    async def pick(_ctx: Any, params: ElicitRequestParams) -> ElicitResult:
        offered.extend(params.requested_schema["properties"]["pick"]["oneOf"])  # type: ignore[union-attr]
        return ElicitResult(action="accept", content={"pick": "b"})

    args = {"kind": "other", "prompt": "Which one?", "candidates": [
        {"id": "a", "label": "Engine"}, {"id": "b", "label": "Barbell"},
    ]}  # fmt: skip
    async with connect(mcp_app, token_for(tokens, org, "coach"), elicit=pick) as client:
        result = await client.call_tool("read_ask_user_to_pick", args)
    assert offered == [{"const": "a", "title": "Engine"}, {"const": "b", "title": "Barbell"}]
    assert payload(result)["output"] == {
        "pickedId": "b",
        "pickedLabel": "Barbell",
        "kind": "other",
    }
    assert rows(clean_db, "SELECT status, kind FROM ai_tool_executions") == [
        ("succeeded", "user_picker")
    ]


async def test_an_email_approved_over_mcp_is_delivered_before_the_call_answers(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    sender = RecordingSender()
    mcp_app.state.email_sender = sender
    ann = add_member(clean_db, org, "Ann Bar", "ann@example.com")
    body = "Hi Ann,\n\nThe 7:00 class moves to 7:30 tomorrow."
    args = {"memberId": str(ann.membership_id), "subject": "Class moved", "body": body}
    async with connect(mcp_app, token_for(tokens, org, "owner"), elicit=answer(True)) as client:
        result = await client.call_tool("messages_send", args)
    assert not result.is_error, payload(result)
    # delivered by the call itself, as a dashboard approval delivers it: not left to the sweep
    assert [(e.to_address, e.body) for e in sender.sent] == [("ann@example.com", body)]
    assert rows(clean_db, "SELECT status FROM outbox_messages") == [("delivered",)]
    assert payload(result)["output"]["delivery"] == {"delivered": 1}
    assert rows(clean_db, "SELECT status, output->'delivery' FROM ai_tool_executions") == [
        ("succeeded", {"delivered": 1})
    ]
