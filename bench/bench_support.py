"""What the benchmarks share: their Postgres server, and a fresh enterprise-tier org (unmetered)
with one owner."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg

from spotter.db.server import throwaway_server

BENCH_SERVER_PREFIX = "spotter-bench-pg-"


@contextmanager
def bench_server() -> Iterator[str]:
    """DATABASE_URL's server as it is when set; else an embedded server of the run's own
    (`throwaway_server`), stopped and deleted when the block ends — after a failure or Ctrl-C
    too — so a benchmark leaves no Postgres running (`pgrep -f spotter-bench-pg-`)."""
    if url := os.environ.get("DATABASE_URL"):
        yield url
        return
    with throwaway_server(BENCH_SERVER_PREFIX) as server:
        yield str(server.get_uri())


def seed_owner(conn: psycopg.Connection[Any]) -> tuple[Any, str, str]:
    """Returns (org id, Clerk org id, Clerk user id) of a new 'Bench Box' and its owner."""
    suffix = uuid.uuid4().hex[:8]
    org_id = conn.execute(
        "INSERT INTO organizations (clerk_org_id, name, timezone, platform_tier)"
        " VALUES (%s, 'Bench Box', 'Asia/Jerusalem', 'enterprise') RETURNING id",
        (f"org_{suffix}",),
    ).fetchone()[0]  # type: ignore[index]
    user_id = conn.execute(
        "INSERT INTO users (clerk_user_id, full_name) VALUES (%s, 'Bench Owner') RETURNING id",
        (f"user_{suffix}",),
    ).fetchone()[0]  # type: ignore[index]
    conn.execute(
        "INSERT INTO org_memberships (organization_id, user_id, role) VALUES (%s, %s, 'owner')",
        (org_id, user_id),
    )
    return org_id, f"org_{suffix}", f"user_{suffix}"
