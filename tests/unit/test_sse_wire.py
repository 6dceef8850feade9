"""The wire format of every SSE event in the spec's protocol, pinned byte for byte."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from starlette.types import Message

from spotter.agent import events as ev
from spotter.agent.stream import Recorded
from spotter.http.sse import encode, sse_response
from spotter.http.ui_stream import UiMessageStream

CASES: list[tuple[ev.AgentEvent, str]] = [
    (
        ev.ConversationStarted(conversation_id="c-1"),
        'event: conversation_started\ndata: {"type":"conversation_started","conversationId":"c-1"}\n\n',
    ),
    (ev.TextDelta(delta="Hi "), 'event: text_delta\ndata: {"type":"text_delta","delta":"Hi "}\n\n'),
    (
        ev.ToolStarted(tool_use_id="toolu_1", router="workouts", action="create", input={"title": "Fran"}),
        'event: tool_started\ndata: {"type":"tool_started","toolUseId":"toolu_1","router":"workouts",'
        '"action":"create","input":{"title":"Fran"}}\n\n',
    ),
    (
        ev.ToolCompleted(
            tool_use_id="toolu_1", router="workouts", action="create", ok=True, output={"id": "w1"},
            inverse_available=True,
        ),
        'event: tool_completed\ndata: {"type":"tool_completed","toolUseId":"toolu_1","router":"workouts",'
        '"action":"create","ok":true,"output":{"id":"w1"},"inverseAvailable":true}\n\n',
    ),
    (
        ev.ConfirmationPending(
            tool_use_id="toolu_2", router="memberships", action="erase", input={"membershipId": "m1"},
            confirm="destructive",
            confirmation=ev.Confirmation(target="Dana Levi", affected_count=1, consequences=["permanent_member_erasure"]),
        ),
        'event: confirmation_pending\ndata: {"type":"confirmation_pending","toolUseId":"toolu_2",'
        '"router":"memberships","action":"erase","input":{"membershipId":"m1"},"confirm":"destructive",'
        '"confirmation":{"target":"Dana Levi","affectedCount":1,"consequences":["permanent_member_erasure"],'
        '"arguments":[]}}\n\n',
    ),
    (
        ev.DisambiguationPending(
            tool_use_id="toolu_3", kind="member", prompt="Which Saar?",
            candidates=[ev.PickCandidate(id="u1", label="Saar Cohen", sublabel="since 2024")],
        ),
        'event: disambiguation_pending\ndata: {"type":"disambiguation_pending","toolUseId":"toolu_3",'
        '"kind":"member","prompt":"Which Saar?","candidates":[{"id":"u1","label":"Saar Cohen",'
        '"sublabel":"since 2024"}]}\n\n',
    ),
    (
        ev.MessageDone(message_id="m-1", stop_reason="end_turn"),
        'event: message_done\ndata: {"type":"message_done","messageId":"m-1","stopReason":"end_turn"}\n\n',
    ),
    (
        ev.CompactionStarted(conversation_id="c-1"),
        'event: compaction_started\ndata: {"type":"compaction_started","conversationId":"c-1"}\n\n',
    ),
    (
        ev.CompactionFinished(conversation_id="c-1", compacted=True, summarized_messages=20),
        'event: compaction_finished\ndata: {"type":"compaction_finished","conversationId":"c-1",'
        '"compacted":true,"summarizedMessages":20}\n\n',
    ),
    (
        ev.Done(conversation_id="c-1", usage=ev.Usage(input_tokens=10, output_tokens=5, cost_usd_micros=42)),
        'event: done\ndata: {"type":"done","conversationId":"c-1","usage":{"inputTokens":10,"outputTokens":5,'
        '"cacheReadTokens":0,"cacheWriteTokens":0,"costUsdMicros":42}}\n\n',
    ),
    (
        ev.Error(code="tool_already_resolved", message="That action was already handled.", trace_id="t-1"),
        'event: error\ndata: {"type":"error","code":"tool_already_resolved",'
        '"message":"That action was already handled.","traceId":"t-1"}\n\n',
    ),
]  # fmt: skip


@pytest.mark.parametrize(("event", "wire"), CASES, ids=[c[0].type for c in CASES])
def test_event_wire_format(event: ev.AgentEvent, wire: str) -> None:
    assert encode(event).decode() == wire


def test_every_event_type_is_pinned() -> None:
    union_types = {member.model_fields["type"].default for member in ev.AgentEvent.__args__}  # type: ignore[attr-defined]
    assert {event.type for event, _ in CASES} == union_types


def test_non_ascii_text_survives_encoding() -> None:
    wire = encode(ev.TextDelta(delta="שלום — привет")).decode()
    assert "שלום — привет" in wire or "\\u05e9" in wire


def test_each_event_is_sent_as_its_own_chunk() -> None:
    async def events() -> AsyncIterator[ev.AgentEvent]:
        yield ev.TextDelta(delta="a")
        yield ev.TextDelta(delta="b")
        yield ev.Done(conversation_id="c")

    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    async def receive() -> Message:
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    response = sse_response(events())
    scope = {"type": "http", "asgi": {"spec_version": "2.4"}, "method": "POST", "headers": []}
    asyncio.run(response(scope, receive, send))
    bodies = [m["body"] for m in sent if m["type"] == "http.response.body" and m.get("body")]
    assert bodies == [
        encode(ev.TextDelta(delta="a")),
        encode(ev.TextDelta(delta="b")),
        encode(ev.Done(conversation_id="c")),
    ]
    start = next(m for m in sent if m["type"] == "http.response.start")
    assert (b"content-type", b"text/event-stream; charset=utf-8") in start["headers"]


def test_an_event_with_an_id_leads_with_its_id_line() -> None:
    assert encode(ev.TextDelta(delta="Hi"), 7) == (
        b'id: 7\nevent: text_delta\ndata: {"type":"text_delta","delta":"Hi"}\n\n'
    )


def test_the_ai_sdk_encoding_closes_a_stream_cut_before_done() -> None:
    stream = UiMessageStream()
    frames = list(stream.frames(Recorded(3, {"type": "text_delta", "delta": "Hel"})))
    frames += list(stream.end())
    assert frames == [
        b'id: 3\ndata: {"type":"start"}\n\n',
        b'id: 3\ndata: {"type":"start-step"}\n\n',
        b'id: 3\ndata: {"type":"text-start","id":"text-1"}\n\n',
        b'id: 3\ndata: {"type":"text-delta","id":"text-1","delta":"Hel"}\n\n',
        b'id: 3\ndata: {"type":"text-end","id":"text-1"}\n\n',
        b'id: 3\ndata: {"type":"finish-step"}\n\n',
        b'id: 3\ndata: {"type":"finish","finishReason":"stop"}\n\n',
        b"data: [DONE]\n\n",
    ]
