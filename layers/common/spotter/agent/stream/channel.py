"""A run's events on a channel of their own, apart from what its phases return.

A phase puts its events on an `Emitter` and returns its typed step (`agent.run.steps`), as
openai-agents' turns put stream events on the run's queue and return a `SingleStepResult`.
`stream_run` runs a run in its own task and is the async iterator its caller reads: every event
is recorded on the run's log (its SSE id, the local listeners, the persisted batches) and handed
to the reader in order, as soon as it is emitted — a text delta reaches the client as it arrives.

Closing the iterator (a consumer that leaves) or a stop (`RunLog.request_stop`) cancels the
run's task: the cancellation unwinds every phase at once, so the provider stream it was reading
is closed now, not at garbage collection; the close returns only once the run has ended.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable, Coroutine
from typing import Any, Protocol

import anyio

from spotter.agent import events as ev
from spotter.agent.stream.log import Recorded, RunLog, wire


class Emitter(Protocol):
    """What a phase is given to say what happens, as it happens."""

    def emit(self, event: ev.AgentEvent) -> None: ...


class RunChannel:
    """A run's emitter, and the finish path's two halves of it: an event recorded (its place in
    the final batch) and delivered to the reader (once that batch is persisted)."""

    def __init__(self, log: RunLog) -> None:
        self.log = log
        self._reader: asyncio.Queue[ev.AgentEvent | None] = asyncio.Queue()

    def emit(self, event: ev.AgentEvent) -> None:
        self.log.record(event)  # the log's listeners (the HTTP response) get it now
        self._reader.put_nowait(event)

    def record(self, event: ev.AgentEvent) -> Recorded:
        """Its id and its place in the final batch; no reader sees it until `deliver`."""
        return self.log.record(event, notify=False)

    def deliver(self, event: ev.AgentEvent, recorded: Recorded | None = None) -> None:
        """To the reader and the log's listeners: `recorded` as recorded, or (an ending said
        instead of the one recorded) without an id."""
        self._reader.put_nowait(event)
        self.log.notify(recorded if recorded is not None else Recorded(None, wire(event)))

    def end(self) -> None:
        self._reader.put_nowait(None)

    async def next(self) -> ev.AgentEvent | None:
        return await self._reader.get()


async def stream_run(
    log: RunLog, run: Callable[[RunChannel], Coroutine[Any, Any, None]]
) -> AsyncGenerator[ev.AgentEvent, None]:
    """Run `run` in a task of its own and yield its events as they are emitted; the run's
    exception, if any, is raised here once it has ended."""
    channel = RunChannel(log)
    task = asyncio.create_task(run(channel))
    task.add_done_callback(lambda _: channel.end())
    log.on_stop = task.cancel  # the run ends as `run_stopped` (`run.finish`)
    try:
        while (event := await channel.next()) is not None:
            yield event
    finally:
        task.cancel()  # a reader that left: nothing once the run has ended
        with anyio.CancelScope(shield=True):
            await asyncio.wait([task])
        if not task.cancelled() and (failure := task.exception()) is not None:
            raise failure
