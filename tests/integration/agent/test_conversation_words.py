"""What a person reads about each call, live and after a reload (issue 25): the stream's tool
events and the conversation loader give the same localized title and summary, a card's labels,
and the run still going with the point to follow it from."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import psycopg

from spotter.providers.fake import Reply, ScriptedModel, Text, ToolUse, tool_reply
from tests.support.agent import sse_payloads
from tests.support.hitl import add_program, archive, create
from tests.support.tokens import TokenFactory
from tests.support.world import Org


def _headers(tokens: TokenFactory, org: Org, locale: str = "en") -> dict[str, str]:
    token = tokens.token(org["owner"].clerk_user_id, org.clerk_org_id)
    return {"authorization": f"Bearer {token}", "x-locale": locale}


async def _send(
    client: httpx.AsyncClient, headers: dict[str, str]
) -> tuple[str, list[dict[str, Any]]]:
    body = {"text": "go", "pageContext": {"pathname": "/dashboard"}}
    events = sse_payloads((await client.post("/agent/messages", json=body, headers=headers)).text)
    return events[-1]["conversationId"], events


async def _loaded(client: httpx.AsyncClient, cid: str, headers: dict[str, str]) -> dict[str, Any]:
    return dict((await client.get(f"/agent/conversations/{cid}", headers=headers)).json())


async def test_a_call_reads_the_same_live_and_after_a_reload_in_the_readers_language(
    agent_client: httpx.AsyncClient, model: ScriptedModel, tokens: TokenFactory, org: Org
) -> None:
    listing = ToolUse("programs", {"action": "list", "args": {}}, id="t_read")
    model.script += [tool_reply(create("Engine", "t1"), listing), Reply([Text("Created.")])]
    headers = _headers(tokens, org, "ru")
    cid, events = await _send(agent_client, headers)
    started = next(e for e in events if e["type"] == "tool_started" and e["toolUseId"] == "t1")
    live = {e["toolUseId"]: e for e in events if e["type"] == "tool_completed"}
    assert (started["title"], started["sideEffects"]) == ("Создать программу", "write")
    assert live["t1"]["summary"] == "Engine"
    assert (live["t_read"]["title"], live["t_read"]["sideEffects"]) == ("Программы", "read")
    assert live["t_read"]["summary"] == "1 программа"
    stored = {
        t["toolUseId"]: t for t in (await _loaded(agent_client, cid, headers))["toolExecutions"]
    }
    for tool_use_id, event in live.items():
        shown = stored[tool_use_id]
        assert (shown["title"], shown["summary"], shown["sideEffects"]) == (
            event["title"], event["summary"], event["sideEffects"],
        )  # fmt: skip
    assert stored["t1"]["inverseAvailable"] is True
    # another reader's language: the same call, in Hebrew
    hebrew = await _loaded(agent_client, cid, _headers(tokens, org, "he"))
    assert {t["toolUseId"]: t["title"] for t in hebrew["toolExecutions"]}["t1"] == "יצירת תוכנית"


async def test_a_waiting_card_is_labelled_and_a_declined_call_says_why_in_the_readers_language(
    agent_client: httpx.AsyncClient,
    model: ScriptedModel,
    tokens: TokenFactory,
    org: Org,
    clean_db: str,
) -> None:
    program = add_program(clean_db, org, "Old")
    model.script += [tool_reply(archive(program, "t1")), Reply([Text("Kept.")])]
    headers = _headers(tokens, org, "he")
    cid, events = await _send(agent_client, headers)
    pending = next(e for e in events if e["type"] == "confirmation_pending")
    card = pending["confirmation"]
    assert pending["title"] == "העברת תוכנית לארכיון"
    assert [a["label"] for a in card["arguments"]] == ["תוכנית"]
    assert card["consequenceTexts"] == ["התוכנית מוסתרת מלוח הזמנים"]
    reloaded = (await _loaded(agent_client, cid, headers))["toolExecutions"][0]
    assert reloaded["confirmation"]["consequenceTexts"] == card["consequenceTexts"]
    await agent_client.post(
        f"/agent/conversations/{cid}/confirm/t1",
        json={"approved": False, "reason": "עוד בשימוש"},
        headers=headers,
    )
    declined = (await _loaded(agent_client, cid, headers))["toolExecutions"][0]
    assert declined["summary"] == "דחית את הפעולה: עוד בשימוש"


async def test_the_loader_names_the_run_still_going_and_where_to_follow_it_from(
    agent_client: httpx.AsyncClient,
    model: ScriptedModel,
    tokens: TokenFactory,
    org: Org,
    clean_db: str,
) -> None:
    model.script += [Reply([Text("First.")])]
    headers = _headers(tokens, org)
    cid, events = await _send(agent_client, headers)
    assert (await _loaded(agent_client, cid, headers))["liveRun"] is None
    last_seq = max(int(e.get("id", 0) or 0) for e in events) if events else 0
    run = uuid.uuid4()
    with psycopg.connect(clean_db) as conn:
        last = conn.execute(
            "SELECT max(last_seq) FROM ai_run_events WHERE conversation_id = %s", (cid,)
        ).fetchone()
        assert last is not None and last[0] >= last_seq
        # a second run holds the lease and has persisted its first batch
        conn.execute(
            "UPDATE ai_conversations SET live_run_id = %s, live_run_claimed_at = now()"
            " WHERE id = %s",
            (run, cid),
        )
        conn.execute(
            "INSERT INTO ai_run_events (organization_id, conversation_id, run_id, first_seq,"
            " last_seq, events) VALUES (%s, %s, %s, %s, %s, '[]')",
            (org.id, cid, run, last[0] + 1, last[0] + 3),
        )
    loaded = await _loaded(agent_client, cid, headers)
    assert loaded["liveRun"] == {"runId": str(run), "after": last[0]}
    assert {m["runId"] for m in loaded["messages"]} != {str(run)}
