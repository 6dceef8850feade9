"""The app's connection pool and the one way to open a transaction bound to an organization."""

from __future__ import annotations

import time
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from uuid import UUID

from psycopg import AsyncConnection
from psycopg.pq import TransactionStatus
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

Conn = AsyncConnection[dict[str, Any]]

APP_ROLE = "spotter_app"


# Lambda freezes the process between events, long enough for a proxy or server to drop idle
# connections, so a connection idle longer than this is tested before it is handed out. One
# used moments ago (the next transaction of the same request) is not: that would add a round
# trip to every transaction of a turn.
IDLE_BEFORE_CHECK_SECONDS = 5.0
# Every wait on the database is bounded, so an outage answers 503 within seconds instead of
# hanging a request (or a stream) for the pool's default 30 s per attempt.
CONNECT_TIMEOUT_SECONDS = 3
POOL_WAIT_SECONDS = 5.0
STATEMENT_TIMEOUT = "15s"
_returned_at: weakref.WeakKeyDictionary[Conn, float] = weakref.WeakKeyDictionary()


async def _configure(conn: Conn) -> None:
    # Row-level security binds only non-superusers, so every pooled connection acts as the
    # app role whatever the login user is (a no-op when it already is spotter_app).
    await conn.execute(f"SET ROLE {APP_ROLE}; SET statement_timeout = '{STATEMENT_TIMEOUT}'")
    _returned_at[conn] = time.monotonic()


async def _note_return(conn: Conn) -> None:
    _returned_at[conn] = time.monotonic()


async def _check_if_idle(conn: Conn) -> None:
    idle = time.monotonic() - _returned_at.get(conn, 0.0)
    if idle > IDLE_BEFORE_CHECK_SECONDS:
        await AsyncConnectionPool.check_connection(conn)


_BIND_ORG = "SELECT set_config('app.org_id', %s, true)"


async def _roll_back(conn: Conn) -> None:
    """End a pipelined transaction that did not commit (its body raised, or a statement
    failed). A connection in any other state is the pool's to check or discard."""
    status = conn.info.transaction_status
    if status in (TransactionStatus.INTRANS, TransactionStatus.INERROR):
        await conn.execute("ROLLBACK")


class Database:
    """Owns the pool. Reach rows only through `org_tx` (or `system_tx` for definer functions)."""

    def __init__(self, pool: AsyncConnectionPool[Conn]) -> None:
        self._pool = pool

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        max_size: int = 10,
        wait_seconds: float = POOL_WAIT_SECONDS,
        open_seconds: float | None = None,
    ) -> Database:
        """Open a pool, waiting for its first connection up to `open_seconds` (default twice
        `wait_seconds`); past that the pool is closed and `PoolTimeout` raised."""
        pool: AsyncConnectionPool[Conn] = AsyncConnectionPool(
            url,
            min_size=1,
            max_size=max_size,
            open=False,
            connection_class=AsyncConnection[dict[str, Any]],
            kwargs={
                "autocommit": True,
                "row_factory": dict_row,
                "connect_timeout": CONNECT_TIMEOUT_SECONDS,
            },
            configure=_configure,
            reset=_note_return,
            check=_check_if_idle,
            timeout=wait_seconds,
            # A refused reconnect is retried soon: the pool heals by itself when the server
            # is back (psycopg_pool's default backs off for up to a minute).
            reconnect_timeout=wait_seconds * 2,
        )
        await pool.open(wait=True, timeout=open_seconds or wait_seconds * 2)
        return cls(pool)

    async def close(self) -> None:
        await self._pool.close()

    @asynccontextmanager
    async def org_tx(self, org_id: UUID) -> AsyncIterator[Conn]:
        """One transaction in which row-level security shows only `org_id`'s rows."""
        async with self._pool.connection() as conn, conn.transaction():
            await conn.execute(_BIND_ORG, (str(org_id),))
            yield conn

    @asynccontextmanager
    async def pipelined_tx(self, org_id: UUID) -> AsyncIterator[Conn]:
        """`org_tx` in pipeline mode: BEGIN, the org binding and every statement are queued and
        sent together; a statement costs a round trip only when its result is fetched before
        the end, and COMMIT rides on the closing sync — a transaction of writes whose results
        are read after it is ONE round trip.

        For code that fetches what it executes: in a pipeline an error surfaces when a result
        is fetched (or at the end), not at `execute`, and `rowcount` is known only after a
        fetch. psycopg's own `transaction()` is not used: in a pipeline it syncs on entry and
        on exit, which is the round trips this exists to save."""
        async with self._pool.connection() as conn:
            committed = False
            try:
                async with conn.pipeline():
                    await conn.execute("BEGIN")
                    await conn.execute(_BIND_ORG, (str(org_id),))
                    yield conn
                    await conn.execute("COMMIT")
                committed = True
            finally:
                if not committed:
                    await _roll_back(conn)

    @asynccontextmanager
    async def system_tx(self) -> AsyncIterator[Conn]:
        """A transaction bound to no organization: org-owned tables read as empty in it."""
        async with self._pool.connection() as conn, conn.transaction():
            yield conn
