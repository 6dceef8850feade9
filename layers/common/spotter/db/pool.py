"""The app's connection pool and the one way to open a transaction bound to an organization.

Nothing here outlives a transaction on the server: the pool logs in as the app's own role, whose
settings (statement_timeout) are role defaults, statements are never prepared server-side and the
organization is bound per transaction (`set_config(..., true)`). So a transaction-pooling proxy
(RDS Proxy, PgBouncer in transaction mode) may run each transaction on any backend without
pinning one per client, and no backend can be left acting as someone else.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager, suppress
from typing import Any, LiteralString
from uuid import UUID

from psycopg import AsyncConnection
from psycopg.pq import TransactionStatus
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

Row = dict[str, Any]
Conn = AsyncConnection[Row]

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
_returned_at: weakref.WeakKeyDictionary[Conn, float] = weakref.WeakKeyDictionary()


class UnsafeLogin(RuntimeError):
    """The pool's login could see past row-level security: the pool refuses to serve."""


# One round trip per new connection. A member of a role counts as that role: it can SET ROLE to
# it, and inherits its privileges (an owner's included).
_WHO_AM_I = """
SELECT current_user::text AS login,
       EXISTS (SELECT 1 FROM pg_roles r
                WHERE pg_has_role(current_user, r.oid, 'MEMBER')
                  AND (r.rolsuper OR r.rolbypassrls)) AS bypasses_rls,
       EXISTS (SELECT 1 FROM pg_class c
                WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
                  AND pg_has_role(current_user, c.relowner, 'MEMBER')) AS owns_tables
"""


async def check_login(conn: Conn) -> None:
    """Refuse a login row-level security does not bind: it must be the app role, which is no
    superuser, has no BYPASSRLS and owns no table (an owner can switch RLS off), nor is a member
    of a role that is or does."""
    cur = await conn.execute(_WHO_AM_I)
    row = await cur.fetchone()
    assert row is not None
    if row["login"] != APP_ROLE:
        raise UnsafeLogin(
            f"the app's database login is {row['login']!r}, not {APP_ROLE!r}: point"
            f" APP_DATABASE_URL at the {APP_ROLE} login (the owner's is for migrations only)"
        )
    if row["bypasses_rls"]:
        raise UnsafeLogin(
            f"{APP_ROLE} bypasses row-level security (a superuser or BYPASSRLS role, or a"
            " member of one): the app refuses to serve through it"
        )
    if row["owns_tables"]:
        raise UnsafeLogin(
            f"{APP_ROLE} owns tables (or is a member of their owner), and an owner can switch"
            " row-level security off: the app refuses to serve through it"
        )


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
        """A pool of `url`'s login, which must be the app role (`check_login`, on every
        connection the pool makes): a refused login raises `UnsafeLogin` here, at once. The
        first connection is waited for up to `open_seconds` (default twice `wait_seconds`);
        past that the pool is closed and `PoolTimeout` raised."""
        refused: asyncio.Future[UnsafeLogin] = asyncio.get_running_loop().create_future()

        async def configure(conn: Conn) -> None:
            try:
                await check_login(conn)
            except UnsafeLogin as exc:  # psycopg_pool logs it as it retries; open() raises it
                if not refused.done():
                    refused.set_result(exc)
                raise
            _returned_at[conn] = time.monotonic()

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
                # Server-side prepared statements are session state: a transaction-pooling
                # proxy would pin the connection (RDS Proxy) or run them on a backend that never
                # prepared them (PgBouncer). Unnamed statements are planned per execution.
                "prepare_threshold": None,
            },
            configure=configure,
            reset=_note_return,
            check=_check_if_idle,
            timeout=wait_seconds,
            # A refused reconnect is retried soon: the pool heals by itself when the server
            # is back (psycopg_pool's default backs off for up to a minute).
            reconnect_timeout=wait_seconds * 2,
        )
        await pool.open(wait=False)
        ready = asyncio.ensure_future(pool.wait(timeout=open_seconds or wait_seconds * 2))
        either: set[asyncio.Future[Any]] = {ready, refused}
        await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
        if refused.done():
            ready.cancel()
            with suppress(asyncio.CancelledError, Exception):
                await ready
            await pool.close()
            raise refused.result()
        refused.cancel()
        await ready  # raises PoolTimeout (the pool closed) when no connection was made
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

    async def one_statement(self, query: LiteralString, params: Sequence[Any]) -> list[Row]:
        """ONE statement in its own implicit transaction (no BEGIN, no COMMIT: one round trip):
        a SQL function that binds its organization itself (`spotter_stream_poll`), or a
        definer function that needs none (`spotter_resolve_caller`). Unbound, row-level
        security shows no org-owned row."""
        async with self._pool.connection() as conn:
            cur = await conn.execute(query, params)
            return await cur.fetchall()
