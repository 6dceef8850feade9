"""`mcp.asgi.rewrite_start`: the response's start is held until its first body chunk and sent as
the rewrite makes it from the two; the body is never changed, held or reordered."""

from __future__ import annotations

import asyncio

from starlette.types import Message

from spotter.mcp.asgi import rewrite_start

START: Message = {"type": "http.response.start", "status": 200, "headers": [(b"a", b"1")]}


def _run(events: list[Message]) -> tuple[list[Message], list[Message]]:
    """(what went out, what the rewrite was given)."""
    sent: list[Message] = []
    seen: list[Message] = []

    async def send(event: Message) -> None:
        sent.append(event)

    def rewriting(start: Message, chunk: Message) -> Message:
        seen.extend([start, chunk])
        return {**start, "status": 503 if chunk["body"] == b"down" else start["status"]}

    async def main() -> None:
        sending = rewrite_start(send, rewriting)
        for event in events:
            await sending(event)

    asyncio.run(main())
    return sent, seen


def test_the_start_is_sent_as_rewritten_from_the_first_chunk() -> None:
    first = {"type": "http.response.body", "body": b"down", "more_body": False}
    sent, seen = _run([START, first])
    assert seen == [START, first]
    assert sent == [{**START, "status": 503}, first]


def test_nothing_goes_out_before_the_first_chunk() -> None:
    sent, seen = _run([START])
    assert sent == [] and seen == []


def test_later_chunks_pass_unchanged_and_the_rewrite_runs_once() -> None:
    chunks = [
        {"type": "http.response.body", "body": b"up", "more_body": True},
        {"type": "http.response.body", "body": b"down", "more_body": True},
        {"type": "http.response.body", "body": b"", "more_body": False},
    ]
    sent, seen = _run([START, *chunks])
    assert sent == [START, *chunks]  # status from the first chunk only (200), rest as they came
    assert len(seen) == 2


def test_events_without_a_held_start_pass_through() -> None:
    disconnect = {"type": "http.disconnect"}
    sent, seen = _run([disconnect])
    assert sent == [disconnect] and seen == []
