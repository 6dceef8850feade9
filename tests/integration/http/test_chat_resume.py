"""Reconnecting the SDK's way (`resumeStream()`, `useChat({ resume: true })`): `GET
/agent/chat/{id}/stream` is the live run's assistant message from its start — never an earlier
message, never a finished run — then the run live to its end; 204 when no run is live."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

import httpx
import psycopg

from spotter.providers.fake import Reply, ScriptedModel, Text, tool_reply
from tests.support.chat import ChatClient, text, tool_parts, types, ui_chunks, user_message
from tests.support.hitl import add_program, archive, program_status, stall
from tests.support.world import Org


async def _persisted(url: str, kind: str, call_id: str | None = None) -> int:
    """The id of the first persisted event of `kind` (of `call_id`): the run log flushes every
    0.5 s."""
    async with asyncio.timeout(20):
        while True:
            with psycopg.connect(url) as conn:
                rows = conn.execute("SELECT events FROM ai_run_events ORDER BY first_seq")
                batches: list[Any] = rows.fetchall()
            for (events,) in batches:
                for seq, event in events:
                    if event["type"] == kind and call_id in (None, event.get("toolUseId")):
                        return int(seq)
            await asyncio.sleep(0.1)


async def _stopped(chat: ChatClient, *pending: Awaitable[httpx.Response]) -> list[httpx.Response]:
    """Stop the chat's run for everyone, then collect the responses that were watching it."""
    stop = await chat.http.post(f"/agent/chat/{chat.chat_id}/stop", headers=chat.headers)
    assert stop.json() == {"stopping": True}
    return list(await asyncio.gather(*pending))


async def test_nothing_live_is_204(chat: ChatClient, model: ScriptedModel) -> None:
    assert (await chat.resume()).status_code == 204  # an id never used
    model.script.append(Reply([Text("Done already.")]))
    await chat.send("hi")
    response = await chat.resume()
    assert response.status_code == 204  # a finished run is never replayed
    assert text(chat.assistant()) == "Done already."


async def test_a_resume_replays_the_live_message_only_and_follows_it(
    chat: ChatClient, model: ScriptedModel, clean_db: str
) -> None:
    model.script += [
        Reply([Text("First answer.")]),
        tool_reply(stall("slow", "t_stall"), text="Looking it up."),
    ]
    await chat.send("first")
    chat.messages.append(user_message("second"))
    sending = asyncio.create_task(chat.post(chat.body()))
    await _persisted(clean_db, "tool_started")
    # another tab (or this one after stop()) reconnects
    other = ChatClient(chat.http, chat.headers, chat_id=chat.chat_id, messages=list(chat.messages))
    resuming = asyncio.create_task(other.resume())
    await _persisted(clean_db, "tool_started")
    await asyncio.sleep(0.3)
    sent, resumed = await _stopped(chat, sending, resuming)
    assert resumed.status_code == 200
    replay = ui_chunks(resumed.text)
    assert "First answer." not in resumed.text  # an earlier message is never replayed
    assert types(replay).count("start") == 1 and types(replay).count("finish") == 1
    live = ui_chunks(sent.text)
    assert replay[0]["messageId"] == live[0]["messageId"]
    # everything the live client saw, once each, in order
    seen = [c for c in live if c["type"] not in ("start", "message-metadata")]
    again = [c for c in replay if c["type"] not in ("start", "message-metadata")]
    assert again == seen
    # the resumed client shows the message once, whole
    assert [m["role"] for m in other.messages] == ["user", "assistant", "user", "assistant"]
    assert text(other.assistant()) == "Looking it up."
    assert [p["toolCallId"] for p in tool_parts(other.assistant())] == ["t_stall"]


async def test_a_resume_after_the_last_event_id_sends_only_what_came_after(
    chat: ChatClient, model: ScriptedModel, clean_db: str
) -> None:
    model.script.append(tool_reply(stall("slow", "t_stall"), text="Looking it up."))
    chat.messages.append(user_message("go"))
    sending = asyncio.create_task(chat.post(chat.body()))
    seen = await _persisted(clean_db, "tool_started")
    resuming = asyncio.create_task(
        chat.http.get(
            f"/agent/chat/{chat.chat_id}/stream",
            headers={**chat.headers, "last-event-id": str(seen)},
        )
    )
    await asyncio.sleep(0.5)
    _, resumed = await _stopped(chat, sending, resuming)
    chunks = ui_chunks(resumed.text)
    assert chunks[0]["type"] == "start"
    assert "text-delta" not in types(chunks) and "tool-input-available" not in types(chunks)
    assert "error" in types(chunks)  # what came after: the stop


async def test_a_resumed_continuation_rebuilds_the_whole_message(
    chat: ChatClient, model: ScriptedModel, clean_db: str, org: Org
) -> None:
    """A resolution run is live: the replay starts at the message's first run, so the approval
    part is answered in place and the continuing call follows in a step of its own."""
    program = add_program(clean_db, org, "Old")
    model.script += [
        tool_reply(archive(program, "t_arch"), text="Archive?"),
        tool_reply(stall("after", "t_stall"), text="Archived; checking."),
    ]
    await chat.send("archive it")
    chat.approve("t_arch")
    deciding = asyncio.create_task(chat.post(chat.body(message_id=chat.assistant()["id"])))
    await _persisted(clean_db, "tool_started", "t_stall")
    other = ChatClient(
        chat.http, chat.headers, chat_id=chat.chat_id, messages=[dict(m) for m in chat.messages]
    )
    resuming = asyncio.create_task(other.resume())
    await asyncio.sleep(0.5)
    await _stopped(chat, deciding, resuming)
    assert program_status(clean_db, program) == "archived"
    message = other.assistant()
    assert message["id"] == chat.assistant()["id"]
    assert [(p["toolCallId"], p["state"]) for p in tool_parts(message)] == [
        ("t_arch", "output-available"),
        ("t_stall", "input-available"),
    ]
    assert text(message) == "Archive?Archived; checking."
    assert [p["type"] for p in message["parts"]].count("step-start") == 2
