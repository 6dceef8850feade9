"""Text Postgres or UTF-8 cannot hold, streamed by the model (a NUL, a lone surrogate), never
wedges a conversation: the client and the replay see the same repaired events, the run ends with
`done`, its lease is free at once, and the next run's ids follow on (issue 30 items 2, 3)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import psycopg
import pytest

from spotter.agent.transcript.storable import REPLACEMENT
from spotter.providers.fake import Reply, ScriptedModel, Text
from tests.support.agent import sse_frames, sse_payloads
from tests.support.chat import user_message
from tests.support.tokens import TokenFactory
from tests.support.world import Org

HOSTILE = {"nul": "hello\u0000world", "lone_surrogate": "hello\ud800world"}
REPAIRED = f"hello{REPLACEMENT}world"


def _auth(tokens: TokenFactory, org: Org) -> dict[str, str]:
    return {"authorization": f"Bearer {tokens.token(org['owner'].clerk_user_id, org.clerk_org_id)}"}


def _send(text: str, conversation_id: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"text": text, "pageContext": {"pathname": "/dashboard"}}
    if conversation_id:
        body["conversationId"] = conversation_id
    return body


def _lease(url: str, conversation_id: str) -> Any:
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT live_run_id FROM ai_conversations WHERE id = %s", (conversation_id,)
        ).fetchone()
    assert row is not None
    return row[0]


def _text(events: list[dict[str, Any]]) -> str:
    return "".join(e["delta"] for e in events if e["type"] == "text_delta")


@pytest.mark.parametrize("kind", sorted(HOSTILE))
async def test_hostile_model_text_is_streamed_replayed_and_stored_repaired(
    agent_client: httpx.AsyncClient,
    model: ScriptedModel,
    tokens: TokenFactory,
    org: Org,
    clean_db: str,
    kind: str,
) -> None:
    model.script += [Reply([Text(HOSTILE[kind])]), Reply([Text("Next answer.")])]
    headers = _auth(tokens, org)
    response = await agent_client.post("/agent/messages", json=_send("hi"), headers=headers)
    live = sse_payloads(response.text)
    assert [e["type"] for e in live][-2:] == ["message_done", "done"]
    assert not [e for e in live if e["type"] == "error"]
    assert _text(live) == REPAIRED
    cid = live[0]["conversationId"]
    assert _lease(clean_db, cid) is None, "the ended run freed its conversation"

    replay = await agent_client.get(f"/agent/conversations/{cid}/stream", headers=headers)
    assert sse_payloads(replay.text) == live, "the replay is what the client saw"
    detail = (await agent_client.get(f"/agent/conversations/{cid}", headers=headers)).json()
    assert detail["messages"][-1]["text"] == REPAIRED

    again = await agent_client.post("/agent/messages", json=_send("more", cid), headers=headers)
    ids = [int(f["id"]) for f in sse_frames(response.text) + sse_frames(again.text)]
    assert ids == list(range(1, len(ids) + 1)), "the next run's ids follow on"
    assert sse_payloads(again.text)[-1]["type"] == "done"


async def test_a_lone_surrogate_reaches_an_ai_sdk_client_repaired_and_the_stream_finishes(
    agent_client: httpx.AsyncClient, model: ScriptedModel, tokens: TokenFactory, org: Org
) -> None:
    model.script.append(Reply([Text(HOSTILE["lone_surrogate"])]))
    chat = {"id": "hostile-chat", "messages": [user_message("hi")], "trigger": "submit-message"}
    response = await agent_client.post("/agent/chat", json=chat, headers=_auth(tokens, org))
    frames = [f["data"] for f in sse_frames(response.content.decode("utf-8"))]
    assert frames[-1] == "[DONE]"
    chunks = [json.loads(f) for f in frames[:-1]]
    assert "".join(c["delta"] for c in chunks if c["type"] == "text-delta") == REPAIRED
    assert not [c for c in chunks if c["type"] == "error"]
