"""A run's events on their own channel (`agent.stream.channel`): delivered as they are emitted,
recorded on the run's log, and a reader that leaves or a stop ends the run at once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from spotter.agent import events as ev
from spotter.agent.stream import RunChannel, RunLog, stream_run

STEP_SECONDS = 2.0  # a bound on every wait: a broken channel fails the test instead of hanging


def delta(text: str) -> ev.TextDelta:
    return ev.TextDelta(delta=text)


async def test_an_event_reaches_the_reader_while_the_run_is_still_going() -> None:
    read_first = asyncio.Event()

    async def run(channel: RunChannel) -> None:
        channel.emit(delta("first"))
        await read_first.wait()  # returns only once the reader has seen "first"
        channel.emit(delta("second"))

    reader = stream_run(RunLog(), run)
    first = await asyncio.wait_for(anext(reader), STEP_SECONDS)
    read_first.set()
    rest = await asyncio.wait_for(_drain(reader), STEP_SECONDS)
    assert [first, *rest] == [delta("first"), delta("second")]


async def test_each_event_is_recorded_on_the_run_log_in_the_order_emitted() -> None:
    log = RunLog()
    listener = log.subscribe()

    async def run(channel: RunChannel) -> None:
        for text in ("a", "b", "c"):
            channel.emit(delta(text))

    read = await asyncio.wait_for(_drain(stream_run(log, run)), STEP_SECONDS)
    recorded = [listener.get_nowait() for _ in read]
    assert [r.data["delta"] for r in recorded if r is not None] == ["a", "b", "c"]
    assert read == [delta("a"), delta("b"), delta("c")]


async def test_a_reader_that_leaves_cancels_the_run_and_its_close_waits_for_the_cleanup() -> None:
    cleaned = False

    async def run(channel: RunChannel) -> None:
        nonlocal cleaned
        channel.emit(delta("first"))
        try:
            await asyncio.Event().wait()  # a provider stream that never ends by itself
        finally:
            await asyncio.sleep(0.01)  # closing it takes a moment
            cleaned = True

    reader = stream_run(RunLog(), run)
    assert await asyncio.wait_for(anext(reader), STEP_SECONDS) == delta("first")
    await asyncio.wait_for(reader.aclose(), STEP_SECONDS)
    assert cleaned, "the close returned before the run had unwound"


async def test_a_stop_cancels_the_run_which_still_says_how_it_ended() -> None:
    log = RunLog()

    async def run(channel: RunChannel) -> None:
        channel.emit(delta("first"))
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            task = asyncio.current_task()
            assert task is not None
            task.uncancel()  # as `run.finish` does for a stop
        channel.emit(ev.Done(conversation_id=None))

    reader = stream_run(log, run)
    assert await asyncio.wait_for(anext(reader), STEP_SECONDS) == delta("first")
    assert log.request_stop()
    rest = await asyncio.wait_for(_drain(reader), STEP_SECONDS)
    assert rest == [ev.Done(conversation_id=None)]


async def test_a_failure_of_the_run_reaches_the_reader_after_its_events() -> None:
    async def run(channel: RunChannel) -> None:
        channel.emit(delta("first"))
        raise LookupError("the run failed")

    reader = stream_run(RunLog(), run)
    assert await asyncio.wait_for(anext(reader), STEP_SECONDS) == delta("first")
    with pytest.raises(LookupError, match="the run failed"):
        await asyncio.wait_for(anext(reader), STEP_SECONDS)


async def _drain(reader: AsyncIterator[ev.AgentEvent]) -> list[ev.AgentEvent]:
    return [event async for event in reader]
