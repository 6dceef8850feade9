"""A run's event log: every event gets the conversation's next SSE id, is handed to the local
listeners at once, and is persisted in batches (`ai_run_events`) as the run goes.

Batching is what keeps it cheap: a flush every `FLUSH_SECONDS` writes whatever accumulated as
ONE row (half a second of text deltas is one insert, not dozens); the same statement reads
whether someone asked the run to stop, and a flush keeps the run's lease alive when the log last
refreshed it `LEASE_REFRESH_SECONDS` ago (a small part of its two minutes: refreshing it at
every flush rewrote the conversation's row twice a second for nothing). A plain turn shorter
than one flush interval costs one statement more than before: its final batch, written in the
transaction that releases the conversation's lease (`agent.run_lease`).

The log is bound once the run knows its conversation is the caller's (`bind`); events before
that (a refusal) are relayed to the local listeners without an id and never persisted.

Every batch is written only while the run holds its lease (a run that lost it never writes ids
its successor uses). The final batch can never keep a lease: a batch Postgres refuses is
dropped (logged) and the lease released alone; a final write the database was away for is
tried again in the background until it lands (`RELEASE_RETRY_SECONDS`, about the lease's own
two minutes), and a new run of the same conversation in this process writes it first
(`release_ended`), so a run that ended during a blip frees its conversation once the database
is back, with its events and ids intact.
"""

from __future__ import annotations

import asyncio
import copy
import time
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import anyio
from psycopg import sql
from psycopg.types.json import Jsonb

from spotter.agent import events as ev
from spotter.agent.run_lease import KEEP_ALIVE_SQL, RELEASE_SQL
from spotter.db import Conn, Database
from spotter.db.errors import is_unavailable
from spotter.db.text import repaired
from spotter.domain.mentions import Mentions
from spotter.observability import log_event

FLUSH_SECONDS = 0.5
HEARTBEAT_SECONDS = 2.0  # an idle run (a long tool, a slow first token) still says it is live
# a batch refreshes the lease (LEASE_TTL, two minutes) only when the log's last refresh is this
# old; every batch still reads whether a stop was asked
LEASE_REFRESH_SECONDS = 10.0

# fenced on the lease: a run that lost its conversation writes no ids its successor uses
_INSERT = (
    "INSERT INTO ai_run_events"
    " (organization_id, conversation_id, run_id, first_seq, last_seq, events, final)"
    " SELECT %(org)s, %(conversation)s, %(run)s, %(first)s, %(last)s, %(events)s, %(final)s"
    " WHERE EXISTS (SELECT 1 FROM ai_conversations WHERE id = %(conversation)s"
    "  AND organization_id = %(org)s AND live_run_id = %(run)s)"
)
# a batch that does not refresh the lease reads the stop request in the same statement
_INSERT_READING_STOP = (
    _INSERT + " RETURNING (SELECT stop_requested_run_id = live_run_id FROM ai_conversations"
    " WHERE id = %(conversation)s AND organization_id = %(org)s) AS stop"
)

# the runs of this process by conversation: a stop reaching this instance acts at once
LOCAL_RUNS: dict[UUID, RunLog] = {}
# ended runs of this process whose final batch (and the lease's release) is not written yet
UNRELEASED: dict[UUID, RunLog] = {}
# waits between tries of such a final write: about the lease's two minutes in all, after which
# the lease would have expired by its rule anyway
RELEASE_RETRY_SECONDS = (0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 30.0, 30.0)
_RETRIES: set[asyncio.Task[None]] = set()


async def release_ended(conversation_id: UUID) -> None:
    """Before a run takes a conversation's lease: an earlier run of it in this process that
    ended with its final write undone (the database was away) writes it now, so the holder
    the new run finds is known gone and the new run's ids follow the old run's."""
    ended = UNRELEASED.get(conversation_id)
    if ended is not None:
        await ended.write_final()


