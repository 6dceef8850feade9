"""The pool tests only connections idle long enough to have been dropped (a frozen Lambda)."""

from __future__ import annotations

import uuid

import pytest
from psycopg_pool import AsyncConnectionPool

from spotter.db import Database, pool


async def test_only_connections_idle_past_the_threshold_are_checked(
    app_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    checks = 0
    real_check = AsyncConnectionPool.check_connection

    async def counting_check(conn: pool.Conn) -> None:
        nonlocal checks
        checks += 1
        await real_check(conn)

    monkeypatch.setattr(AsyncConnectionPool, "check_connection", staticmethod(counting_check))
    db = await Database.open(app_url, max_size=1)
    try:
        for _ in range(3):  # back-to-back transactions of one request: no extra round trip
            async with db.org_tx(uuid.uuid4()):
                pass
        assert checks == 0
        monkeypatch.setattr(pool, "IDLE_BEFORE_CHECK_SECONDS", 0.0)
        async with db.org_tx(uuid.uuid4()):
            pass
        assert checks == 1
    finally:
        await db.close()
