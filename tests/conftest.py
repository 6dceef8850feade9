"""Shared fixtures: a real Postgres per test worker, a clean schema per test, an app client.

Postgres is DATABASE_URL's server when set (tests create their own database on it, never
touching the dev one), else a throwaway embedded server under a temporary directory. The app
reaches it as production does: its own login (`spotter_app`) through a transaction-pooling proxy
(PgBouncer in transaction mode, a few backends that recycle every few seconds), so a transaction
that leans on session state fails here. The schema is migrated by an owner with Aurora's master
user's attributes (tests/support/owner.py); fixtures write through the server's superuser.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator

import httpx
import psycopg
import pytest

from spotter.config import Settings
from spotter.db import Database
from spotter.db.bouncer import PgBouncer, PgBouncerMissing
from spotter.db.pool import APP_ROLE
from spotter.db.server import (
    LOCAL_APP_PASSWORD,
    app_login_url,
    ensure_database,
    throwaway_server,
)
from spotter.http.app import create_app
from tests.support.history import stored_history_violations
from tests.support.owner import migrate_as_owner
from tests.support.proxy import TEST_PROXY
from tests.support.tokens import TEST_ISSUER, TEST_PARTY, TokenFactory
from tests.support.world import Org, create_org

TEST_SERVER_PREFIX = "spotter-test-pg-"


def _worker() -> str:
    return os.environ.get("PYTEST_XDIST_WORKER", "main")


@pytest.fixture(scope="session")
def pg_server_url() -> Iterator[str]:
    if url := os.environ.get("DATABASE_URL"):
        yield url
        return
    # stopped when the session ends (also after a failure or Ctrl-C: pytest tears session
    # fixtures down then), not left running once its directory is gone
    with throwaway_server(TEST_SERVER_PREFIX) as server:
        yield server.get_uri()


@pytest.fixture(scope="session")
def owner_url(pg_server_url: str) -> str:
    """A freshly created and migrated database for this worker, as the server's superuser:
    the fixtures' god view (row-level security does not bind it)."""
    url = ensure_database(pg_server_url, f"spotter_test_{_worker()}", recreate=True)
    migrate_as_owner(url)
    return url


@pytest.fixture(scope="session")
def proxy(pg_server_url: str) -> Iterator[PgBouncer]:
    try:
        bouncer = PgBouncer(pg_server_url, {APP_ROLE: LOCAL_APP_PASSWORD}, TEST_PROXY).start()
    except PgBouncerMissing as exc:
        pytest.fail(str(exc), pytrace=False)
    yield bouncer
    bouncer.stop()


@pytest.fixture(scope="session")
def app_url(owner_url: str, proxy: PgBouncer) -> str:
    """The app's login through the proxy: what every pool of the tests uses."""
    return proxy.url(app_login_url(owner_url))


@pytest.fixture(scope="session")
def direct_app_url(owner_url: str) -> str:
    """The app's login straight to Postgres, for the few tests that need N backends inside
    Postgres at once (the proxy would queue all but its 4 in front of it)."""
    return app_login_url(owner_url)


def _app_tables(owner_url: str) -> list[str]:
    with psycopg.connect(owner_url) as conn:
        rows = conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
            " AND tablename <> 'schema_migrations'"
        ).fetchall()
    return [r[0] for r in rows]


@pytest.fixture
def clean_db(owner_url: str, request: pytest.FixtureRequest) -> Iterator[str]:
    """Every test starts from empty tables (the schema stays), and ends with every stored
    conversation valid (tests/support/history.py) unless it is marked `damaged_history` (it
    stores broken history on purpose, to test the repair)."""
    tables = _app_tables(owner_url)
    with psycopg.connect(owner_url) as conn:
        conn.execute("TRUNCATE " + ", ".join(f'"{t}"' for t in tables) + " CASCADE")
    yield owner_url
    if request.node.get_closest_marker("damaged_history") is None:
        broken = stored_history_violations(owner_url)
        assert not broken, f"the history invariant does not hold: {broken}"


@pytest.fixture(scope="session")
async def database(app_url: str) -> AsyncIterator[Database]:
    db = await Database.open(app_url, max_size=8)
    yield db
    await db.close()


@pytest.fixture
async def db(database: Database, clean_db: str) -> Database:
    return database


@pytest.fixture(scope="session")
def tokens() -> TokenFactory:
    return TokenFactory()


@pytest.fixture(scope="session")
def settings(tokens: TokenFactory) -> Settings:
    return Settings(
        environment="test",
        clerk_jwt_key=tokens.public_pem,
        clerk_issuer=TEST_ISSUER,
        clerk_authorized_parties=TEST_PARTY,
    )


@pytest.fixture
async def client(settings: Settings, db: Database) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(settings, db=db)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://spotter.test") as c:
        yield c


@pytest.fixture
def org(clean_db: str) -> Org:
    return create_org(clean_db, name="Box A")


@pytest.fixture
def other_org(clean_db: str) -> Org:
    return create_org(clean_db, name="Box B")
