"""Issue 26 item 13 / issue 30 item 11: a health form's answers are read by owners and admins
only, on every channel — the tool through the model, HTTP (the stream and the conversation
read), MCP — and the forms router is absent for an org type that keeps no forms."""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

import pytest
from fastapi import FastAPI

from spotter.db import Database
from spotter.domain import forms
from spotter.providers.fake import Reply, ScriptedModel, Text, ToolUse, tool_reply
from spotter.tools.registry import registry_for_caller
from tests.integration.mcp.conftest import connect, http_client, mcp_app, payload, token_for
from tests.support.agent import deps_for, run_turn, sse_payloads
from tests.support.callers import caller_for
from tests.support.forms import published_waiver, scope_of, set_org_type, sign
from tests.support.tokens import TokenFactory
from tests.support.world import Org

__all__ = ["mcp_app"]  # the MCP tests' app fixture: HTTP and MCP on one app

PARQ_FIELDS: list[dict[str, Any]] = [
    {"key": "heart", "label": "Heart condition?", "type": "yes_no", "required": True},
    {"key": "medication", "label": "Medication?", "type": "short_text", "required": True},
    {"key": "signature", "label": "Signature", "type": "signature", "required": True},
]
SECRET = "beta blockers since 2019"  # what a coach must never read
PARQ_ANSWERS = {"heart": True, "medication": SECRET, "signature": "Noa"}


async def _health_submission(db: Database, org: Org) -> UUID:
    async with scope_of(db, org) as scope:
        form = await forms.create_form(scope, kind="health", name="PAR-Q", fields=PARQ_FIELDS)
        await forms.publish(scope, form["id"], published_by=None)
        row = await forms.record_submission(
            scope, form["id"], org["member"].membership_id, PARQ_ANSWERS
        )
    return UUID(str(row["id"]))


def _read(submission: UUID, tool_use_id: str = "t1") -> ToolUse:
    args = {"submissionId": str(submission)}
    return ToolUse("forms", {"action": "submission", "args": args}, id=tool_use_id)


def _tool_result(request: dict[str, Any]) -> dict[str, Any]:
    """What the model was told: the tool_result of the last user turn."""
    [block] = [b for b in request["messages"][-1]["content"] if b["type"] == "tool_result"]
    content = block["content"]
    text = content if isinstance(content, str) else content[0]["text"]
    return dict(json.loads(text))


@pytest.mark.parametrize(("role", "shown"), [("owner", True), ("admin", True), ("coach", False)])
async def test_health_answers_reach_the_model_for_managers_only(
    db: Database, org: Org, role: str, shown: bool
) -> None:
    submission = await _health_submission(db, org)
    model = ScriptedModel([tool_reply(_read(submission)), Reply([Text("Noted.")])])
    await run_turn(deps_for(db, model), await caller_for(db, org, role), "Noa's PAR-Q?")
    told = _tool_result(model.requests[1])
    assert (told["formKind"], told["signer"] is not None) == ("health", True)
    assert ("answers" in told) is shown
    assert (SECRET in json.dumps(model.requests[1])) is shown
    if not shown:
        assert told["answersWithheld"] == "Health answers are shown to owners and admins only."


async def test_a_coach_reads_a_waivers_answers_but_not_its_injury_answer(
    db: Database, org: Org
) -> None:
    """A waiver's injury question is health data though the form is a waiver (fix31 item 2):
    the coach reads who signed and every other answer, and is told what was withheld."""
    waiver = await published_waiver(db, org)
    submission = await sign(db, org, waiver, org["member"].membership_id)
    model = ScriptedModel([tool_reply(_read(submission)), Reply([Text("Signed.")])])
    await run_turn(deps_for(db, model), await caller_for(db, org, "coach"), "Did Noa sign?")
    told = _tool_result(model.requests[1])
    assert sorted(a["field"] for a in told["answers"]) == ["emergency_contact", "signature"]
    assert told["withheldFields"] == ["injuries"]
    assert told["answersWithheld"] == "Health answers are shown to owners and admins only."


