"""The run's event log under a close that races a periodic flush: no batch is lost."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import psycopg
import pytest

from spotter.agent import events as ev
from spotter.agent.stream import log as run_log
from spotter.agent.stream.log import RunLog
from spotter.db import Database
from tests.support.world import Org


def _conversation(url: str, org: Org, run_id: uuid.UUID) -> uuid.UUID:
    """A conversation whose lease `run_id` holds (a run's batches are written only then)."""
    cid = uuid.uuid4()
    with psycopg.connect(url) as conn:
        conn.execute(
            "INSERT INTO ai_conversations (id, organization_id, user_id, live_run_id,"
            " live_run_claimed_at) VALUES (%s, %s, %s, %s, now())",
            (cid, org.id, org["owner"].user_id, run_id),
        )
    return cid


def _stored_ids(url: str, cid: uuid.UUID) -> list[int]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT events FROM ai_run_events WHERE conversation_id = %s ORDER BY first_seq",
            (cid,),
        ).fetchall()
    return [seq for (events,) in rows for seq, _ in events]


async def test_a_close_during_a_periodic_flush_loses_no_event(
    db: Database, org: Org, clean_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run_log, "FLUSH_SECONDS", 0.01)
    write = RunLog._write
    writing = asyncio.Event()

    async def slow_write(self: RunLog, *args: Any, **kw: Any) -> bool:
        writing.set()
        await asyncio.sleep(0.2)  # the periodic flush is mid-write when the run ends
        return await write(self, *args, **kw)

    monkeypatch.setattr(RunLog, "_write", slow_write)
    run_id = uuid.uuid4()
    cid = _conversation(clean_db, org, run_id)
    log = RunLog()
    log.bind(db, org.id, cid, run_id, 0)
    for text in ("a", "b", "c"):
        log.record(ev.TextDelta(delta=text))
    await asyncio.wait_for(writing.wait(), 2)
    log.record(ev.TextDelta(delta="d"))
    log.record(ev.Done(conversation_id=str(cid)))
    await log.close()
    assert _stored_ids(clean_db, cid) == [1, 2, 3, 4, 5]


def _lease(url: str, cid: uuid.UUID) -> uuid.UUID | None:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT live_run_id FROM ai_conversations WHERE id = %s", (cid,))
        found = row.fetchone()
    assert found is not None
    lease: uuid.UUID | None = found[0]
    return lease


