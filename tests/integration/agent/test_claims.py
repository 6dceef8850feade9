"""Claim before execute: at most once across double taps, overlapping batches and crashes."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta

import psycopg
import pytest

from spotter.agent.executions import (
    NOT_APPLIED,
    OUTCOME_UNKNOWN,
    claim_all,
    close_abandoned,
    finish_claimed,
    orgs_with_abandoned_claims,
)
from spotter.db import Database
from spotter.tools.calls import ToolOutcome
from tests.support.executions import pending_message, statuses
from tests.support.world import Org


@pytest.fixture
async def separate_pools(app_url: str) -> AsyncIterator[list[Database]]:
    """Twenty independent clients, as twenty tabs or retries would be."""
    pools = [await Database.open(app_url, max_size=1) for _ in range(20)]
    yield pools
    await asyncio.gather(*(p.close() for p in pools))


async def test_a_storm_of_identical_claims_is_won_exactly_once(
    db: Database, org: Org, clean_db: str, separate_pools: list[Database]
) -> None:
    message = pending_message(clean_db, org, calls=1)
    results = await asyncio.gather(
        *(claim_all(p, org.id, message.execution_ids) for p in separate_pools)
    )
    winners = [r for r in results if r is not None]
    assert len(winners) == 1
    assert statuses(clean_db, message.execution_ids) == ["running"]


async def test_losing_any_claim_releases_the_ones_won(
    db: Database, org: Org, clean_db: str
) -> None:
    message = pending_message(clean_db, org, calls=3)
    a, b, c = message.execution_ids
    assert await claim_all(db, org.id, [b]) is not None
    assert await claim_all(db, org.id, [a, b, c]) is None
    assert statuses(clean_db, [a, b, c]) == ["pending", "running", "pending"]


async def test_overlapping_batches_never_claim_twice_and_never_deadlock(
    db: Database, org: Org, clean_db: str, separate_pools: list[Database]
) -> None:
    for _ in range(10):
        message = pending_message(clean_db, org, calls=3)
        a, b, c = message.execution_ids
        first, second = await asyncio.gather(
            claim_all(separate_pools[0], org.id, [a, b]),
            claim_all(separate_pools[1], org.id, [c, b]),
        )
        assert (first is None) != (second is None), "exactly one batch wins the shared call"
        won = [a, b] if first is not None else [b, c]
        lost = c if first is not None else a
        assert statuses(clean_db, [*won, lost]) == ["running", "running", "pending"]


async def test_claims_are_org_scoped(db: Database, org: Org, other_org: Org, clean_db: str) -> None:
    theirs = pending_message(clean_db, other_org, calls=1)
    assert await claim_all(db, org.id, theirs.execution_ids) is None
    assert statuses(clean_db, theirs.execution_ids) == ["pending"]


async def test_an_executor_finishing_after_its_row_was_closed_leaves_no_trace(
    db: Database, org: Org, clean_db: str
) -> None:
    message = pending_message(clean_db, org, calls=1)
    claims = await claim_all(db, org.id, message.execution_ids)
    assert claims is not None
    async with db.org_tx(org.id) as conn:
        assert await close_abandoned(conn, org.id, ttl=timedelta(0)) == [message.message_id]

    class Rollback(Exception):
        pass

    async def late_executor() -> None:
        async with db.org_tx(org.id) as conn:
            await conn.execute(
                "INSERT INTO programs (organization_id, name) VALUES (%s, 'late write')", (org.id,)
            )
            if not await finish_claimed(
                conn, org.id, claims[0], ToolOutcome.succeeded({"id": "x"})
            ):
                raise Rollback

    with pytest.raises(Rollback):
        await late_executor()
    with psycopg.connect(clean_db) as conn:
        assert conn.execute("SELECT count(*) FROM programs").fetchone() == (0,)
        row = conn.execute("SELECT status, error->>'code' FROM ai_tool_executions").fetchone()
    assert row == ("failed", NOT_APPLIED)


async def test_a_held_claim_finishes_normally(db: Database, org: Org, clean_db: str) -> None:
    message = pending_message(clean_db, org, calls=1)
    claims = await claim_all(db, org.id, message.execution_ids)
    assert claims is not None
    async with db.org_tx(org.id) as conn:
        assert await finish_claimed(conn, org.id, claims[0], ToolOutcome.succeeded({"ok": True}))
    assert statuses(clean_db, message.execution_ids) == ["succeeded"]


async def test_abandoned_claims_close_by_kind_of_effect(
    db: Database, org: Org, clean_db: str
) -> None:
    local = pending_message(clean_db, org, calls=1)
    outside = pending_message(clean_db, org, calls=1, external=True)
    for message in (local, outside):
        assert await claim_all(db, org.id, message.execution_ids) is not None
    async with db.org_tx(org.id) as conn:
        assert await close_abandoned(conn, org.id) == []  # claims are fresh
        closed = await close_abandoned(conn, org.id, ttl=timedelta(0))
    assert set(closed) == {local.message_id, outside.message_id}
    with psycopg.connect(clean_db) as conn:
        codes = dict(
            conn.execute("SELECT message_id, error->>'code' FROM ai_tool_executions").fetchall()
        )
    assert codes == {local.message_id: NOT_APPLIED, outside.message_id: OUTCOME_UNKNOWN}


async def test_the_sweep_can_find_every_org_with_abandoned_claims(
    db: Database, org: Org, other_org: Org, clean_db: str
) -> None:
    for owner in (org, other_org):
        message = pending_message(clean_db, owner, calls=1)
        assert await claim_all(db, owner.id, message.execution_ids) is not None
    assert await orgs_with_abandoned_claims(db) == []
    assert set(await orgs_with_abandoned_claims(db, ttl=timedelta(0))) == {org.id, other_org.id}