async def test_an_owner_reads_a_waivers_injury_answer_marked_as_health(
    db: Database, org: Org
) -> None:
    waiver = await published_waiver(db, org)
    submission = await sign(db, org, waiver, org["member"].membership_id)
    model = ScriptedModel([tool_reply(_read(submission)), Reply([Text("Signed.")])])
    await run_turn(deps_for(db, model), await caller_for(db, org, "owner"), "Did Noa sign?")
    told = _tool_result(model.requests[1])
    marks = {a["field"]: a["health"] for a in told["answers"]}
    assert marks == {"emergency_contact": False, "injuries": True, "signature": False}
    assert "answersWithheld" not in told


async def test_health_answers_never_reach_a_coach_over_http(
    mcp_app: FastAPI, db: Database, tokens: TokenFactory, org: Org
) -> None:
    submission = await _health_submission(db, org)
    model = ScriptedModel()
    mcp_app.state.agent_deps = deps_for(db, model)
    body = {"text": "Noa's PAR-Q?", "pageContext": {"pathname": "/forms"}}
    seen: dict[str, str] = {}
    for role in ("coach", "owner"):
        model.script += [tool_reply(_read(submission, f"t_{role}")), Reply([Text("Here.")])]
        async with http_client(mcp_app, token_for(tokens, org, role)) as http:
            streamed = (await http.post("/agent/messages", json=body)).text
            [completed] = [e for e in sse_payloads(streamed) if e["type"] == "tool_completed"]
            cid = sse_payloads(streamed)[-1]["conversationId"]
            detail = (await http.get(f"/agent/conversations/{cid}")).text
            replay = (await http.get(f"/agent/conversations/{cid}/stream")).text
        assert completed["ok"] is True
        seen[role] = streamed + detail + replay
    assert SECRET not in seen["coach"]
    assert "Health answers are shown to owners and admins only." in seen["coach"]
    assert SECRET in seen["owner"]  # the same reads do carry them for a manager


async def test_health_answers_never_reach_a_coach_over_mcp(
    mcp_app: FastAPI, db: Database, tokens: TokenFactory, org: Org
) -> None:
    submission = await _health_submission(db, org)
    args = {"submissionId": str(submission)}
    outputs = {}
    for role in ("coach", "admin"):
        async with connect(mcp_app, token_for(tokens, org, role)) as client:
            result = await client.call_tool("forms_submission", args)
        assert not result.is_error, payload(result)
        outputs[role] = payload(result)
    assert SECRET not in json.dumps(outputs["coach"])
    assert "answers" not in outputs["coach"]["output"]
    assert SECRET in [a["value"] for a in outputs["admin"]["output"]["answers"]]


async def test_the_forms_router_is_absent_for_org_types_without_forms(
    mcp_app: FastAPI, db: Database, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    set_org_type(clean_db, org, "league")  # a type that keeps no forms
    owner = await caller_for(db, org, "owner")
    assert not [s for s in registry_for_caller(owner).specs if s.router == "forms"]
    model = ScriptedModel(
        [
            tool_reply(ToolUse("forms", {"action": "list", "args": {}}, id="t1")),
            Reply([Text("No forms here.")]),
        ]
    )
    await run_turn(deps_for(db, model), owner, "list our forms")
    assert "forms" not in [tool["name"] for tool in model.requests[0]["tools"]]
    told = model.requests[1]["messages"][-1]["content"][0]
    assert told["is_error"] is True and "feature_unavailable" in json.dumps(told)
    async with connect(mcp_app, token_for(tokens, org, "owner")) as client:
        listed = [tool.name for tool in (await client.list_tools()).tools]
        refused = await client.call_tool("forms_list", {})
    assert listed and not [name for name in listed if name.startswith("forms_")]
    assert refused.is_error
    # an org type with forms (online: waivers and intake) keeps the router
    set_org_type(clean_db, org, "online")
    online = await caller_for(db, org, "owner")
    assert [s for s in registry_for_caller(online).specs if s.router == "forms"]
