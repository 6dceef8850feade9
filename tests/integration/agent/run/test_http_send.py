"""POST /agent/messages streams a real run; the conversation reads show what it stored."""

from __future__ import annotations

import json

import httpx
import psycopg

from spotter.i18n import error_message
from spotter.providers.fake import Reply, ScriptedModel, Text, ToolUse, tool_reply
from tests.support.agent import sse_payloads
from tests.support.tokens import TokenFactory
from tests.support.world import Org


def _auth(tokens: TokenFactory, org: Org, role: str) -> dict[str, str]:
    token = tokens.token(org[role].clerk_user_id, org.clerk_org_id)
    return {"authorization": f"Bearer {token}", "x-locale": "he"}


async def test_send_streams_the_run_and_the_detail_shows_it(
    agent_client: httpx.AsyncClient, model: ScriptedModel, tokens: TokenFactory, org: Org
) -> None:
    cut = Reply(
        [
            ToolUse("programs", {"action": "list", "args": {}}, id="t_cut"),
            ToolUse("programs", {}, id="t_x"),
        ],
        stop_reason="max_tokens",
    )
    model.script += [
        cut,
        tool_reply(ToolUse("programs", {"action": "list", "args": {}}, id="t_ok")),
        Reply([Text("אין תוכניות עדיין.")]),
    ]
    headers = _auth(tokens, org, "owner")
    body = {"text": "אילו תוכניות יש?", "pageContext": {"pathname": "/programs"}}
    response = await agent_client.post("/agent/messages", json=body, headers=headers)
    assert response.status_code == 200
    events = sse_payloads(response.text)
    types = [e["type"] for e in events]
    assert [t for i, t in enumerate(types) if t != "text_delta" or types[i - 1] != t] == [
        "conversation_started", "message_done", "message_done", "tool_started", "tool_completed",
        "text_delta", "message_done", "done",
    ]  # fmt: skip
    assert "Caller's preferred locale: he" in json.dumps(model.requests[0], ensure_ascii=False)
    cid = events[0]["conversationId"]

    detail = (await agent_client.get(f"/agent/conversations/{cid}", headers=headers)).json()
    first = detail["messages"][0]
    assert (first["role"], first["text"]) == ("user", "אילו תוכניות יש?")
    assert detail["messages"][-1]["text"] == "אין תוכניות עדיין."
    assert [(t["toolUseId"], t["status"], t["discarded"]) for t in detail["toolExecutions"]] == [
        ("t_cut", "failed", True), ("t_ok", "succeeded", False),
    ]  # fmt: skip
    usage = (await agent_client.get("/agent/usage", headers=headers)).json()
    assert usage["spentUsdMicros"] == events[-1]["usage"]["costUsdMicros"] > 0


async def test_members_cannot_send(
    agent_client: httpx.AsyncClient, tokens: TokenFactory, org: Org
) -> None:
    body = {"text": "hi", "pageContext": {"pathname": "/"}}
    response = await agent_client.post(
        "/agent/messages", json=body, headers=_auth(tokens, org, "member")
    )
    assert response.status_code == 403


async def test_a_send_into_a_busy_conversation_is_an_sse_error_naming_the_live_run(
    agent_client: httpx.AsyncClient,
    model: ScriptedModel,
    tokens: TokenFactory,
    org: Org,
    clean_db: str,
) -> None:
    model.script.append(Reply([Text("Hi.")]))
    headers = _auth(tokens, org, "owner")
    first = await agent_client.post(
        "/agent/messages", json={"text": "hi", "pageContext": {"pathname": "/"}}, headers=headers
    )
    cid = sse_payloads(first.text)[0]["conversationId"]
    live = "00000000-0000-4000-8000-000000000001"
    with psycopg.connect(clean_db) as conn:
        conn.execute(
            "UPDATE ai_conversations SET live_run_id = %s, live_run_claimed_at = now()"
            " WHERE id = %s",
            (live, cid),
        )
    body = {"text": "again", "conversationId": cid, "pageContext": {"pathname": "/"}}
    response = await agent_client.post("/agent/messages", json=body, headers=headers)
    events = sse_payloads(response.text)
    assert [e["type"] for e in events] == ["error", "done"]
    assert events[0]["code"] == "conversation_busy" and events[0]["runId"] == live
    assert events[0]["message"] == error_message("conversation_busy", "he")
