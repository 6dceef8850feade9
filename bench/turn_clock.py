"""Where a turn's wall time goes: the model client, the fake model server, the database, or us.

`TurnClock.installed()` wraps, for the benchmark's process only, the entry points of:

- the model client: the `anthropic` SDK's request path (`AsyncAPIClient.request`/`post`, the
  `messages.create`/`stream` helpers and their managers), its streams (`AsyncStream`, the
  `messages.stream` helper's `AsyncMessageStream`: each step of their iterators, `close`,
  `get_final_message`; the SSE decoder) and the `httpx2` client beneath it
  (`AsyncClient.send`, reading a response). Both ways of calling the model are covered:
  `messages.stream(...)`, and `client.post(..., stream=True, stream_cls=AsyncStream[object])`
  followed by iterating the stream, and so is code that decodes the `httpx2` response itself;
- the fake model server (providers/fake.py): `_Transport.handle_async_request` (decoding the
  request, scripting and encoding the answer) and each step of `_EventStream`'s body;
- the database: `psycopg.AsyncConnection.wait`, through which every statement, pipeline sync,
  BEGIN and COMMIT waits on the server (and libpq's sending and result reading run).

Each instant of wall time goes to exactly one bucket: the fake server while its code runs
(it runs inside the SDK's calls), else the model client while any SDK call is under way, else
the database while any statement is awaited, else our own code. So model + fake + database +
own = end to end. Concurrent statements (three read tools run in parallel) count once, as the
wall time during which at least one of them was awaited, and our code that runs in another
task meanwhile is counted as database time: this is a split of wall time, not of CPU time.
The SDK never suspends on the in-process transport, so its buckets are time its code runs.
"""

from __future__ import annotations

import functools
import inspect
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from contextlib import contextmanager
from typing import Any

import httpx2
from anthropic._base_client import AsyncAPIClient
from anthropic._streaming import AsyncStream, ServerSentEvent, SSEDecoder
from anthropic.lib.streaming._messages import AsyncMessageStream, AsyncMessageStreamManager
from anthropic.resources.messages.messages import AsyncMessages
from psycopg import AsyncConnection

from spotter.providers import fake

FAKE, MODEL, DB = 0, 1, 2  # in priority order: the first active bucket gets the time
BUCKETS = ("fake_ms", "model_ms", "db_ms")

_ENTRY_POINTS: dict[int, list[tuple[type[Any], str]]] = {
    MODEL: [
        (AsyncMessages, "create"),
        (AsyncMessages, "stream"),
        (AsyncMessageStreamManager, "__aenter__"),
        (AsyncMessageStreamManager, "__aexit__"),
        (AsyncMessageStream, "__anext__"),
        (AsyncMessageStream, "__aiter__"),
        (AsyncMessageStream, "get_final_message"),
        (AsyncMessageStream, "until_done"),
        (AsyncMessageStream, "close"),
        (AsyncAPIClient, "request"),
        (AsyncAPIClient, "post"),
        (AsyncStream, "__anext__"),
        (AsyncStream, "__aiter__"),
        (AsyncStream, "close"),
        # the SSE decoding, for a reducer that reads the response without AsyncStream
        (SSEDecoder, "aiter_bytes"),
        (ServerSentEvent, "json"),
        (httpx2.AsyncClient, "send"),
        (httpx2.Response, "aread"),
        (httpx2.Response, "aclose"),
        (httpx2.Response, "aiter_bytes"),
        (httpx2.Response, "aiter_raw"),
        (httpx2.Response, "aiter_text"),
        (httpx2.Response, "aiter_lines"),
    ],
    FAKE: [
        (fake._Transport, "handle_async_request"),
        (fake._EventStream, "__aiter__"),
        (fake._EventStream, "aclose"),
    ],
    DB: [(AsyncConnection, "wait")],
}


class TurnClock:
    def __init__(self) -> None:
        self._depth = [0, 0, 0]
        self._spent = [0.0, 0.0, 0.0]
        self._mark = time.perf_counter()

    def enter(self, bucket: int) -> None:
        self._settle()
        self._depth[bucket] += 1

    def leave(self, bucket: int) -> None:
        self._settle()
        self._depth[bucket] -= 1

    def _settle(self) -> None:
        now = time.perf_counter()
        for bucket, depth in enumerate(self._depth):
            if depth:
                self._spent[bucket] += now - self._mark
                break
        self._mark = now

    def restart(self) -> None:
        self._settle()
        self._spent = [0.0, 0.0, 0.0]

    def read(self) -> dict[str, float]:
        """Milliseconds per bucket since `restart`."""
        self._settle()
        return {name: spent * 1000 for name, spent in zip(BUCKETS, self._spent, strict=True)}

    @contextmanager
    def installed(self) -> Iterator[TurnClock]:
        originals = [
            (cls, name, cls.__dict__[name])
            for points in _ENTRY_POINTS.values()
            for cls, name in points
        ]
        for bucket, points in _ENTRY_POINTS.items():
            for cls, name in points:
                setattr(cls, name, self._timed(cls.__dict__[name], bucket))
        try:
            yield self
        finally:
            for cls, name, original in originals:
                setattr(cls, name, original)

    def _timed(self, fn: Callable[..., Any], bucket: int) -> Callable[..., Any]:
        enter, leave = self.enter, self.leave
        if inspect.isasyncgenfunction(fn):

            @functools.wraps(fn)
            async def timed_steps(*args: Any, **kwargs: Any) -> AsyncIterator[Any]:
                steps = fn(*args, **kwargs)
                try:
                    while True:
                        enter(bucket)
                        try:
                            item = await steps.__anext__()
                        except StopAsyncIteration:
                            return
                        finally:
                            leave(bucket)
                        yield item
                finally:
                    enter(bucket)
                    try:
                        await steps.aclose()
                    finally:
                        leave(bucket)

            return timed_steps
        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def timed_call(*args: Any, **kwargs: Any) -> Any:
                enter(bucket)
                try:
                    return await fn(*args, **kwargs)
                finally:
                    leave(bucket)

            return timed_call

        async def awaited(pending: Coroutine[Any, Any, Any]) -> Any:
            enter(bucket)
            try:
                return await pending
            finally:
                leave(bucket)

        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            enter(bucket)
            try:
                result = fn(*args, **kwargs)
            finally:
                leave(bucket)
            # `messages.create` is a plain function (argument checking) returning a coroutine
            return awaited(result) if inspect.iscoroutine(result) else result

        return timed