async def test_a_final_batch_postgres_refuses_never_keeps_the_lease(
    db: Database, org: Org, clean_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # before the one repair, a NUL in an event made every write of its batch fail
    monkeypatch.setattr(run_log, "repaired", lambda value: value)
    run_id = uuid.uuid4()
    cid = _conversation(clean_db, org, run_id)
    log = RunLog()
    log.bind(db, org.id, cid, run_id, 0)
    log.record(ev.TextDelta(delta="a\u0000b"))
    log.record(ev.Done(conversation_id=str(cid)))
    await log.close()
    assert _lease(clean_db, cid) is None, "released, the unwritable batch dropped"
    assert cid not in run_log.UNRELEASED


def _database_away(times: int) -> Callable[..., Awaitable[bool]]:
    """A `RunLog._write` failing as an outage does for its first `times` calls."""
    write, left = RunLog._write, [times]

    async def away(log: RunLog, *args: Any, **kw: Any) -> bool:
        if left[0] > 0:
            left[0] -= 1
            raise psycopg.OperationalError("server closed the connection unexpectedly")
        return await write(log, *args, **kw)

    return away


async def test_a_final_write_the_database_was_away_for_lands_when_it_is_back(
    db: Database, org: Org, clean_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(RunLog, "_write", _database_away(times=2))
    monkeypatch.setattr(run_log, "RELEASE_RETRY_SECONDS", (0.05, 0.05, 0.05))
    run_id = uuid.uuid4()
    cid = _conversation(clean_db, org, run_id)
    log = RunLog()
    log.bind(db, org.id, cid, run_id, 0)
    log.record(ev.TextDelta(delta="a"))
    log.record(ev.Done(conversation_id=str(cid)))
    await asyncio.wait_for(log.close(), 1)  # the client's stream ends at once
    assert _lease(clean_db, cid) == run_id and run_log.UNRELEASED[cid] is log
    for _ in range(100):
        if cid not in run_log.UNRELEASED:
            break
        await asyncio.sleep(0.02)
    assert _lease(clean_db, cid) is None, "released once the database answered"
    assert _stored_ids(clean_db, cid) == [1, 2], "with the run's events"


async def test_a_new_run_here_writes_an_ended_runs_final_batch_before_taking_the_lease(
    db: Database, org: Org, clean_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run_log, "RELEASE_RETRY_SECONDS", (3600.0,))  # no background try
    run_id = uuid.uuid4()
    cid = _conversation(clean_db, org, run_id)
    log = RunLog()
    log.bind(db, org.id, cid, run_id, 0)
    log.record(ev.Done(conversation_id=str(cid)))
    await log.close(persist=False)  # ended service_unavailable; the database is back now
    assert _lease(clean_db, cid) == run_id and run_log.UNRELEASED[cid] is log
    await run_log.release_ended(cid)
    assert _lease(clean_db, cid) is None and _stored_ids(clean_db, cid) == [1]


async def test_a_run_that_lost_its_lease_writes_no_events(
    db: Database, org: Org, clean_db: str
) -> None:
    run_id = uuid.uuid4()
    cid = _conversation(clean_db, org, run_id)
    log = RunLog()
    log.bind(db, org.id, cid, run_id, 0)
    with psycopg.connect(clean_db) as conn:  # another run took the conversation over
        conn.execute("UPDATE ai_conversations SET live_run_id = %s", (uuid.uuid4(),))
    log.record(ev.TextDelta(delta="late"))
    log.record(ev.Done(conversation_id=str(cid)))
    await log.close()
    assert _stored_ids(clean_db, cid) == [], "its ids are the new holder's to use"


def _claimed_at(url: str, cid: uuid.UUID) -> Any:
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT live_run_claimed_at FROM ai_conversations WHERE id = %s", (cid,)
        ).fetchone()
    assert row is not None
    return row[0]


async def test_a_batch_reads_a_stop_asked_elsewhere_without_refreshing_a_fresh_lease(
    db: Database, org: Org, clean_db: str
) -> None:
    run_id = uuid.uuid4()
    cid = _conversation(clean_db, org, run_id)
    stopped = asyncio.Event()
    log = RunLog()
    log.on_stop = stopped.set
    log.bind(db, org.id, cid, run_id, 0)
    claimed = _claimed_at(clean_db, cid)
    with psycopg.connect(clean_db) as conn:  # a stop asked through another instance
        conn.execute("UPDATE ai_conversations SET stop_requested_run_id = %s", (run_id,))
    log.record(ev.TextDelta(delta="streaming"))
    await log.flush()
    assert stopped.is_set(), "the batch's own statement read the stop"
    assert _stored_ids(clean_db, cid) == [1]
    assert _claimed_at(clean_db, cid) == claimed, "a lease refreshed moments ago is not rewritten"
    await log.close()


async def test_a_batch_refreshes_the_lease_once_the_logs_last_refresh_is_old(
    db: Database, org: Org, clean_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run_log, "LEASE_REFRESH_SECONDS", 0.0)
    run_id = uuid.uuid4()
    cid = _conversation(clean_db, org, run_id)
    log = RunLog()
    log.bind(db, org.id, cid, run_id, 0)
    claimed = _claimed_at(clean_db, cid)
    log.record(ev.TextDelta(delta="streaming"))
    await log.flush()
    assert _claimed_at(clean_db, cid) > claimed, "the two-minute lease is kept alive"
    assert _lease(clean_db, cid) == run_id
    await log.close()
