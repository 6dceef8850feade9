"""The lean stream goes through the real SDK client: our body on the wire, the client's headers,
raw events out, and the SDK's own errors for HTTP failures and mid-stream `error` events."""

from __future__ import annotations

import base64
import json
import struct
import zlib
from typing import Any

import anthropic
import httpx2
import pytest
from anthropic import AsyncAnthropicBedrock

from spotter.agent.errors import classify
from spotter.providers.fake import (
    FakeUsage,
    MidStreamFailure,
    ProviderError,
    Reply,
    ScriptedModel,
    Text,
    Thinking,
    ToolUse,
)
from spotter.providers.message_reply import ReplyReducer, StreamedReply
from spotter.providers.message_stream import open_stream
from spotter.providers.wire_request import WireRequest

# what `messages.stream` adds to say which SDK helper was used; nothing the API acts on
HELPER_TELEMETRY_HEADERS = {"x-stainless-helper-method", "x-stainless-stream-helper"}
REQUEST: dict[str, Any] = {
    "model": "claude-sonnet-5-5",
    "max_tokens": 64,
    "tools": [{"name": "programs", "description": "Programs", "input_schema": {"type": "object"}}],
    "system": [{"type": "text", "text": "Be brief — ñ.", "cache_control": {"type": "ephemeral"}}],
    "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
}


async def _reduce(client: Any, request: WireRequest) -> StreamedReply:
    reducer = ReplyReducer()
    async with open_stream(client, request) as stream:
        async for event in stream:
            assert isinstance(event, dict), "raw events, no SDK models"
            reducer.feed(event)
    return reducer.reply()


def test_the_body_is_the_sdks_json_of_the_request_with_stream_on() -> None:
    wire = WireRequest.from_dict(REQUEST)
    assert json.loads(wire.body) == {**REQUEST, "stream": True}
    assert wire.body == WireRequest.from_dict(dict(REQUEST)).body, "byte-stable"
    assert "ñ" in wire.body and ", " not in wire.body, "UTF-8 kept, compact, as the SDK sends"


def test_cached_fragments_are_placed_verbatim() -> None:
    tools = json.dumps(REQUEST["tools"], separators=(",", ":"))
    wire = WireRequest.of("m", 5, {"tools": tools, "messages": "[]"})
    assert (
        wire.body == f'{{"model":"m","max_tokens":5,"tools":{tools},"messages":[],"stream":true}}'
    )


async def test_the_posted_bytes_are_our_body_with_the_helpers_headers() -> None:
    seen: list[httpx2.Request] = []
    model = ScriptedModel([Reply([Text("ok")]), Reply([Text("ok")])])
    client = model.client()
    client._client.event_hooks["request"].append(_record(seen))
    wire = WireRequest.from_dict(REQUEST)
    reply = await _reduce(client, wire)
    async with client.messages.stream(**REQUEST) as stream:  # the path we replaced
        await stream.get_final_message()
    assert model.raw_requests[0] == wire.body.encode()
    assert json.loads(model.raw_requests[0]) == json.loads(model.raw_requests[1])
    ours, helpers = (dict(r.headers) for r in seen)
    assert ours["anthropic-version"] and ours["authorization"] == "Bearer fake-key"
    assert ours == {k: v for k, v in helpers.items() if k not in HELPER_TELEMETRY_HEADERS}
    assert [r.url for r in seen] == [seen[1].url] * 2
    assert reply.text == "ok"


async def test_the_reply_matches_what_the_sdk_helper_accumulated() -> None:
    usage = FakeUsage(input_tokens=5, output_tokens=42, cache_read_input_tokens=7,
                      cache_write_5m_tokens=3, cache_write_1h_tokens=2)  # fmt: skip
    blocks = [Thinking("hmm"), Text("Hello there, friend."),
              ToolUse("programs", {"action": "list", "args": {"n": [1, 2]}}, id="t1")]  # fmt: skip
    model = ScriptedModel([Reply(blocks, "tool_use", usage), Reply(blocks, "tool_use", usage)])
    ours = await _reduce(model.client(), WireRequest.from_dict(REQUEST))
    async with model.client().messages.stream(**REQUEST) as stream:  # the path we replaced
        final = await stream.get_final_message()
    assert ours.content == [b.model_dump(exclude_none=True) for b in final.content]
    assert ours.stop_reason == final.stop_reason and ours.model == final.model
    assert ours.usage == final.usage.model_dump(exclude_none=True)
    assert json.loads(model.raw_requests[0]) == json.loads(model.raw_requests[1])


