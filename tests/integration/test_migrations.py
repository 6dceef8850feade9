"""Forward-only migrations: from an empty database, idempotent, and never edited once applied."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import psycopg
import pytest

from spotter.db.migrate import MIGRATIONS_DIR, MigrationError, available_migrations, migrate
from spotter.db.server import ensure_database


@pytest.fixture
def empty_url(pg_server_url: str) -> str:
    return ensure_database(pg_server_url, f"spotter_mig_{uuid.uuid4().hex[:10]}")


def test_migrations_apply_to_an_empty_database(empty_url: str) -> None:
    applied = asyncio.run(migrate(empty_url))
    assert applied == [m.version for m in available_migrations()]
    with psycopg.connect(empty_url) as conn:
        extensions = {r[0] for r in conn.execute("SELECT extname FROM pg_extension").fetchall()}
        tables = {
            r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname='public'")
        }
    assert {"vector", "pg_trgm"} <= extensions
    assert {
        "organizations", "users", "org_memberships", "ai_conversations", "ai_messages",
        "ai_tool_executions", "audit_logs", "ai_usage_daily", "schema_migrations",
    } <= tables  # fmt: skip


def test_rerunning_migrations_applies_nothing(empty_url: str) -> None:
    asyncio.run(migrate(empty_url))
    assert asyncio.run(migrate(empty_url)) == []


def test_concurrent_migrations_apply_each_file_once(empty_url: str) -> None:
    async def both() -> list[list[str]]:
        return list(await asyncio.gather(migrate(empty_url), migrate(empty_url)))

    first, second = asyncio.run(both())
    assert sorted(first + second) == sorted(m.version for m in available_migrations())


def test_an_edited_applied_migration_is_refused(empty_url: str, tmp_path: Path) -> None:
    for source in MIGRATIONS_DIR.glob("*.sql"):
        (tmp_path / source.name).write_text(source.read_text())
    asyncio.run(migrate(empty_url, tmp_path))
    first = sorted(tmp_path.glob("*.sql"))[0]
    first.write_text(first.read_text() + "\n-- edited\n")
    with pytest.raises(MigrationError, match="changed after it was applied"):
        asyncio.run(migrate(empty_url, tmp_path))


def test_a_failing_migration_leaves_nothing_half_applied(empty_url: str, tmp_path: Path) -> None:
    (tmp_path / "0001_ok.sql").write_text("CREATE TABLE a (id int);")
    (tmp_path / "0002_bad.sql").write_text("CREATE TABLE b (id int); SELECT no_such_function();")
    with pytest.raises(psycopg.errors.UndefinedFunction):
        asyncio.run(migrate(empty_url, tmp_path))
    with psycopg.connect(empty_url) as conn:
        tables = {
            r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname='public'")
        }
        versions = [r[0] for r in conn.execute("SELECT version FROM schema_migrations")]
    assert "a" in tables and "b" not in tables
    assert versions == ["0001_ok"]
