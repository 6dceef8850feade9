"""The AI SDK chat is admitted like the native routes (issue 26 item 6): a kill switch refuses a
new message, an answered approval and an undo with `403 agent_disabled` as JSON before the
stream starts, nothing claimed or written."""

from __future__ import annotations

import psycopg

from spotter.providers.fake import ScriptedModel, tool_reply
from tests.support.chat import ChatClient
from tests.support.hitl import add_program, archive, program_status
from tests.support.owner import switch_agent
from tests.support.world import Org


def _count(url: str, sql: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute(sql).fetchone()
    assert row is not None
    return int(row[0])


async def test_a_kill_switch_refuses_a_chat_message_before_anything_is_written(
    chat: ChatClient, model: ScriptedModel, clean_db: str, org: Org
) -> None:
    switch_agent(clean_db, "off", org.clerk_org_id)
    refused = await chat.send("hello")
    assert (refused.status_code, refused.json()["code"]) == (403, "agent_disabled")
    assert _count(clean_db, "SELECT count(*) FROM ai_conversations") == 0
    assert model.requests == []


async def test_a_kill_switch_refuses_an_answered_approval_and_an_undo_unclaimed(
    chat: ChatClient, model: ScriptedModel, clean_db: str, org: Org
) -> None:
    program = add_program(clean_db, org, "Old track")
    model.script.append(tool_reply(archive(program, "t_arch"), text="Archive it?"))
    await chat.send("archive the old track")
    assert chat.part("t_arch")["state"] == "approval-requested"
    switch_agent(clean_db, "off", org.clerk_org_id)
    chat.approve("t_arch")
    refused = await chat.submit()
    assert (refused.status_code, refused.json()["code"]) == (403, "agent_disabled")
    assert program_status(clean_db, program) == "active"
    pending = "SELECT count(*) FROM ai_tool_executions WHERE status = 'pending'"
    assert _count(clean_db, pending) == 1
    undo = await chat.http.post(f"/agent/chat/{chat.chat_id}/undo/t_arch", headers=chat.headers)
    assert (undo.status_code, undo.json()["code"]) == (403, "agent_disabled")
