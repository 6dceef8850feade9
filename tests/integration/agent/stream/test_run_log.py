"""The run's event log under a close that races a periodic flush: no batch is lost."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import psycopg
import pytest

from spotter.agent import events as ev
from spotter.agent.stream import log as run_log
from spotter.agent.stream.log import RunLog
from spotter.db import Database
from tests.support.world import Org


def _conversation(url: str, org: Org) -> uuid.UUID:
    cid = uuid.uuid4()
    with psycopg.connect(url) as conn:
        conn.execute(
            "INSERT INTO ai_conversations (id, organization_id, user_id) VALUES (%s, %s, %s)",
            (cid, org.id, org["owner"].user_id),
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
    cid = _conversation(clean_db, org)
    log = RunLog()
    log.bind(db, org.id, cid, uuid.uuid4(), 0)
    for text in ("a", "b", "c"):
        log.record(ev.TextDelta(delta=text))
    await asyncio.wait_for(writing.wait(), 2)
    log.record(ev.TextDelta(delta="d"))
    log.record(ev.Done(conversation_id=str(cid)))
    await log.close()
    assert _stored_ids(clean_db, cid) == [1, 2, 3, 4, 5]