def wire(event: ev.AgentEvent) -> dict[str, Any]:
    """An event as the client reads it (camelCase, no None fields), and as it is persisted:
    repaired (`db.text`), so no text in it can fail the UTF-8 wire or the log's jsonb."""
    data: dict[str, Any] = repaired(event.model_dump(mode="json", by_alias=True, exclude_none=True))
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
    # reply, that call's usage) commits with the final batch and the `done` batch before a
    # compaction at settle
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
        self._refreshed = time.monotonic()  # the lease, by this log (taken just before `bind`)
        self.stopping = False
        self.ending = False  # the run is past its body: a stop now changes nothing
        self._abandoned = False  # ended: no heartbeat may make its lease look alive again
        self._released = False  # the final batch and the lease's release are written
        self.on_stop: Callable[[], Any] | None = None  # cancels the run (`stream.channel`)

    @property
    def conversation_id(self) -> UUID | None:
        return self._binding.conversation_id if self._binding else None

    @property
    def run_id(self) -> UUID | None:
        """The run's id once it is bound (an AI SDK stream's message is named after it)."""
        return self._binding.run_id if self._binding else None

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
        self._refreshed = time.monotonic()
        LOCAL_RUNS[conversation_id] = self
        self._flusher = asyncio.create_task(self._flush_periodically())

    def subscribe(self) -> asyncio.Queue[Recorded | None]:
        queue: asyncio.Queue[Recorded | None] = asyncio.Queue()
        self._listeners.append(queue)
        return queue

    def record(self, event: ev.AgentEvent, *, notify: bool = True) -> Recorded:
        """`event` gets its id and its place in the next batch; the local listeners get it
        now, or with `notify=False` once `notify` is called (the run's ending, said only once
        its batch is persisted: `run.finish`)."""
        seq: int | None = None
        if self._binding is not None and not self._closed:
            seq = self._next_seq
            self._next_seq += 1
        recorded = Recorded(seq, wire(event))
        if seq is not None:
            self._pending.append(recorded)
        if notify:
            self.notify(recorded)
        return recorded

    def notify(self, recorded: Recorded | None) -> None:
        """To the local listeners; None: the run has ended (after its last event, which may be
        notified after `close`)."""
        for queue in self._listeners:
            queue.put_nowait(recorded)

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
        """The final batch, which releases the lease (the run is no longer live); idempotent,
        and not cut short by a cancelled scope: what the client saw must be what a reconnect
        replays.

        `persist=False`: the database is known to be gone (the run ended `service_unavailable`),
        so the write is not tried now — it would wait out the pool's bound again before the
        client gets its `done` — but in the background, until the database is back."""
        if self._closed:
            return
        self._closed = True
        with anyio.CancelScope(shield=True):
            if self._flusher is not None:
                self._flusher.cancel()
                if persist:
                    await asyncio.gather(self._flusher, return_exceptions=True)
            if self._binding is not None:
                self._abandoned = True
                LOCAL_RUNS.pop(self._binding.conversation_id, None)
                if not (persist and await self.write_final()):
                    self._retry_final_write(self._binding)

    async def write_final(self) -> bool:
        """The final batch and the lease's release in one transaction; True once written.
        A batch Postgres refuses (nothing should: every event is repaired) cannot keep the
        lease: it is dropped, logged, and the lease released alone."""
        b = self._binding
        assert b is not None
        async with self._lock:
            if self._released:
                return True
            try:
                await self._write(b, self._pending, final=True, in_run=True)
            except Exception as exc:
                if is_unavailable(exc):
                    return False
                log_event(
                    "agent.stream.final_batch_dropped",
                    level="error",
                    error=type(exc).__name__,
                    events=len(self._pending),
                )
                self._pending = []
                try:
                    await self._write(b, [], final=True, in_run=True)
                except Exception as again:
                    log_event(
                        "agent.stream.release_failed", level="error", error=type(again).__name__
                    )
                    return False
            self._pending = []
            self._released = True
        if UNRELEASED.get(b.conversation_id) is self:
            del UNRELEASED[b.conversation_id]
        return True

    def _retry_final_write(self, b: _Binding) -> None:
        UNRELEASED[b.conversation_id] = self
        task = asyncio.create_task(self._keep_trying(b))
        _RETRIES.add(task)
        task.add_done_callback(_RETRIES.discard)

    async def _keep_trying(self, b: _Binding) -> None:
        for wait in RELEASE_RETRY_SECONDS:
            await asyncio.sleep(wait)
            if await self.write_final():
                log_event("agent.stream.released_late", run_id=str(b.run_id))
                return
        # the lease expires by its rule; a later run here no longer waits for this one
        if UNRELEASED.get(b.conversation_id) is self:
            del UNRELEASED[b.conversation_id]

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
        self, b: _Binding, batch: list[Recorded], *, final: bool, in_run: bool = False
    ) -> bool:
        """One pipelined transaction, one round trip: the batch, and the lease kept (when the
        log last refreshed it `LEASE_REFRESH_SECONDS` ago, or with no batch to write) or, with
        the final batch, released; whether a stop was asked is read after the commit.
        `in_run`: in the run's own transaction, after what the run still owes (its last reply:
        so the final batch, retried until the database is back, still carries it)."""
        keep_alive = None
        # a flush that was under way when the run ended still writes its batch, but no
        # heartbeat: it must not make the ended run's lease look alive again
        heartbeat = not final and not self._abandoned
        if not (batch or final or heartbeat):
            return False
        sent = time.monotonic()
        refresh = heartbeat and (not batch or sent - self._refreshed >= LEASE_REFRESH_SECONDS)
        run_tx = b.run_transaction if in_run else None
        async with run_tx() if run_tx is not None else b.db.pipelined_tx(b.org_id) as conn:
            if batch:
                reads_stop = heartbeat and not refresh
                inserted = await conn.execute(
                    _INSERT_READING_STOP if reads_stop else _INSERT,
                    {
                        "org": b.org_id,
                        "conversation": b.conversation_id,
                        "run": b.run_id,
                        "first": batch[0].seq,
                        "last": batch[-1].seq,
                        "events": Jsonb([[r.seq, r.data] for r in batch]),
                        "final": final,
                    },
                )
                if reads_stop:
                    keep_alive = inserted  # (no row: the run lost its lease, as below)
            if final:
                # the last batch and the end of the run's lease commit together: a follower
                # that finds the conversation free has the run's `done`
                await conn.execute(RELEASE_SQL, (b.conversation_id, b.org_id, b.run_id))
            elif refresh:
                keep_alive = await conn.execute(
                    KEEP_ALIVE_SQL, (b.conversation_id, b.org_id, b.run_id)
                )
        if refresh:
            self._refreshed = sent
        if keep_alive is None:
            return False
        row = await keep_alive.fetchone()
        return bool(row and row["stop"])


