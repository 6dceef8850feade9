"""Health answers on a waiver or an intake form (an injury or medical-conditions question) are
read by owners and admins only, on every path a coach could reach them (fix31 item 2): the tool
through the model, MCP, the native stream and its replay, the conversation read, the AI SDK
chat's stream, replay and history — and a call an owner made stays withheld once that person
is a coach, from her and from the model her next turn replays it to (fix32). No `/gym` read and
no search document holds an answer."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any
from uuid import UUID

import psycopg
import pytest
from fastapi import FastAPI

from spotter.agent.rag.ambient import find_ambient
from spotter.db import Database
from spotter.domain import forms
from spotter.providers.fake import Reply, ScriptedModel, Text, ToolUse, tool_reply
from tests.integration.mcp.conftest import connect, http_client, mcp_app, payload, token_for
from tests.support.agent import deps_for, sse_payloads
from tests.support.chat import CHAT, ui_chunks, user_message
from tests.support.forms import TERMS, scope_of
from tests.support.tokens import TokenFactory
from tests.support.world import Org

__all__ = ["mcp_app"]

SECRET = "torn meniscus, left knee"  # what a coach must never read
WAIVER_FIELDS: list[dict[str, Any]] = [
    {"key": "emergency_contact", "label": "Emergency contact", "type": "short_text",
     "required": True},
    {"key": "conditions", "label": "Injuries or medical conditions we should know about",
     "type": "long_text", "required": False},
    {"key": "signature", "label": "Signature", "type": "signature", "required": True},
]  # fmt: skip
CONTACT = "Avi 050-5550101"


async def _waiver_submission(db: Database, org: Org) -> UUID:
    async with scope_of(db, org) as scope:
        form = await forms.create_form(
            scope, kind="waiver", name="Waiver", body=TERMS, fields=WAIVER_FIELDS, required=True
        )
        await forms.publish(scope, form["id"], published_by=None)
        answers = {"emergency_contact": CONTACT, "conditions": SECRET, "signature": "Noa"}
        row = await forms.record_submission(scope, form["id"], org["member"].membership_id, answers)
    return UUID(str(row["id"]))


def _read(submission: UUID, tool_use_id: str) -> ToolUse:
    args = {"submissionId": str(submission)}
    return ToolUse("forms", {"action": "submission", "args": args}, id=tool_use_id)


async def _model_reading_a_waiver(app: FastAPI, db: Database, org: Org) -> ScriptedModel:
    """The app's model: it reads a signed waiver's submission, then answers."""
    submission = await _waiver_submission(db, org)
    model = ScriptedModel([tool_reply(_read(submission, "t1")), Reply([Text("Here.")])])
    app.state.agent_deps = deps_for(db, model)
    return model


def _set_role(owner_url: str, org: Org, person: str, role: str) -> None:
    with psycopg.connect(owner_url) as conn:
        conn.execute(
            "UPDATE org_memberships SET role = %s WHERE id = %s",
            (role, org[person].membership_id),
        )


async def _native_reads(http: Any, cid: str) -> str:
    detail = (await http.get(f"/agent/conversations/{cid}")).text
    replay = (await http.get(f"/agent/conversations/{cid}/stream")).text
    return detail + replay


@pytest.mark.parametrize(("role", "shown"), [("owner", True), ("admin", True), ("coach", False)])
async def test_the_native_stream_replay_and_read_carry_injury_answers_for_managers_only(
    mcp_app: FastAPI, db: Database, tokens: TokenFactory, org: Org, role: str, shown: bool
) -> None:
    model = await _model_reading_a_waiver(mcp_app, db, org)
    body = {"text": "Noa's waiver?", "pageContext": {"pathname": "/forms"}}
    async with http_client(mcp_app, token_for(tokens, org, role)) as http:
        streamed = (await http.post("/agent/messages", json=body)).text
        cid = sse_payloads(streamed)[-1]["conversationId"]
        seen = streamed + await _native_reads(http, cid)
    assert (SECRET in seen) is shown
    assert CONTACT in seen  # the rest of the waiver is every staff member's
    assert (SECRET in json.dumps(model.requests[1])) is shown  # what the model was told


@pytest.mark.parametrize(("role", "shown"), [("owner", True), ("coach", False)])
async def test_the_ai_sdk_stream_and_history_carry_injury_answers_for_managers_only(
    mcp_app: FastAPI, db: Database, tokens: TokenFactory, org: Org, role: str, shown: bool
) -> None:
    await _model_reading_a_waiver(mcp_app, db, org)
    chat_id = uuid.uuid4().hex[:16]
    body = {"id": chat_id, "messages": [user_message("Noa's waiver?")], "trigger": "submit-message"}
    async with http_client(mcp_app, token_for(tokens, org, role)) as http:
        streamed = (await http.post(CHAT, json=body)).text
        history = (await http.get(f"{CHAT}/{chat_id}/messages")).text
    [output] = [c for c in ui_chunks(streamed) if c["type"] == "tool-output-available"]
    assert (SECRET in json.dumps(output)) is shown and CONTACT in json.dumps(output)
    assert (SECRET in history) is shown and CONTACT in history


@pytest.mark.parametrize(("role", "shown"), [("admin", True), ("coach", False)])
async def test_mcp_carries_injury_answers_for_managers_only(
    mcp_app: FastAPI, db: Database, tokens: TokenFactory, org: Org, role: str, shown: bool
) -> None:
    submission = await _waiver_submission(db, org)
    async with connect(mcp_app, token_for(tokens, org, role)) as client:
        result = await client.call_tool("forms_submission", {"submissionId": str(submission)})
    assert not result.is_error, payload(result)
    output = payload(result)["output"]
    assert (SECRET in json.dumps(output)) is shown
    assert ("answersWithheld" in output) is not shown
    assert CONTACT in json.dumps(output)


async def test_an_owner_made_a_coach_no_longer_reads_the_answers_her_calls_returned(
    mcp_app: FastAPI, db: Database, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    """The stored outputs are read in the reader's role now, not the caller's then: the
    conversation read, the stream's replay and the AI SDK history of an owner's call withhold
    the injury answer once she is a coach, and show it again once she is an owner."""
    await _model_reading_a_waiver(mcp_app, db, org)
    chat_id = uuid.uuid4().hex[:16]
    body = {"id": chat_id, "messages": [user_message("Noa's waiver?")], "trigger": "submit-message"}
    token = token_for(tokens, org, "owner")
    async with http_client(mcp_app, token) as http:
        streamed = (await http.post(CHAT, json=body)).text
        cid = next(
            c["messageMetadata"]["conversationId"]
            for c in ui_chunks(streamed)
            if c["type"] == "message-metadata" and "conversationId" in c["messageMetadata"]
        )

        async def everything() -> str:
            history = (await http.get(f"{CHAT}/{chat_id}/messages")).text
            return history + await _native_reads(http, cid)

        as_owner = await everything()
        _set_role(clean_db, org, "owner", "coach")
        as_coach = await everything()
        _set_role(clean_db, org, "owner", "owner")
        owner_again = await everything()
    assert SECRET in as_owner and SECRET in owner_again
    assert SECRET not in as_coach and CONTACT in as_coach


@pytest.mark.parametrize(("role_now", "shown"), [("coach", False), ("owner", True)])
async def test_a_demoted_owners_next_turn_replays_her_calls_to_the_model_in_her_role_now(
    mcp_app: FastAPI,
    db: Database,
    tokens: TokenFactory,
    org: Org,
    clean_db: str,
    role_now: str,
    shown: bool,
) -> None:
    """What the model is sent is read in the caller's role now too (fix32 item 1): an owner
    reads a waiver (the injury answer included), is made a coach and asks on in the same
    conversation; the replay of her earlier call withholds the answer from the model, which
    could otherwise repeat it to a coach. An owner who stays one is replayed it whole."""
    model = await _model_reading_a_waiver(mcp_app, db, org)
    model.script.append(Reply([Text("Avi is her emergency contact.")]))
    body: dict[str, Any] = {"text": "Noa's waiver?", "pageContext": {"pathname": "/forms"}}
    she = token_for(tokens, org, "owner")  # the same person throughout: conversations are hers
    async with http_client(mcp_app, she) as http:
        streamed = (await http.post("/agent/messages", json=body)).text
    cid = sse_payloads(streamed)[-1]["conversationId"]
    assert SECRET in json.dumps(model.requests[1])  # she read it as an owner
    _set_role(clean_db, org, "owner", role_now)
    sent_before = len(model.requests)
    body = {**body, "text": "Whom do we call for her?", "conversationId": cid}
    async with http_client(mcp_app, she) as http:
        streamed = (await http.post("/agent/messages", json=body)).text
    assert sse_payloads(streamed)[-1]["type"] == "done"
    [request] = model.requests[sent_before:]
    replayed = json.dumps(request)
    assert (SECRET in replayed) is shown
    assert CONTACT in replayed  # the rest of the waiver is replayed to every staff member
    assert ("answersWithheld" in replayed) is not shown


async def test_no_search_document_holds_a_form_answer(db: Database, org: Org) -> None:
    await _waiver_submission(db, org)
    hits = await find_ambient(db, org.id, "torn meniscus left knee injury", None)
    assert not [h for h in hits if "meniscus" in f"{h.label} {h.detail}"]


def test_only_the_forms_domain_reads_submissions_and_only_through_the_rule() -> None:
    """No `/gym` read, analytics or search reaches an answer: `form_submissions` is read by
    `domain.forms` alone (erasure only redacts it), and the one output with answers
    (`submission_out(..., with_answers=True)`) is made by the tool that applies the rule."""
    package = Path(__file__).resolve().parents[3] / "layers" / "common" / "spotter"
    readers, with_answers = set(), set()
    for source in package.rglob("*.py"):
        text = source.read_text(encoding="utf-8")
        name = str(source.relative_to(package))
        if "form_submissions" in text:
            readers.add(name)
        if re.search(r"submission_out\([^)]*with_answers=True", text):
            with_answers.add(name)
    assert readers == {"domain/forms.py", "domain/erasure.py"}
    assert with_answers == {"tools/leaves/forms.py"}
    tool = (package / "tools" / "leaves" / "forms.py").read_text(encoding="utf-8")
    assert "withhold_health_answers(out, ctx.caller.role)" in tool
