"""The one SSE encoder: `event: <type>\\ndata: <json>\\n\\n`, one chunk (and flush) per event."""

from __future__ import annotations

from collections.abc import AsyncIterator

from starlette.responses import StreamingResponse

from spotter.agent.events import AgentEvent


def encode(event: AgentEvent) -> bytes:
    data = event.model_dump_json(by_alias=True, exclude_none=True)
    return f"event: {event.type}\ndata: {data}\n\n".encode()


async def _encoded(events: AsyncIterator[AgentEvent]) -> AsyncIterator[bytes]:
    async for event in events:
        yield encode(event)


def sse_response(events: AsyncIterator[AgentEvent]) -> StreamingResponse:
    return StreamingResponse(
        _encoded(events),
        media_type="text/event-stream",
        # no proxy or adapter may buffer a stream: each event must reach the dashboard now
        headers={"cache-control": "no-cache", "x-accel-buffering": "no"},
    )
