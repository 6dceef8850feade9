"""The AI SDK encoding says what the native one says about a call (fix31 item 3): the call's
localized words (`tools.summaries`: title, side effects, and once it finished the summary of its
result or of why it did not run) are in each tool part's `toolMetadata` (and its `title`), in
the reader's language, in the live stream, its resume and the history alike — equal to the
native stream's `tool_completed` and the conversation read's call."""

from __future__ import annotations

import uuid
from typing import Any

import httpx

from spotter.providers.fake import Reply, ScriptedModel, Text, ToolUse, tool_reply
from tests.integration.http.conftest import bearer
from tests.support.agent import sse_payloads
from tests.support.chat import ChatClient, tool_parts
from tests.support.hitl import add_program, archive
from tests.support.tokens import TokenFactory
from tests.support.world import Org

WORDS = ("title", "sideEffects", "summary")


def _words(source: dict[str, Any]) -> dict[str, Any]:
    return {k: source[k] for k in WORDS if k in source}


async def _hebrew_chat(http: httpx.AsyncClient, tokens: TokenFactory, org: Org) -> ChatClient:
    return ChatClient(http, bearer(tokens, org) | {"x-locale": "he"})


async def test_a_calls_words_are_the_same_in_the_ai_sdk_stream_history_and_native_reads(
    http: httpx.AsyncClient, model: ScriptedModel, tokens: TokenFactory, org: Org
) -> None:
    chat = await _hebrew_chat(http, tokens, org)
    create = ToolUse("programs", {"action": "create", "args": {"name": "Engine"}}, id="t_make")
    unknown = ToolUse("programs", {"action": "teleport", "args": {"to": str(uuid.uuid4())}})
    model.script += [tool_reply(create, unknown), Reply([Text("נוצר.")])]
    await chat.send("make a program called Engine")
    streamed = {p["toolCallId"]: p for p in tool_parts(chat.assistant())}
    stored = (await chat.history())[-1]
    history = {p["toolCallId"]: p for p in tool_parts(stored)}
    cid = stored["metadata"]["conversationId"]
    headers = chat.headers
    read = (await http.get(f"/agent/conversations/{cid}", headers=headers)).json()
    native = (await http.get(f"/agent/conversations/{cid}/stream", headers=headers)).text
    completed = {e["toolUseId"]: e for e in sse_payloads(native) if e["type"] == "tool_completed"}
    loaded = {t["toolUseId"]: t for t in read["toolExecutions"]}
    assert set(streamed) == set(history) == set(completed) == set(loaded) and len(streamed) == 2
    for call_id in streamed:
        words = _words(completed[call_id])
        assert set(words) == set(WORDS)  # a finished call: title, side effects, summary
        assert _words(streamed[call_id]["toolMetadata"]) == words
        assert _words(history[call_id]["toolMetadata"]) == words
        assert _words(loaded[call_id]) == words
        assert streamed[call_id]["title"] == history[call_id]["title"] == words["title"]
    made, failed = streamed["t_make"], next(p for k, p in streamed.items() if k != "t_make")
    assert made["state"] == "output-available" and failed["state"] == "output-error"
    assert made["toolMetadata"]["title"] == "יצירת תוכנית"  # Hebrew, the reader's language
    assert failed["toolMetadata"]["errorCode"] == "unknown_tool"


async def test_a_waiting_approval_carries_its_title_and_worded_card_in_stream_and_history(
    http: httpx.AsyncClient, model: ScriptedModel, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    chat = await _hebrew_chat(http, tokens, org)
    program = add_program(clean_db, org, "Old track")
    model.script += [tool_reply(archive(program, "t_arch"), text="Archive it?")]
    await chat.send("archive the old track")
    [live] = tool_parts(chat.assistant())
    [stored] = tool_parts((await chat.history())[-1])
    for part in (live, stored):
        assert part["state"] == "approval-requested"
        assert part["title"] == part["toolMetadata"]["title"] and part["title"]
        assert "summary" not in part["toolMetadata"]  # it has not run
        card = part["approval"]["descriptor"]["confirmation"]
        assert card["target"] == "Old track" and card["consequenceTexts"]
    assert live["toolMetadata"]["title"] == stored["toolMetadata"]["title"]
