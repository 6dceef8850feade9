"""A run's event log: every event gets the conversation's next SSE id, is handed to the local
listeners at once, and is persisted in batches (`ai_run_events`) as the run goes.

Batching is what keeps it cheap: a flush every `FLUSH_SECONDS` writes whatever accumulated as
ONE row (half a second of text deltas is one insert, not dozens); the same transaction keeps the
run's lease alive and reads whether someone asked it to stop. A plain turn shorter than one
flush interval costs one statement more than before: its final batch, written in the
transaction that releases the conversation's lease (`agent.run_lease`).

The log is bound once the run knows its conversation is the caller's (`bind`); events before
that (a refusal) are relayed to the local listeners without an id and never persisted.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import anyio
from psycopg.types.json import Jsonb

from spotter.agent import events as ev
from spotter.agent.run_lease import KEEP_ALIVE_SQL, RELEASE_SQL
from spotter.db import Conn, Database
from spotter.observability import log_event

FLUSH_SECONDS = 0.5
HEARTBEAT_SECONDS = 2.0  # an idle run (a long tool, a slow first token) still says it is live

_INSERT = (
    "INSERT INTO ai_run_events"
    " (organization_id, conversation_id, run_id, first_seq, last_seq, events, final)"
    " VALUES (%s, %s, %s, %s, %s, %s, %s)"
)

# the runs of this process by conversation: a stop reaching this instance acts at once
LOCAL_RUNS: dict[UUID, RunLog] = {}


def wire(event: ev.AgentEvent) -> dict[str, Any]:
    """An event as the client reads it (camelCase, no None fields)."""
    data: dict[str, Any] = event.model_dump(mode="json", by_alias=True, exclude_none=True)
    return data


@dataclass(frozen=True)
class Recorded:
    """One event as streamed: its SSE id (None before the log is bound) and its wire form."""

    seq: int | None
    data: dict[str, Any]

    @property
    def type(self) -> str:
        return str(self.data["type"])


@dataclass(frozen=True)
class _Binding:
    db: Database
    org_id: UUID
    conversation_id: UUID
    run_id: UUID
    # the run's own transaction (`RunState.log_transaction`): what the run still owes (its last
    # reply, usage) commits with the last batch and the `done` batch before a compaction
    run_transaction: Callable[[], AbstractAsyncContextManager[Conn]] | None = None


class RunLog:
    def __init__(self) -> None:
        self._binding: _Binding | None = None
        self._next_seq = 1
        self._pending: list[Recorded] = []
        self._listeners: list[asyncio.Queue[Recorded | None]] = []
        self._lock = asyncio.Lock()
        self._flusher: asyncio.Task[None] | None = None
        self._closed = False
        self._last_contact = time.monotonic()
        self.stopping = False
        self.ending = False  # the run is past its body: a stop now changes nothing
        self._abandoned = False  # closed with the database gone: nothing more is written
        self.on_stop: Callable[[], Any] | None = None  # cancels the run (`stream.channel`)

    @property
    def conversation_id(self) -> UUID | None:
        return self._binding.conversation_id if self._binding else None

    def bind(
        self,
        db: Database,
        org_id: UUID,
        conversation_id: UUID,
        run_id: UUID,
        last_seq: int,
        *,
        run_transaction: Callable[[], AbstractAsyncContextManager[Conn]] | None = None,
    ) -> None:
        """From here the run's events are the conversation's, ids after `last_seq`."""
        if self._binding is not None:
            return
        self._binding = _Binding(db, org_id, conversation_id, run_id, run_transaction)
        self._next_seq = last_seq + 1
        LOCAL_RUNS[conversation_id] = self
        self._flusher = asyncio.create_task(self._flush_periodically())

    def subscribe(self) -> asyncio.Queue[Recorded | None]:
        queue: asyncio.Queue[Recorded | None] = asyncio.Queue()
        self._listeners.append(queue)
        return queue

    def record(self, event: ev.AgentEvent) -> Recorded:
        seq: int | None = None
        if self._binding is not None and not self._closed:
            seq = self._next_seq
            self._next_seq += 1
        recorded = Recorded(seq, wire(event))
        if seq is not None:
            self._pending.append(recorded)
        for queue in self._listeners:
            queue.put_nowait(recorded)
        return recorded

    def request_stop(self) -> bool:
        """Stop the run (once); False when it is already ending or stopping."""
        if self.stopping or self.ending or self._closed:
            return False
        self.stopping = True
        if self.on_stop is not None:
            self.on_stop()
        return True

    async def flush(self) -> None:
        """Persist what was recorded now, the lease kept (a normal flush, ahead of its time):
        the run's `done` before it compacts the conversation (`run.compaction_gate`)."""
        if self._binding is not None and not self._closed:
            with anyio.CancelScope(shield=True):
                await self._flush(final=False, in_run=True)

    async def close(self, *, persist: bool = True) -> None:
        """The final batch (the run is no longer live); idempotent, and not cut short by a
        cancelled scope: what the client saw must be what a reconnect replays.

        `persist=False`: the database is known to be gone (the run ended `service_unavailable`),
        so no write is tried: each would wait out the pool's bound again before the client
        gets its `done`. The lease then expires by its rule."""
        if self._closed:
            return
        self._closed = True
        self._abandoned = not persist
        with anyio.CancelScope(shield=True):
            if self._flusher is not None:
                self._flusher.cancel()
                if persist:
                    await asyncio.gather(self._flusher, return_exceptions=True)
            if self._binding is not None:
                if persist:
                    await self._flush(final=True, in_run=True)
                LOCAL_RUNS.pop(self._binding.conversation_id, None)
        for queue in self._listeners:
            queue.put_nowait(None)

    async def _flush_periodically(self) -> None:
        while True:
            await asyncio.sleep(FLUSH_SECONDS)
            idle = time.monotonic() - self._last_contact
            if self._pending or idle >= HEARTBEAT_SECONDS:
                # `close` cancels this loop: a flush under way finishes (it holds the lock the
                # final flush waits for), so no batch is cut off between its swap and commit
                await asyncio.shield(self._flush(final=False))

    async def _flush(self, *, final: bool, in_run: bool = False) -> None:
        b = self._binding
        assert b is not None
        async with self._lock:
            batch, self._pending = self._pending, []
            try:
                stop = await self._write(b, batch, final=final, in_run=in_run)
            except asyncio.CancelledError:
                self._pending = batch + self._pending  # not written: the next flush writes it
                raise
            except Exception as exc:  # never fail the run: keep the batch for the next flush
                self._pending = batch + self._pending
                log_event("agent.stream.flush_failed", level="warning", error=type(exc).__name__)
                return
            self._last_contact = time.monotonic()
        if stop:
            self.request_stop()

    async def _write(
        self, b: _Binding, batch: list[Recorded], *, final: bool, in_run: bool
    ) -> bool:
        """One pipelined transaction, one round trip: the batch, and the lease kept (or, with
        the final batch, released); whether a stop was asked is read after the commit.
        `in_run`: in the run's own transaction, after what the run still owes."""
        keep_alive = None
        tx = b.run_transaction if in_run and b.run_transaction is not None else None
        async with tx() if tx is not None else b.db.pipelined_tx(b.org_id) as conn:
            if self._abandoned:
                # closed without persisting while this write waited for the database: a late
                # heartbeat must not make the ended run's lease look alive again
                return False
            if batch:
                entries = [[r.seq, r.data] for r in batch]
                await conn.execute(
                    _INSERT,
                    (
                        b.org_id, b.conversation_id, b.run_id, batch[0].seq, batch[-1].seq,
                        Jsonb(entries), final,
                    ),
                )  # fmt: skip
            if final:
                # the last batch and the end of the run's lease commit together: a follower
                # that finds the conversation free has the run's `done`
                await conn.execute(RELEASE_SQL, (b.conversation_id, b.org_id, b.run_id))
            else:
                keep_alive = await conn.execute(
                    KEEP_ALIVE_SQL, (b.conversation_id, b.org_id, b.run_id)
                )
        if keep_alive is None:
            return False
        row = await keep_alive.fetchone()
        return bool(row and row["stop"])
