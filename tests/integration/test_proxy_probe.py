"""Through a transaction-pooling proxy, tenancy holds on every backend (issue 22): two orgs'
pools run transactions of every shape at once while the proxy's few backends are closed and
reopened under them; every transaction acts as the app role and sees its own org's rows only,
and an unbound one sees none."""

from __future__ import annotations

import asyncio
from typing import Any

import psycopg

from spotter.db import Database
from tests.support.proxy import TEST_PROXY
from tests.support.world import Org

ROUNDS = 8
PAUSE_S = 0.5  # ROUNDS × PAUSE_S outlasts the proxy's server lifetime: backends recycle ...
# ... usually: the proxy closes an idle backend past its lifetime on its own timer, so on a loaded
# machine 4 s can pass with none closed. The probes go on (past ROUNDS) until one was, or this.
RECYCLE_DEADLINE_S = 10 * TEST_PROXY.server_lifetime_s
TASKS_PER_ORG = 3
_PROBE = (
    "SELECT current_user AS who, pg_backend_pid() AS backend,"
    " (SELECT count(*) FROM ai_conversations) AS conversations,"
    " (SELECT count(*) FROM ai_conversations WHERE organization_id <> %s) AS foreign_rows,"
    " (SELECT count(*) FROM org_memberships WHERE organization_id <> %s) AS foreign_members"
)


def _conversations(url: str, org: Org, count: int) -> None:
    with psycopg.connect(url) as conn:
        for _ in range(count):
            conn.execute(
                "INSERT INTO ai_conversations (organization_id, user_id) VALUES (%s, %s)",
                (org.id, org["owner"].user_id),
            )


def _recycled(seen: list[dict[str, Any]]) -> bool:
    return len({row["backend"] for row in seen}) > TEST_PROXY.server_pool


async def _probe_org(db: Database, org: Org, seen: list[dict[str, Any]]) -> None:
    deadline = asyncio.get_running_loop().time() + RECYCLE_DEADLINE_S
    round_ = 0
    while round_ < ROUNDS or (not _recycled(seen) and asyncio.get_running_loop().time() < deadline):
        shape = round_ % 3
        if shape == 0:
            async with db.org_tx(org.id) as conn:
                cur = await conn.execute(_PROBE, (org.id, org.id))
                row = await cur.fetchone()
        elif shape == 1:
            async with db.pipelined_tx(org.id) as conn:
                cur = await conn.execute(_PROBE, (org.id, org.id))
            row = await cur.fetchone()
        else:
            async with db.system_tx() as conn:
                cur = await conn.execute(_PROBE, (org.id, org.id))
                row = await cur.fetchone()
        assert row is not None
        seen.append({**row, "org": org.id, "bound": shape != 2})
        round_ += 1
        await asyncio.sleep(PAUSE_S)


async def test_every_transaction_acts_as_the_app_and_sees_only_its_org_while_backends_recycle(
    app_url: str, org: Org, other_org: Org, clean_db: str
) -> None:
    _conversations(clean_db, org, 3)
    _conversations(clean_db, other_org, 5)
    mine = {org.id: 3, other_org.id: 5}
    pools = {o.id: await Database.open(app_url, max_size=2) for o in (org, other_org)}
    seen: list[dict[str, Any]] = []
    try:
        await asyncio.gather(
            *(
                _probe_org(pools[o.id], o, seen)
                for o in (org, other_org)
                for _ in range(TASKS_PER_ORG)
            )
        )
    finally:
        await asyncio.gather(*(p.close() for p in pools.values()))
    assert len(seen) >= 2 * TASKS_PER_ORG * ROUNDS
    assert {row["who"] for row in seen} == {"spotter_app"}
    assert sum(row["foreign_rows"] + row["foreign_members"] for row in seen) == 0
    for row in seen:
        assert row["conversations"] == (mine[row["org"]] if row["bound"] else 0), row
    assert _recycled(seen), "the proxy's backends were recycled"


async def test_each_pool_connection_is_served_by_several_backends(app_url: str) -> None:
    """The proxy really multiplexes: one client connection's transactions move between
    backends (a pinned connection would see one)."""
    db = await Database.open(app_url, max_size=1)
    backends: set[int] = set()
    try:
        for _ in range(ROUNDS):
            async with db.system_tx() as conn:
                cur = await conn.execute("SELECT pg_backend_pid() AS pid")
                row = await cur.fetchone()
            assert row is not None
            backends.add(row["pid"])
            await asyncio.sleep(PAUSE_S)
    finally:
        await db.close()
    assert len(backends) > 1