# The runs whose log may mention a person: a batch that does, or a run whose text deltas,
# read in order as one text, do (a name or a number can be split between two deltas).
_RUNS_MENTIONING = """
SELECT run_id FROM ai_run_events WHERE organization_id = %(org)s AND {events}
UNION
SELECT run_id FROM (
  SELECT r.run_id, string_agg(e.item -> 1 ->> 'delta', '' ORDER BY (e.item ->> 0)::bigint) AS text
    FROM ai_run_events r, jsonb_array_elements(r.events) AS e(item)
   WHERE r.organization_id = %(org)s AND e.item -> 1 ->> 'type' = 'text_delta'
   GROUP BY r.run_id) streamed
 WHERE {text}
"""


async def erase_mentions(conn: Conn, org_id: UUID, mentions: Mentions) -> None:
    """Member erasure: the stream log (every event a run streamed, replayed by `GET …/stream`)
    keeps its batches and ids, each mention of the person `[erased]` — in each event, and in
    the run's text deltas read together (`Mentions.redacted_fragments`)."""
    events_found, params = mentions.preselect(sql.SQL("events::text"))
    text_found, _ = mentions.preselect(sql.SQL("text"))
    query = sql.SQL(_RUNS_MENTIONING).format(events=events_found, text=text_found)
    cur = await conn.execute(query, {**params, "org": org_id})
    runs = [r["run_id"] for r in await cur.fetchall()]
    if not runs:
        return
    cur = await conn.execute(
        "SELECT ctid, run_id, events FROM ai_run_events WHERE organization_id = %s"
        " AND run_id = ANY(%s) ORDER BY run_id, first_seq FOR UPDATE",
        (org_id, runs),
    )
    rows = await cur.fetchall()
    for run_id in runs:
        batches = [copy.deepcopy(r["events"]) for r in rows if r["run_id"] == run_id]
        _redact_run(batches, mentions)
        for row, batch in zip((r for r in rows if r["run_id"] == run_id), batches, strict=True):
            if batch != row["events"]:
                await conn.execute(
                    "UPDATE ai_run_events SET events = %s WHERE ctid = %s::tid",
                    (Jsonb(batch), str(row["ctid"])),
                )


def _redact_run(batches: list[list[list[Any]]], mentions: Mentions) -> None:
    """In place: every event of the run's batches, consecutive text deltas read as one."""
    group: list[dict[str, Any]] = []

    def flush() -> None:
        fragments = mentions.redacted_fragments([str(e.get("delta", "")) for e in group])
        for event, fragment in zip(group, fragments, strict=True):
            event["delta"] = fragment
        group.clear()

    for batch in batches:
        for pair in batch:
            event = pair[1]
            if isinstance(event, dict) and event.get("type") == "text_delta":
                group.append(event)
                continue
            flush()
            pair[1] = mentions.redacted(event)
    flush()
