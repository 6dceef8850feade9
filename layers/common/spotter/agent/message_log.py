"""Appending to a conversation's message log: the one place that allocates ordinals.

Every append locks the conversation row first, so concurrent writers (a live run, a resolution,
the sweep, compaction) take turns and the next ordinal is always free.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from psycopg.types.json import Jsonb

from spotter.db import Conn


async def append_message(
    conn: Conn,
    org_id: UUID,
    conversation_id: UUID,
    *,
    run_id: UUID,
    role: str,
    content: Sequence[dict[str, Any]],
    page_context: dict[str, Any] | None = None,
    model: str | None = None,
    stop_reason: str | None = None,
    usage: dict[str, Any] | None = None,
) -> UUID:
    await conn.execute(
        "SELECT 1 FROM ai_conversations WHERE id = %s AND organization_id = %s FOR NO KEY UPDATE",
        (conversation_id, org_id),
    )
    cur = await conn.execute(
        "INSERT INTO ai_messages (organization_id, conversation_id, run_id, ordinal, role, content,"
        " page_context, model, stop_reason, usage)"
        " SELECT %s, %s, %s, coalesce(max(ordinal), -1) + 1, %s, %s, %s, %s, %s, %s"
        " FROM ai_messages WHERE organization_id = %s AND conversation_id = %s"
        " RETURNING id",
        (
            org_id,
            conversation_id,
            run_id,
            role,
            Jsonb(list(content)),
            Jsonb(page_context) if page_context is not None else None,
            model,
            stop_reason,
            Jsonb(usage) if usage is not None else None,
            org_id,
            conversation_id,
        ),
    )
    row = await cur.fetchone()
    assert row is not None
    return UUID(str(row["id"]))
