"""`Database.pipelined_tx`: one org transaction whose statements travel together."""

from __future__ import annotations

import uuid

import psycopg
import pytest

from spotter.db import Conn, Database
from tests.support.hitl import add_program
from tests.support.world import Org


def _count_programs(url: str, org: Org) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT count(*) FROM programs WHERE organization_id = %s", (org.id,)
        ).fetchone()
    assert row is not None
    return int(row[0])


async def _insert_program(conn: Conn, org: Org, name: str) -> None:
    await conn.execute(
        "INSERT INTO programs (organization_id, name) VALUES (%s, %s)", (org.id, name)
    )


async def test_queued_statements_commit_together_and_their_results_read_after(
    db: Database, org: Org, clean_db: str
) -> None:
    async with db.pipelined_tx(org.id) as conn:
        await _insert_program(conn, org, "Strength")
        counted = await conn.execute(
            "SELECT count(*) AS n FROM programs WHERE organization_id = %s", (org.id,)
        )
    row = await counted.fetchone()
    assert row is not None and row["n"] == 1, "the later statement saw the earlier one"
    assert _count_programs(clean_db, org) == 1


async def test_a_body_that_raises_writes_nothing(db: Database, org: Org, clean_db: str) -> None:
    async def changes_its_mind() -> None:
        async with db.pipelined_tx(org.id) as conn:
            await _insert_program(conn, org, "Strength")
            raise RuntimeError("the caller changed its mind")

    with pytest.raises(RuntimeError):
        await changes_its_mind()
    assert _count_programs(clean_db, org) == 0


async def test_a_failing_statement_rolls_the_whole_transaction_back(
    db: Database, org: Org, clean_db: str
) -> None:
    async def fails_midway() -> None:
        async with db.pipelined_tx(org.id) as conn:
            await _insert_program(conn, org, "Strength")
            await conn.execute("SELECT 1 / 0")
            await _insert_program(conn, org, "Engine")

    with pytest.raises(psycopg.errors.DivisionByZero):
        await fails_midway()
    assert _count_programs(clean_db, org) == 0
    async with db.pipelined_tx(org.id) as conn:  # the pooled connection is usable again
        await _insert_program(conn, org, "Engine")
    assert _count_programs(clean_db, org) == 1


async def test_every_statement_sees_only_the_bound_org(
    db: Database, org: Org, other_org: Org, clean_db: str
) -> None:
    add_program(clean_db, other_org, "Theirs")
    async with db.pipelined_tx(org.id) as conn:
        first = await conn.execute("SELECT count(*) AS n FROM programs")
        second = await conn.execute("SELECT count(*) AS n FROM programs WHERE name = 'Theirs'")
    assert [await first.fetchone(), await second.fetchone()] == [{"n": 0}, {"n": 0}]
    async with db.pipelined_tx(uuid.UUID(str(other_org.id))) as conn:
        theirs = await conn.execute("SELECT count(*) AS n FROM programs")
    assert await theirs.fetchone() == {"n": 1}
