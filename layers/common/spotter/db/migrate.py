"""Forward-only SQL migrations, applied in file-name order and recorded in `schema_migrations`.

A small runner rather than a library: see docs/architecture.md ("Migrations").
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from psycopg import AsyncConnection, sql

from spotter.db.pool import APP_ROLE

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
# Any constant works; it only has to be the same for every process that migrates.
_ADVISORY_LOCK_KEY = 0x5707_7E12


class MigrationError(RuntimeError):
    pass


@dataclass(frozen=True)
class Migration:
    version: str
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()


def available_migrations(directory: Path = MIGRATIONS_DIR) -> list[Migration]:
    return [Migration(p.stem, p.read_text()) for p in sorted(directory.glob("*.sql"))]


async def migrate(
    url: str, directory: Path = MIGRATIONS_DIR, *, app_password: str | None = None
) -> list[str]:
    """Apply every pending migration, each in its own transaction. Returns the versions applied.

    Safe to run concurrently (an advisory lock serializes deploys) and to re-run (applied files
    are skipped). An applied file whose text changed is an error: migrations only move forward.
    `app_password`: the app role's login password, set after the migrations on every run (it
    is the environment's, from its secret: no migration file may hold it).
    """
    applied_now: list[str] = []
    async with await AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute("SELECT pg_advisory_lock(%s)", (_ADVISORY_LOCK_KEY,))
        try:
            await conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                " version text PRIMARY KEY, checksum text NOT NULL,"
                " applied_at timestamptz NOT NULL DEFAULT now())"
            )
            cur = await conn.execute("SELECT version, checksum FROM schema_migrations")
            done = {row[0]: row[1] for row in await cur.fetchall()}
            for migration in available_migrations(directory):
                if migration.version in done:
                    if done[migration.version] != migration.checksum:
                        raise MigrationError(
                            f"migration {migration.version} changed after it was applied; "
                            "add a new migration instead of editing an old one"
                        )
                    continue
                async with conn.transaction():
                    await conn.execute(migration.sql.encode())
                    await conn.execute(
                        "INSERT INTO schema_migrations (version, checksum) VALUES (%s, %s)",
                        (migration.version, migration.checksum),
                    )
                applied_now.append(migration.version)
            if app_password is not None:
                await set_app_password(conn, app_password)
        finally:
            await conn.execute("SELECT pg_advisory_unlock(%s)", (_ADVISORY_LOCK_KEY,))
    return applied_now


async def set_app_password(conn: AsyncConnection[Any], password: str) -> None:
    """The app role's password, sent as a SCRAM verifier computed here (libpq's
    PQencryptPasswordConn): the plain password never reaches the server, nor its logs."""
    if not password:
        raise MigrationError("the app role's password is empty")
    verifier = conn.pgconn.encrypt_password(
        password.encode(), APP_ROLE.encode(), b"scram-sha-256"
    ).decode()
    await conn.execute(
        sql.SQL("ALTER ROLE {} WITH LOGIN PASSWORD {}").format(
            sql.Identifier(APP_ROLE), sql.Literal(verifier)
        )
    )
