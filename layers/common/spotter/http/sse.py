"""The SSE wire: the native encoding (`id:` / `event:` / `data:`, one chunk and flush per event)
and the response that streams recorded events in the encoding the request chose.

Two encodings of the same events, chosen per request (`?protocol=ai-sdk` or the header
`x-stream-protocol: ai-sdk`); the native one is the default. Both carry the event's `id:` when
it has one, so either reconnects with `Last-Event-ID`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any, Literal

import anyio
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from spotter.agent import events as ev
from spotter.agent.stream import Recorded, wire
from spotter.http.ui_stream import UI_STREAM_HEADERS, UiMessageStream
from spotter.tools.summaries import Voice, describe_call, present_card

Protocol = Literal["spotter", "ai-sdk"]

# no proxy or adapter may buffer a stream: each event must reach the dashboard now
_NO_BUFFERING = {"cache-control": "no-cache", "x-accel-buffering": "no"}


def protocol_of(request: Request) -> Protocol:
    asked = request.query_params.get("protocol") or request.headers.get("x-stream-protocol")
    return "ai-sdk" if asked == "ai-sdk" else "spotter"


def encode(event: ev.AgentEvent, event_id: int | None = None) -> bytes:
    return encode_wire(wire(event), event_id)


def encode_wire(data: dict[str, Any], event_id: int | None = None) -> bytes:
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {data['type']}\ndata: {body}\n\n".encode()


async def unlogged(events: AsyncIterator[ev.AgentEvent]) -> AsyncIterator[Recorded]:
    """Events of a stream that is not a run's (undo, a missing provider): no ids."""
    async for event in events:
        yield Recorded(None, wire(event))


def presented(data: dict[str, Any], voice: Voice) -> dict[str, Any]:
    """A tool event with the words its card shows, in the watcher's language and the gym's
    clock (`tools.summaries`): `title` and `sideEffects`, then `summary` once it completed, and a
    confirmation's card labelled. Added as the event leaves, so the stored stream stays one for
    every reader and a replay speaks the language of whoever follows it."""
    kind = data.get("type")
    if kind not in ("tool_started", "tool_completed", "confirmation_pending"):
        return data
    router, action = str(data.get("router")), str(data.get("action"))
    words = describe_call(
        router,
        action,
        voice=voice,
        finished=kind == "tool_completed",
        ok=bool(data.get("ok")),
        output=data.get("output"),
        error=data.get("error"),
    )
    if kind == "confirmation_pending":
        return {**data, **words, "confirmation": present_card(data.get("confirmation"), voice)}
    return {**data, **words}


async def _presented(records: AsyncIterator[Recorded], voice: Voice) -> AsyncIterator[Recorded]:
    async for recorded in records:
        yield Recorded(recorded.seq, presented(recorded.data, voice))


async def _native(records: AsyncIterator[Recorded]) -> AsyncIterator[bytes]:
    async for recorded in records:
        yield encode_wire(recorded.data, recorded.seq)


async def _ai_sdk(records: AsyncIterator[Recorded]) -> AsyncIterator[bytes]:
    translator = UiMessageStream()
    async for recorded in records:
        for frame in translator.frames(recorded):
            yield frame
    for frame in translator.end():
        yield frame


class _RunResponse(StreamingResponse):
    """A response that returns only once its run has ended, however the client left: on
    Lambda the invocation (and the adapter's request) must outlive the run it started."""

    def __init__(self, body: AsyncIterator[bytes], run: asyncio.Task[None], **kw: Any) -> None:
        super().__init__(body, **kw)
        self._run = run

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            with anyio.CancelScope(shield=True):
                await asyncio.wait([self._run])


def recorded_response(
    records: AsyncIterator[Recorded],
    protocol: Protocol,
    *,
    run: asyncio.Task[None] | None = None,
    voice: Voice | None = None,
) -> StreamingResponse:
    """`run`: the task of the run these records come from; the response outlives it. `voice`:
    whom the tool events' words are for (none: the events as stored)."""
    if voice is not None:
        records = _presented(records, voice)
    body = _ai_sdk(records) if protocol == "ai-sdk" else _native(records)
    headers = {**_NO_BUFFERING, **UI_STREAM_HEADERS} if protocol == "ai-sdk" else _NO_BUFFERING
    if run is None:
        return StreamingResponse(body, media_type="text/event-stream", headers=headers)
    return _RunResponse(body, run, media_type="text/event-stream", headers=headers)


def sse_response(events: AsyncIterator[ev.AgentEvent]) -> StreamingResponse:
    return recorded_response(unlogged(events), "spotter")
