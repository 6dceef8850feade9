"""Runs cut short: a client that goes away, a history left with unanswered calls, logs."""

from __future__ import annotations

import io
import json
import logging
import uuid

import psycopg
import pytest
from psycopg.types.json import Jsonb

from spotter.agent import events as ev
from spotter.agent.run import SendMessage, send_message
from spotter.db import Database
from spotter.observability import logger
from spotter.providers.fake import Reply, ScriptedModel, Text, ToolUse
from tests.support.agent import (
    conversation_id_of,
    deps_for,
    kinds,
    roles,
    run_turn,
    stored_messages,
)
from tests.support.callers import caller_for
from tests.support.world import Org, sync_next_ordinals


async def test_client_disconnect_stops_the_model_stream_and_keeps_history_valid(
    db: Database, org: Org, clean_db: str
) -> None:
    slow = Reply([Text("a long answer " * 20)], delay_s=0.01)
    model = ScriptedModel([slow, Reply([Text("fresh start")])])
    owner = await caller_for(db, org, "owner")
    deps = deps_for(db, model)
    stream = send_message(deps, owner, SendMessage(text="tell me a story", pathname="/"))
    seen = []
    async for event in stream:
        seen.append(event)
        if isinstance(event, ev.TextDelta):
            break
    await stream.aclose()  # what the server does when the client goes away

    assert model.streams_cut == 1 and model.streams_finished == 0
    cid = next(e.conversation_id for e in seen if isinstance(e, ev.ConversationStarted))
    assert roles(clean_db, cid) == ["user"]
    with psycopg.connect(clean_db) as conn:
        spent = conn.execute(
            "SELECT input_tokens, turns FROM ai_usage_daily WHERE organization_id = %s", (org.id,)
        ).fetchone()
    assert spent == (100, 1), "tokens the provider reported before the cut are billed"
    # the conversation goes on: two user turns in a row are a valid history
    events = await run_turn(deps, owner, "again", conversation_id=cid)
    assert kinds(events) == ["text_delta", "message_done", "done"]


async def _orphaned_conversation(clean_db: str, org: Org, recorded: bool) -> uuid.UUID:
    """A stored run that stopped after the assistant's tool calls, before their results."""
    cid, run = uuid.uuid4(), uuid.uuid4()
    assistant = [
        {"type": "tool_use", "id": "t_ran", "name": "programs", "input": {"action": "list"}},
        {"type": "tool_use", "id": "t_lost", "name": "programs", "input": {"action": "list"}},
    ]
    with psycopg.connect(clean_db) as conn:
        conn.execute(
            "INSERT INTO ai_conversations (id, organization_id, user_id) VALUES (%s, %s, %s)",
            (cid, org.id, org["owner"].user_id),
        )
        conn.execute(
            "INSERT INTO ai_messages (organization_id, conversation_id, run_id, ordinal, role, content)"
            " VALUES (%s, %s, %s, 0, 'user', %s)",
            (org.id, cid, run, Jsonb([{"type": "text", "text": "list"}])),
        )
        message_id = conn.execute(
            "INSERT INTO ai_messages (organization_id, conversation_id, run_id, ordinal, role, content, model)"
            " VALUES (%s, %s, %s, 1, 'assistant', %s, 'claude-sonnet-5-5') RETURNING id",
            (org.id, cid, run, Jsonb(assistant)),
        ).fetchone()[0]  # type: ignore[index]
        if recorded:
            conn.execute(
                "INSERT INTO ai_tool_executions (organization_id, conversation_id, message_id, position,"
                " tool_use_id, router, action, status, output) VALUES (%s, %s, %s, 0, 't_ran', 'programs',"
                " 'list', 'succeeded', %s)",
                (org.id, cid, message_id, Jsonb({"programs": []})),
            )
        sync_next_ordinals(conn)
    return cid


@pytest.mark.parametrize("recorded", [True, False])
async def test_an_unanswered_tail_is_answered_by_an_appended_row(
    db: Database, org: Org, clean_db: str, recorded: bool
) -> None:
    cid = await _orphaned_conversation(clean_db, org, recorded)
    model = ScriptedModel([Reply([Text("Picking up.")])])
    events = await run_turn(
        deps_for(db, model), await caller_for(db, org, "owner"), "hi", conversation_id=cid
    )
    assert kinds(events) == ["text_delta", "message_done", "done"]
    rows = stored_messages(clean_db, str(cid))
    assert [r["role"] for r in rows] == ["user", "assistant", "tool_result", "user", "assistant"]
    results = {b["tool_use_id"]: b for b in rows[2]["content"]}
    assert results["t_lost"]["is_error"] and "interrupted" in results["t_lost"]["content"]
    if recorded:
        assert "is_error" not in results["t_ran"]
        assert json.loads(results["t_ran"]["content"]) == {"programs": []}
    sent = model.requests[0]["messages"]
    # the appended results and the new turn reach the model as one user turn (roles alternate)
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]


async def test_no_log_line_carries_what_the_user_typed(db: Database, org: Org) -> None:
    secret = "sk-live-9f8e7d6c5b4a-hunter2"
    list_call = ToolUse("programs", {"action": "list", "args": {"query": secret}}, id="t1")
    model = ScriptedModel(
        [Reply([Text(f"echo {secret}"), list_call], stop_reason="tool_use"), Reply([Text(secret)])]
    )
    owner = await caller_for(db, org, "owner")
    handler = logger().registered_handler
    assert isinstance(handler, logging.StreamHandler)
    lines = io.StringIO()
    previous = handler.setStream(lines)
    try:
        events = await run_turn(deps_for(db, model), owner, f"my key is {secret}")
    finally:
        handler.setStream(previous)
    assert conversation_id_of(events)
    out = lines.getvalue()
    assert "agent.turn.finished" in out and "agent.tool.executed" in out, "the events were logged"
    assert secret not in out
