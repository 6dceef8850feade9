"""`GET /agent/chat/{id}/messages`: the conversation as `UIMessage[]` for `useChat({ messages })`,
every call in its final state; and undo from a chat, whose stream is a valid UI message."""

from __future__ import annotations

from typing import Any

import psycopg

from spotter.providers.fake import Reply, ScriptedModel, Text, ToolUse, tool_reply
from tests.support.chat import ChatClient, text, tool_parts, types
from tests.support.hitl import add_program, archive, ask, create, program_status
from tests.support.world import Org


def _parts_by_id(history: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {
        p["toolCallId"]: p
        for m in history
        if m["role"] == "assistant"
        for p in m["parts"]
        if p["type"].startswith("tool-")
    }


async def test_the_history_is_what_the_live_client_showed(
    chat: ChatClient, model: ScriptedModel, clean_db: str, org: Org
) -> None:
    program = add_program(clean_db, org, "Old")
    model.script += [
        tool_reply(create("Engine", "t_make"), text="Making it."),
        Reply([Text("Made.")]),
        tool_reply(archive(program, "t_arch")),
        Reply([Text("Archived.")]),
    ]
    await chat.send("make Engine")
    await chat.send("archive Old")
    chat.approve("t_arch")
    await chat.submit()
    history = await chat.history()
    assert [m["id"] for m in history[1::2]] == [m["id"] for m in chat.messages[1::2]]
    assert [m["role"] for m in history] == ["user", "assistant"] * 2
    assert [text(m) for m in history] == [
        "make Engine",
        "Making it.Made.",
        "archive Old",
        "Archived.",
    ]
    for mine, stored in zip(chat.messages[1::2], history[1::2], strict=True):
        assert [p["type"] for p in stored["parts"]] == [p["type"] for p in mine["parts"]]
        for live, kept in zip(tool_parts(mine), tool_parts(stored), strict=True):
            assert kept["state"] == live["state"] and kept["input"] == live["input"]
            assert kept["output"] == live["output"]
            assert kept["toolMetadata"] == live["toolMetadata"]
    assert history[3]["parts"][1]["approval"]["approved"] is True
    assert history[1]["metadata"]["conversationId"]


async def test_every_final_state_comes_back_as_the_sdk_names_it(
    chat: ChatClient, model: ScriptedModel, clean_db: str, org: Org
) -> None:
    keep, waits = add_program(clean_db, org, "Keep"), add_program(clean_db, org, "Waits")
    bogus = ToolUse("programs", {"action": "nope", "args": {}}, id="t_bad")
    model.script += [
        tool_reply(archive(keep, "t_rej")),
        Reply([Text("Kept.")]),
        tool_reply(bogus, archive(waits, "t_left"), ask("t_pick", "A", "B")),
        Reply([Text("Hello.")]),
    ]
    await chat.send("archive Keep")
    chat.approve("t_rej", approved=False, reason="still used")
    await chat.submit()
    await chat.send("archive Waits")
    parts = _parts_by_id(await chat.history())
    assert parts["t_rej"]["state"] == "output-denied"
    assert parts["t_rej"]["approval"] == {
        "id": parts["t_rej"]["approval"]["id"],
        "approved": False,
        "reason": "still used",
    }
    assert parts["t_bad"]["state"] == "output-error"
    assert parts["t_bad"]["toolMetadata"]["errorCode"] == "unknown_tool"
    assert parts["t_left"]["state"] == "approval-requested"
    assert parts["t_left"]["approval"]["descriptor"]["confirmation"]["target"] == "Waits"
    assert parts["t_pick"]["state"] == "input-available"
    assert parts["t_pick"]["type"] == "tool-read_ask_user_to_pick"
    assert "providerExecuted" not in parts["t_pick"]
    # the user typed past them: superseded, an error with its code
    await chat.send("never mind")
    parts = _parts_by_id(await chat.history())
    for call_id in ("t_left", "t_pick"):
        assert parts[call_id]["state"] == "output-error"
        assert parts[call_id]["toolMetadata"]["errorCode"] == "superseded"
    assert "approval" not in parts["t_left"]  # nobody approved it
    assert program_status(clean_db, waits) == "active"


async def test_an_interrupted_call_is_an_error_with_its_code(
    chat: ChatClient, model: ScriptedModel, clean_db: str
) -> None:
    model.script += [tool_reply(create("Engine", "t_make")), Reply([Text("Made.")])]
    await chat.send("make Engine")
    with psycopg.connect(clean_db) as conn:  # its claim abandoned two minutes ago
        conn.execute(
            "UPDATE ai_tool_executions SET status = 'running',"
            " claimed_at = now() - interval '3 minutes', finished_at = NULL"
        )
    [part] = _parts_by_id(await chat.history()).values()
    assert part["state"] == "output-error"
    assert part["toolMetadata"]["errorCode"] == "interrupted_not_applied"


async def test_undo_from_a_chat_is_a_valid_stream_and_is_remembered(
    chat: ChatClient, model: ScriptedModel, clean_db: str
) -> None:
    model.script += [tool_reply(create("Engine", "t_make")), Reply([Text("Made.")])]
    await chat.send("make Engine")
    assert chat.part("t_make")["toolMetadata"]["inverseAvailable"] is True
    url = f"/agent/chat/{chat.chat_id}/undo/t_make"
    response = await chat.http.post(url, headers=chat.headers)
    assert response.status_code == 200
    assert response.headers["x-vercel-ai-ui-message-stream"] == "v1"
    undo = ChatClient(chat.http, chat.headers)
    undo.apply(response.text, continues=None)
    assert types(undo.last) == [
        "start",
        "start-step",
        "tool-input-available",
        "tool-output-available",
        "finish-step",
        "finish",
    ]
    [part] = tool_parts(undo.messages[0])
    assert part["toolCallId"] == "undo:t_make" and part["type"] == "tool-programs_archive"
    assert part["toolMetadata"]["inverseAvailable"] is False
    with psycopg.connect(clean_db) as conn:
        [(status,)] = conn.execute("SELECT status FROM programs WHERE name = 'Engine'")
    assert status == "archived"
    [kept] = _parts_by_id(await chat.history()).values()
    assert kept["toolMetadata"]["undone"] is True
    assert kept["toolMetadata"]["inverseAvailable"] is False
    again = await chat.http.post(url, headers=chat.headers)
    assert again.status_code == 422 and again.json()["code"] == "undo_already_done"
