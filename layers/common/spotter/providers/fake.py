"""A scripted model that speaks the Messages streaming protocol to the real `anthropic` SDK.

Tests, the benchmark and `SPOTTER_FAKE_MODEL=1` dev runs hand `ScriptedModel.client()` to the
orchestrator: the SDK sends real HTTP requests into an in-process transport, which records each
request body byte for byte and answers with the SSE events the API sends (`message_start` with
usage and cache fields, `content_block_start/delta/stop` for text, tool_use and thinking,
`message_delta` with the stop reason, `message_stop`), or with a provider error by HTTP status.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx2
from anthropic import AsyncAnthropic

FAKE_MODEL_ID = "claude-sonnet-5-5"


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class ToolUse:
    name: str
    input: dict[str, Any]
    id: str | None = None  # assigned (toolu_fake_N) when left out


@dataclass(frozen=True)
class Thinking:
    thinking: str
    signature: str | None = "sig-fake"  # None: cut off before the signature arrived


Block = Text | ToolUse | Thinking


@dataclass(frozen=True)
class FakeUsage:
    input_tokens: int = 100
    output_tokens: int = 20
    cache_read_input_tokens: int = 0
    cache_write_5m_tokens: int = 0
    cache_write_1h_tokens: int = 0


@dataclass(frozen=True)
class Reply:
    blocks: list[Block]
    stop_reason: str = "end_turn"
    usage: FakeUsage = FakeUsage()
    model: str | None = None  # the id the response names; the request's model when None
    delay_s: float = 0.0  # pause before each event: a slow model, for disconnects
    # a fault mid-stream: after `fail_after` events, an `error` event (the API's way to report
    # an overload or rate limit mid-stream) or a dropped connection / read timeout
    fail_after: int | None = None
    failure: MidStreamFailure = "overloaded_error"
    # a model that stops sending after `stall_after` events and never ends (the client's own
    # time budget or a stop ends the call)
    stall_after: int | None = None


MidStreamFailure = Literal[
    "overloaded_error", "rate_limit_error", "api_error", "connection_reset", "read_timeout"
]


@dataclass(frozen=True)
class ProviderError:
    status: int
    type: str = "api_error"
    message: str = "fake provider error"


Step = Reply | ProviderError | Callable[[dict[str, Any]], "Reply | ProviderError"]


def tool_reply(*calls: ToolUse, text: str | None = None, **kw: Any) -> Reply:
    blocks: list[Block] = [Text(text)] if text else []
    return Reply([*blocks, *calls], stop_reason="tool_use", **kw)


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def _chunks(text: str, size: int = 16) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


@dataclass
class ScriptedModel:
    """Answers each request with the next step of `script`; records every request."""

    script: list[Step] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    raw_requests: list[bytes] = field(default_factory=list)
    streams_finished: int = 0  # answers streamed to the end
    streams_cut: int = 0  # answers the client closed before the end (a disconnect)
    # Side calls (title, compaction, ...) may run beside the loop's calls, so they are answered
    # from their own scripts: `lane_of` names a request's lane (None: the main script), each
    # lane pops from `lanes[lane]`, else asks `lane_default`, and records into `lane_requests`.
    lane_of: Callable[[dict[str, Any]], str | None] | None = None
    lanes: dict[str, list[Step]] = field(default_factory=dict)
    lane_default: Callable[[str, dict[str, Any]], Step] | None = None
    lane_requests: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def client(self, *, max_retries: int = 0) -> AsyncAnthropic:
        http = httpx2.AsyncClient(transport=_Transport(self))
        return AsyncAnthropic(
            api_key="fake-key", base_url="http://fake.model", http_client=http,
            max_retries=max_retries,
        )  # fmt: skip

    def next_step(self, body: dict[str, Any]) -> Reply | ProviderError:
        if not self.script:
            raise AssertionError(
                f"the fake model was called {len(self.requests)} times; script ran out"
            )
        step = self.script.pop(0)
        return step(body) if callable(step) else step

    def lane(self, body: dict[str, Any]) -> str | None:
        return self.lane_of(body) if self.lane_of is not None else None

    def answer(self, body: dict[str, Any], raw: bytes) -> Reply | ProviderError:
        lane = self.lane(body)
        if lane is None:
            self.raw_requests.append(raw)
            self.requests.append(body)
            return self.next_step(body)
        self.lane_requests.setdefault(lane, []).append(body)
        scripted = self.lanes.get(lane)
        if scripted:
            step = scripted.pop(0)
        elif self.lane_default is not None:
            step = self.lane_default(lane, body)
        else:
            raise AssertionError(f"no script for the {lane!r} lane")
        return step(body) if callable(step) else step

    def events(self, reply: Reply, body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        u = reply.usage
        message: dict[str, Any] = {
            "id": f"msg_fake_{next(self._ids)}",
            "type": "message",
            "role": "assistant",
            "model": reply.model or body.get("model", FAKE_MODEL_ID),
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {
                "input_tokens": u.input_tokens,
                "output_tokens": 1,
                "cache_read_input_tokens": u.cache_read_input_tokens,
                "cache_creation_input_tokens": u.cache_write_5m_tokens + u.cache_write_1h_tokens,
                "cache_creation": {
                    "ephemeral_5m_input_tokens": u.cache_write_5m_tokens,
                    "ephemeral_1h_input_tokens": u.cache_write_1h_tokens,
                },
            },
        }
        out: list[tuple[str, dict[str, Any]]] = [
            ("message_start", {"type": "message_start", "message": message}),
            ("ping", {"type": "ping"}),
        ]
        for index, block in enumerate(reply.blocks):
            out.extend(self._block_events(index, block))
        out.append(
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": reply.stop_reason, "stop_sequence": None},
                    "usage": {"output_tokens": u.output_tokens},
                },
            )
        )
        out.append(("message_stop", {"type": "message_stop"}))
        return out

    def _block_events(self, index: int, block: Block) -> list[tuple[str, dict[str, Any]]]:
        def start(content_block: dict[str, Any]) -> tuple[str, dict[str, Any]]:
            data = {"type": "content_block_start", "index": index, "content_block": content_block}
            return ("content_block_start", data)

        def delta(d: dict[str, Any]) -> tuple[str, dict[str, Any]]:
            return (
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": d},
            )

        out: list[tuple[str, dict[str, Any]]]
        if isinstance(block, Text):
            out = [start({"type": "text", "text": ""})]
            out += [delta({"type": "text_delta", "text": c}) for c in _chunks(block.text)]
        elif isinstance(block, ToolUse):
            tool_id = block.id or f"toolu_fake_{next(self._ids)}"
            out = [start({"type": "tool_use", "id": tool_id, "name": block.name, "input": {}})]
            text = json.dumps(block.input)
            out += [delta({"type": "input_json_delta", "partial_json": c}) for c in _chunks(text)]
        else:
            out = [start({"type": "thinking", "thinking": "", "signature": ""})]
            out += [
                delta({"type": "thinking_delta", "thinking": c}) for c in _chunks(block.thinking)
            ]
            if block.signature is not None:
                out.append(delta({"type": "signature_delta", "signature": block.signature}))
        out.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        return out


class _Transport(httpx2.AsyncBaseTransport):
    def __init__(self, model: ScriptedModel) -> None:
        self.model = model

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        raw = await request.aread()
        body: dict[str, Any] = json.loads(raw)
        step = self.model.answer(body, raw)
        if isinstance(step, ProviderError):
            payload = {"type": "error", "error": {"type": step.type, "message": step.message}}
            return httpx2.Response(step.status, json=payload, headers={"request-id": "req_fake"})
        return httpx2.Response(
            200,
            headers={"content-type": "text/event-stream", "request-id": "req_fake"},
            stream=_EventStream(
                self.model,
                self.model.events(step, body),
                step.delay_s,
                counted=self.model.lane(body) is None,  # the counters are the main script's
                fail_after=step.fail_after,
                failure=step.failure,
                stall_after=step.stall_after,
            ),
        )


class _EventStream(httpx2.AsyncByteStream):
    """The response body, one SSE event per chunk; knows whether the client read it all."""

    def __init__(
        self,
        model: ScriptedModel,
        events: list[tuple[str, dict[str, Any]]],
        delay_s: float,
        *,
        counted: bool = True,
        fail_after: int | None = None,
        failure: MidStreamFailure = "overloaded_error",
        stall_after: int | None = None,
    ) -> None:
        self.model, self.events, self.delay_s, self.counted = model, events, delay_s, counted
        self.fail_after, self.failure, self.stall_after = fail_after, failure, stall_after
        self.finished = self.closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for sent, (name, data) in enumerate(self.events):
            if self.fail_after is not None and sent == self.fail_after:
                for chunk in self._fail():
                    yield chunk
                return
            if self.stall_after is not None and sent == self.stall_after:
                await asyncio.Event().wait()  # until the client gives up (cancelled)
            if self.delay_s:
                await asyncio.sleep(self.delay_s)
            yield _sse(name, data)
        self.finished = True

    def _fail(self) -> list[bytes]:
        if self.failure == "connection_reset":
            raise httpx2.ReadError("connection reset by peer")
        if self.failure == "read_timeout":
            raise httpx2.ReadTimeout("the model stopped sending")
        error = {"type": self.failure, "message": "fake mid-stream error"}
        return [_sse("error", {"type": "error", "error": error})]

    async def aclose(self) -> None:
        if self.closed or not self.counted:
            return
        self.closed = True
        # a test can prove a disconnect stopped the model mid-answer
        if self.finished:
            self.model.streams_finished += 1
        else:
            self.model.streams_cut += 1


def echo_model() -> ScriptedModel:
    """The offline dev model (`SPOTTER_FAKE_MODEL=1`): it says what it was asked, forever."""

    def answer(body: dict[str, Any]) -> Reply:
        if not (isinstance(body["system"], list) and len(body["system"]) == 2):
            # a side call (title, summary, quick router): a short plain answer; the router
            # reads it as "decline", so the loop always echoes
            return Reply([Text("Offline conversation")])
        last = body["messages"][-1]["content"]
        said = next((b.get("text", "") for b in last if b.get("type") == "text"), "")
        return Reply([Text(f"(offline fake model) You said: {said}")])

    return _Endless(answer)


class _Endless(ScriptedModel):
    def __init__(self, answer: Callable[[dict[str, Any]], Reply]) -> None:
        super().__init__()
        self._answer = answer

    def next_step(self, body: dict[str, Any]) -> Reply | ProviderError:
        return self._answer(body)
