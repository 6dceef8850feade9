"""A run that outlives its request: it runs in its own task, and the request only watches it.

The response relays the run's events from the log's local queue (no database in between). When
the client goes away, the response ends but the run does not: it goes on to its end (bounded by
MAX_TURNS, the output cap and the budget) and persists everything; the HTTP response
returns only once the run has ended (`http.sse`, `run=`), because on Lambda an invocation ends
when its response does. A stop cancels the run (`agent.stream.channel`); `run.finish` turns that
into `run_stopped` and ends the run like any other.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing

import anyio

from spotter.agent import events as ev
from spotter.agent.stream.log import Recorded, RunLog

RunFactory = Callable[[RunLog], AsyncIterator[ev.AgentEvent]]


class LiveRun:
    def __init__(self, start: RunFactory) -> None:
        self.log = RunLog()
        self._queue = self.log.subscribe()
        self.task = asyncio.create_task(self._drive(start(self.log)))

    async def _drive(self, events: AsyncIterator[ev.AgentEvent]) -> None:
        try:
            # closed with this task, should it be cancelled: the run ends with it
            async with aclosing(events) as run:  # type: ignore[type-var]
                async for _ in run:
                    pass  # each event reached the listeners when the log recorded it
        finally:
            try:
                await self.log.close()
            finally:
                self.log.notify(None)  # after the run's ending, said once its batch is persisted

    async def events(self) -> AsyncIterator[Recorded]:
        """What the requesting client sees; leaving early never stops the run."""
        try:
            while (recorded := await self._queue.get()) is not None:
                yield recorded
        finally:
            with anyio.CancelScope(shield=True):
                await asyncio.wait([self.task])


def start_live(start: RunFactory) -> LiveRun:
    return LiveRun(start)
