"""The SSE wire: the native encoding (`id:` / `event:` / `data:`, one chunk and flush per event)
and the response that streams recorded events, natively or, for the AI SDK chat routes, as the
UI message stream (`http.ui_stream`). Both carry the event's `id:` when it has one.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import anyio
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from spotter.agent import events as ev
from spotter.agent.stream import Recorded, wire
from spotter.domain.form_compliance import withhold_health_answers
from spotter.errors import SpotterError
from spotter.http.ui_stream import UI_STREAM_HEADERS, UiMessageStream
from spotter.tools.summaries import Voice, describe_call, present_card

# no proxy or adapter may buffer a stream: each event must reach the dashboard now
_NO_BUFFERING = {"cache-control": "no-cache", "x-accel-buffering": "no"}


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
    every reader and a replay speaks the language of whoever follows it. A completed call's
    output is what the watcher's role may read of it (health answers: managers only)."""
    kind = data.get("type")
    if kind not in ("tool_started", "tool_completed", "confirmation_pending"):
        return data
    router, action = str(data.get("router")), str(data.get("action"))
    if "output" in data:
        data = {**data, "output": withhold_health_answers(data["output"], voice.role)}
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


async def _ui(records: AsyncIterator[Recorded], ui: UiMessageStream) -> AsyncIterator[bytes]:
    async for recorded in records:
        for frame in ui.frames(recorded):
            yield frame
    for frame in ui.end():
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
    *,
    run: asyncio.Task[None] | None = None,
    ui: UiMessageStream | None = None,
    voice: Voice | None = None,
) -> StreamingResponse:
    """`run`: the task of the run these records come from; the response outlives it. `ui`: the
    AI SDK translator of this response (None: the native encoding). `voice`: whom the tool
    events' words are for (none: the events as stored)."""
    if voice is not None:
        records = _presented(records, voice)
    body = _native(records) if ui is None else _ui(records, ui)
    headers = _NO_BUFFERING if ui is None else {**_NO_BUFFERING, **UI_STREAM_HEADERS}
    if run is None:
        return StreamingResponse(body, media_type="text/event-stream", headers=headers)
    return _RunResponse(body, run, media_type="text/event-stream", headers=headers)


def sse_response(events: AsyncIterator[ev.AgentEvent]) -> StreamingResponse:
    return recorded_response(unlogged(events))


def resume_point(last_event_id: str | None, after: int | None) -> int:
    """The last event a reconnecting client has: `?after=` or `Last-Event-ID` (neither: 0)."""
    raw: int | str | None = after if after is not None else last_event_id
    if raw is None or raw == "":
        return 0
    try:
        point = int(raw)
    except ValueError:
        point = -1
    if point < 0:
        raise SpotterError("invalid_request", "Last-Event-ID must be an event id.", status=400)
    return point
