"""The reducer folds raw Messages stream events into the reply we store: blocks, usage, stop."""

from __future__ import annotations

from typing import Any

import pytest

from spotter.providers.fake import (
    FakeUsage,
    Reply,
    ScriptedModel,
    Thinking,
    ToolUse,
    tool_reply,
)
from spotter.providers.message_reply import IncompleteStream, ReplyReducer, StreamedReply

START_USAGE = {
    "input_tokens": 120,
    "output_tokens": 1,
    "cache_read_input_tokens": 30,
    "cache_creation_input_tokens": 7,
    "cache_creation": {"ephemeral_5m_input_tokens": 7, "ephemeral_1h_input_tokens": 0},
}


def _start(model: str = "claude-sonnet-5-5") -> dict[str, Any]:
    message = {"type": "message", "role": "assistant", "model": model, "content": [],
               "stop_reason": None, "usage": dict(START_USAGE)}  # fmt: skip
    return {"type": "message_start", "message": message}


def _block(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": block}


def _delta(index: int, **delta: Any) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": delta}


def _stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


def _end(stop_reason: str, **usage: Any) -> list[dict[str, Any]]:
    delta = {"type": "message_delta", "delta": {"stop_reason": stop_reason}, "usage": usage}
    return [delta, {"type": "message_stop"}]


def _tool(index: int, tool_id: str, name: str, *chunks: str) -> list[dict[str, Any]]:
    start = _block(index, {"type": "tool_use", "id": tool_id, "name": name, "input": {}})
    deltas = [_delta(index, type="input_json_delta", partial_json=c) for c in chunks]
    return [start, *deltas, _stop(index)]


def _reduce(events: list[dict[str, Any]]) -> tuple[StreamedReply, list[str]]:
    reducer = ReplyReducer()
    deltas = [d for d in (reducer.feed(e) for e in events) if d is not None]
    return reducer.reply(), deltas


def _scripted(reply: Reply) -> list[dict[str, Any]]:
    """The events the scripted fake sends for `reply`, as the raw stream yields them."""
    return [data for _, data in ScriptedModel().events(reply, {"model": "claude-sonnet-5-5"})]


def test_text_deltas_are_passed_on_as_they_arrive_and_joined_once() -> None:
    events = [
        _start(),
        _block(0, {"type": "text", "text": ""}),
        _delta(0, type="text_delta", text="Hello "),
        _delta(0, type="text_delta", text="there."),
        _stop(0),
        *_end("end_turn", output_tokens=9),
    ]
    reply, deltas = _reduce(events)
    assert deltas == ["Hello ", "there."]
    assert reply.content == [{"type": "text", "text": "Hello there."}]
    assert reply.stop_reason == "end_turn" and reply.model == "claude-sonnet-5-5"


def test_several_tool_uses_each_get_their_input_parsed_in_order() -> None:
    events = [
        _start(),
        *_tool(0, "t1", "programs", '{"action": "li', 'st", "args": {}}'),
        *_tool(1, "t2", "leads", '{"action": "get", ', '"args": {"id": "L1"}}'),
        *_end("tool_use", output_tokens=30),
    ]
    reply, deltas = _reduce(events)
    assert deltas == []
    assert reply.tool_uses == [
        {"type": "tool_use", "id": "t1", "name": "programs",
         "input": {"action": "list", "args": {}}},
        {"type": "tool_use", "id": "t2", "name": "leads",
         "input": {"action": "get", "args": {"id": "L1"}}},
    ]  # fmt: skip
    assert reply.unparsed == ()


def test_a_tool_use_without_input_deltas_keeps_its_empty_input() -> None:
    reply, _ = _reduce([_start(), *_tool(0, "t1", "programs"), *_end("tool_use")])
    assert reply.tool_uses[0]["input"] == {}


def test_thinking_keeps_its_signature_and_redacted_thinking_its_data() -> None:
    events = [
        _start(),
        _block(0, {"type": "thinking", "thinking": "", "signature": ""}),
        _delta(0, type="thinking_delta", thinking="let me "),
        _delta(0, type="thinking_delta", thinking="think"),
        _delta(0, type="signature_delta", signature="sig-abc"),
        _stop(0),
        _block(1, {"type": "redacted_thinking", "data": "opaque-bytes"}),
        _stop(1),
        _block(2, {"type": "text", "text": ""}),
        _delta(2, type="text_delta", text="Done."),
        _stop(2),
        *_end("end_turn"),
    ]
    reply, deltas = _reduce(events)
    assert deltas == ["Done."], "thinking is never streamed as text"
    assert reply.content == [
        {"type": "thinking", "thinking": "let me think", "signature": "sig-abc"},
        {"type": "redacted_thinking", "data": "opaque-bytes"},
        {"type": "text", "text": "Done."},
    ]


def test_thinking_cut_before_its_signature_has_an_empty_one() -> None:
    events = [
        _start(),
        _block(0, {"type": "thinking", "thinking": "", "signature": ""}),
        _delta(0, type="thinking_delta", thinking="hmm"),
        *_end("max_tokens"),
    ]
    reply, _ = _reduce(events)
    assert reply.content == [{"type": "thinking", "thinking": "hmm", "signature": ""}]


def test_message_delta_totals_overwrite_and_fields_it_leaves_out_survive() -> None:
    events = [
        _start(),
        *_end("end_turn", output_tokens=55, input_tokens=125, cache_read_input_tokens=None),
    ]
    reply, _ = _reduce(events)
    assert reply.usage["output_tokens"] == 55
    assert reply.usage["input_tokens"] == 125, "a cumulative total sent again overwrites"
    assert reply.usage["cache_read_input_tokens"] == 30, "a null total keeps message_start's"
    assert reply.usage["cache_creation"] == START_USAGE["cache_creation"]


def test_a_stream_cut_off_mid_reply_reports_the_usage_of_message_start() -> None:
    reducer = ReplyReducer()
    assert reducer.usage is None, "nothing reported before message_start"
    for event in [_start(), _block(0, {"type": "text", "text": ""}),
                  _delta(0, type="text_delta", text="partial")]:  # fmt: skip
        reducer.feed(event)
    assert reducer.usage == START_USAGE
    assert reducer.reply().stop_reason is None


def test_a_tool_use_capped_before_its_stop_keeps_what_streamed() -> None:
    events = [_start(), _block(0, {"type": "tool_use", "id": "t1", "name": "programs",
                                   "input": {}}),
              _delta(0, type="input_json_delta", partial_json='{"action": "list", "ar'),
              *_end("max_tokens")]  # fmt: skip
    reply, _ = _reduce(events)
    assert reply.tool_uses[0]["input"] == {"action": "list"}
    assert reply.unparsed == (), "an unfinished call is dropped by the caller, not refused"


def test_malformed_tool_json_becomes_an_empty_input_and_the_stream_goes_on() -> None:
    events = [
        _start(),
        *_tool(0, "bad", "programs", '{"action": "list",, }'),
        *_tool(1, "good", "leads", '{"action": "list", "args": {}}'),
        *_end("tool_use", output_tokens=12),
    ]
    reply, _ = _reduce(events)
    assert [b["input"] for b in reply.tool_uses] == [{}, {"action": "list", "args": {}}]
    assert reply.unparsed == ("bad",)
    assert reply.usage["output_tokens"] == 12


def test_tool_json_nested_past_the_parser_limit_is_unparsed() -> None:
    deep = '{"x":' * 256 + "1" + "}" * 256
    reply, _ = _reduce([_start(), *_tool(0, "deep", "programs", deep), *_end("tool_use")])
    assert reply.tool_uses[0]["input"] == {} and reply.unparsed == ("deep",)


def test_the_fakes_events_reduce_to_the_reply_it_was_scripted_with() -> None:
    call = ToolUse("programs", {"action": "list", "args": {"q": "ñ"}}, id="t1")
    usage = FakeUsage(input_tokens=5, output_tokens=42, cache_write_1h_tokens=2)
    scripted = tool_reply(call, text="Looking it up for you, one moment.", usage=usage)
    reply, deltas = _reduce(_scripted(Reply([Thinking("plan"), *scripted.blocks],
                                            stop_reason="tool_use", usage=usage)))  # fmt: skip
    assert "".join(deltas) == "Looking it up for you, one moment."
    assert [b["type"] for b in reply.content] == ["thinking", "text", "tool_use"]
    assert reply.content[0]["signature"] == "sig-fake"
    assert reply.tool_uses[0]["input"] == call.input
    assert reply.usage["output_tokens"] == 42
    assert reply.usage["cache_creation"]["ephemeral_1h_input_tokens"] == 2


def test_events_the_reducer_does_not_know_are_ignored() -> None:
    events = [_start(), {"type": "ping"}, {"type": "future_event", "x": 1},
              _block(0, {"type": "server_tool_use", "id": "s1", "name": "web", "input": {}}),
              _stop(0), *_end("end_turn")]  # fmt: skip
    reply, _ = _reduce(events)
    assert reply.content == [], "server tools are not in Spotter's requests"
    assert reply.stop_reason == "end_turn"


def test_a_stream_that_never_started_a_message_has_no_reply() -> None:
    reducer = ReplyReducer()
    reducer.feed({"type": "ping"})
    with pytest.raises(IncompleteStream):
        reducer.reply()
