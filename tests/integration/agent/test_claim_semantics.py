"""Claims as the best-tested job queues test theirs: claimers released together, a blocked
claimer behind an open transaction, the sweep's cutoffs, and an executor killed by the server
(`pg_terminate_backend`) before and after its claim committed."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import timedelta

import psycopg
import pytest

from spotter.agent.approvals.settle import sweep
from spotter.agent.executions import _CLAIM_SQL, CLAIM_TTL, claim_all
from spotter.db import Database
from tests.support.executions import pending_message, statuses
from tests.support.world import Org

K = 12


@pytest.fixture
async def pools(direct_app_url: str) -> AsyncIterator[list[Database]]:
    opened = [await Database.open(direct_app_url, max_size=1) for _ in range(K)]
    yield opened
    await asyncio.gather(*(p.close() for p in opened))


def _age(url: str, ids: list[uuid.UUID], by: timedelta) -> None:
    with psycopg.connect(url) as conn:
        conn.execute(
            "UPDATE ai_tool_executions SET claimed_at = clock_timestamp() - %s WHERE id = ANY(%s)",
            (by, ids),
        )


def _claim_in_open_tx(conn: psycopg.Connection, org: Org, ids: list[uuid.UUID]) -> int:
    """A claimer whose transaction is still open (the caller commits or rolls back)."""
    return conn.execute(_CLAIM_SQL, {"org": org.id, "ids": ids}).rowcount


async def _wait_until_blocked(url: str, waiting: int) -> None:
    """Until `waiting` backends wait on a lock (the claimers queued behind the holder)."""
    for _ in range(200):
        with psycopg.connect(url) as conn:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
            ).fetchone()
        if row is not None and row[0] >= waiting:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the claimers never queued on the lock")


async def test_k_claimers_released_together_on_one_id_yield_one_winner(
    db: Database, org: Org, clean_db: str, pools: list[Database]
) -> None:
    message = pending_message(clean_db, org, calls=1)
    with psycopg.connect(clean_db) as holder:
        # the row is locked: every claimer queues, and all are released at the same commit
        holder.execute(
            "SELECT 1 FROM ai_tool_executions WHERE id = ANY(%s) FOR UPDATE",
            (message.execution_ids,),
        )
        claims = [asyncio.create_task(claim_all(p, org.id, message.execution_ids)) for p in pools]
        await _wait_until_blocked(clean_db, K)
        holder.commit()
    results = await asyncio.gather(*claims)
    assert sum(r is not None for r in results) == 1
    assert statuses(clean_db, message.execution_ids) == ["running"]


@pytest.mark.parametrize("outcome", ["commit", "rollback"])
async def test_a_claimer_blocked_behind_an_open_claim(
    db: Database, org: Org, clean_db: str, outcome: str
) -> None:
    message = pending_message(clean_db, org, calls=2)
    with psycopg.connect(clean_db) as first:
        assert _claim_in_open_tx(first, org, message.execution_ids) == 2
        second = asyncio.create_task(claim_all(db, org.id, message.execution_ids))
        await _wait_until_blocked(clean_db, 1)
        assert not second.done()
        first.commit() if outcome == "commit" else first.rollback()
    won = await asyncio.wait_for(second, timeout=10)
    if outcome == "commit":
        assert won is None, "A committed: B gets nothing"
    else:
        assert won is not None and len(won) == 2, "A rolled back: B wins"
    assert statuses(clean_db, message.execution_ids) == ["running", "running"]


@pytest.mark.parametrize(("age", "closed"), [(-2, False), (2, True)])
async def test_the_sweep_cutoff_is_two_minutes(
    db: Database, org: Org, clean_db: str, age: int, closed: bool
) -> None:
    message = pending_message(clean_db, org, calls=1)
    assert await claim_all(db, org.id, message.execution_ids) is not None
    _age(clean_db, message.execution_ids, CLAIM_TTL + timedelta(seconds=age))
    report = await sweep(db)
    assert report.messages_closed == (1 if closed else 0)
    assert statuses(clean_db, message.execution_ids) == ["failed" if closed else "running"]


async def test_one_sweep_closes_a_batch_larger_than_any_page(
    db: Database, org: Org, clean_db: str
) -> None:
    # the sweep closes with one UPDATE per org, no page: 101 stale claims close at once
    message = pending_message(clean_db, org, calls=101)
    assert await claim_all(db, org.id, message.execution_ids) is not None
    _age(clean_db, message.execution_ids, CLAIM_TTL + timedelta(seconds=1))
    assert (await sweep(db)).messages_closed == 1
    assert set(statuses(clean_db, message.execution_ids)) == {"failed"}
    assert (await sweep(db)).messages_closed == 0, "idempotent"


async def test_an_executor_terminated_before_its_claim_commits_leaves_the_call_claimable(
    db: Database, org: Org, clean_db: str
) -> None:
    message = pending_message(clean_db, org, calls=1)
    executor = psycopg.connect(clean_db)
    assert _claim_in_open_tx(executor, org, message.execution_ids) == 1
    pid = executor.info.backend_pid
    with psycopg.connect(clean_db, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
    with pytest.raises(psycopg.OperationalError):
        executor.commit()
    executor.close()
    assert statuses(clean_db, message.execution_ids) == ["pending"], "the claim rolled back"
    assert await claim_all(db, org.id, message.execution_ids) is not None


async def test_an_executor_terminated_after_its_claim_commits_is_closed_never_rerun(
    db: Database, org: Org, clean_db: str
) -> None:
    message = pending_message(clean_db, org, calls=1)
    executor = psycopg.connect(clean_db)
    assert _claim_in_open_tx(executor, org, message.execution_ids) == 1
    executor.commit()
    pid = executor.info.backend_pid
    with psycopg.connect(clean_db, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
    executor.close()
    assert await claim_all(db, org.id, message.execution_ids) is None, "still claimed"
    _age(clean_db, message.execution_ids, CLAIM_TTL + timedelta(seconds=1))
    assert (await sweep(db)).messages_closed == 1
    assert statuses(clean_db, message.execution_ids) == ["failed"]
    assert await claim_all(db, org.id, message.execution_ids) is None, "never re-run"