@pytest.mark.parametrize(
    ("status", "kind", "code"),
    [
        (400, "invalid_request_error", "provider_invalid_request"),
        (401, "authentication_error", "provider_unauthorized"),
        (429, "rate_limit_error", "provider_rate_limited"),
        (500, "api_error", "provider_unavailable"),
        (529, "overloaded_error", "provider_overloaded"),
    ],
)
async def test_http_errors_are_the_sdks_status_errors(status: int, kind: str, code: str) -> None:
    model = ScriptedModel([ProviderError(status, kind)])
    with pytest.raises(anthropic.APIStatusError) as caught:
        await _reduce(model.client(), WireRequest.from_dict(REQUEST))
    assert caught.value.status_code == status and classify(caught.value) == code


@pytest.mark.parametrize(
    ("failure", "code"),
    [
        ("overloaded_error", "provider_overloaded"),
        ("rate_limit_error", "provider_rate_limited"),
        ("api_error", "provider_unavailable"),
        ("connection_reset", "provider_unavailable"),
    ],
)
async def test_a_mid_stream_failure_raises_what_classify_maps(
    failure: MidStreamFailure, code: str
) -> None:
    model = ScriptedModel([Reply([Text("never finished " * 4)], fail_after=4, failure=failure)])
    reducer = ReplyReducer()
    with pytest.raises((anthropic.APIStatusError, httpx2.TransportError)) as caught:
        await _drain(model.client(), reducer)
    assert classify(caught.value) == code
    assert reducer.usage is not None, "message_start's usage was seen before the failure"


async def _drain(client: Any, reducer: ReplyReducer) -> None:
    async with open_stream(client, WireRequest.from_dict(REQUEST)) as stream:
        async for event in stream:
            reducer.feed(event)


async def test_closing_early_stops_the_model() -> None:
    model = ScriptedModel([Reply([Text("a long answer " * 20)])])
    async with open_stream(model.client(), WireRequest.from_dict(REQUEST)) as stream:
        async for _ in stream:
            break
    assert model.streams_cut == 1 and model.streams_finished == 0


async def test_a_bedrock_client_sends_what_the_sdk_helper_sends_to_bedrock() -> None:
    seen: list[httpx2.Request] = []
    reply = Reply([Text("from bedrock")], usage=FakeUsage(input_tokens=11, output_tokens=3))
    http = httpx2.AsyncClient(transport=_BedrockTransport(seen, reply))
    client = AsyncAnthropicBedrock(
        aws_region="eu-west-1", aws_access_key="AKIDEXAMPLE", aws_secret_key="secret",
        http_client=http, max_retries=0,
    )  # fmt: skip
    got = await _reduce(client, WireRequest.from_dict(REQUEST))
    async with client.messages.stream(**REQUEST) as stream:  # the path we replaced
        helper = await stream.get_final_message()
    ours, helpers = seen
    assert ours.url == helpers.url
    assert ours.url.path == "/model/claude-sonnet-5-5/invoke-with-response-stream"
    body = json.loads(ours.content)
    assert body == json.loads(helpers.content)
    assert "model" not in body and "stream" not in body and body["anthropic_version"]
    assert ours.headers["authorization"].startswith("AWS4-HMAC-SHA256")
    assert got.text == "from bedrock" == helper.content[0].text  # type: ignore[union-attr]
    assert got.usage["input_tokens"] == 11


def _record(seen: list[httpx2.Request]) -> Any:
    async def hook(request: httpx2.Request) -> None:
        seen.append(request)

    return hook


class _BedrockTransport(httpx2.AsyncBaseTransport):
    """Answers as Bedrock does: the Messages events as AWS event-stream `chunk` frames."""

    def __init__(self, seen: list[httpx2.Request], reply: Reply) -> None:
        self.seen, self.reply = seen, reply

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        await request.aread()
        self.seen.append(request)
        events = ScriptedModel().events(self.reply, {"model": "claude-sonnet-5-5"})
        frames = b"".join(_frame(json.dumps(data).encode()) for _, data in events)
        headers = {"content-type": "application/vnd.amazon.eventstream"}
        return httpx2.Response(200, headers=headers, content=frames)


def _frame(event: bytes) -> bytes:
    payload = json.dumps({"bytes": base64.b64encode(event).decode()}).encode()
    headers = b"".join(
        bytes([len(name)])
        + name.encode()
        + b"\x07"
        + struct.pack(">H", len(value))
        + value.encode()
        for name, value in (
            (":event-type", "chunk"),
            (":content-type", "application/json"),
            (":message-type", "event"),
        )
    )
    total = 12 + len(headers) + len(payload) + 4
    prelude = struct.pack(">II", total, len(headers))
    head = prelude + struct.pack(">I", zlib.crc32(prelude)) + headers + payload
    return head + struct.pack(">I", zlib.crc32(head))
