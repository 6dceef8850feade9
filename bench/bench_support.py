"""What both benchmarks share: a fresh enterprise-tier org (unmetered) with one owner."""

from __future__ import annotations

import uuid
from typing import Any

import psycopg


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
