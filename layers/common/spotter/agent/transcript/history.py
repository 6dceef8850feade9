"""Reading a conversation's log from Postgres (rows are only ever appended while a run goes on).

Every function takes the caller's org transaction and filters by organization explicitly (row-
level security checks it again).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from uuid import UUID

from spotter.agent.transcript.message_log import MessageRole
from spotter.auth.caller import Caller
from spotter.db import Conn
from spotter.errors import NotFoundError


@dataclass(frozen=True)
class StoredMessage:
    id: UUID
    ordinal: int
    role: MessageRole
    content: list[dict[str, Any]]
    model: str | None
    run_id: UUID
    page_context: dict[str, Any] | None = None
    usage: dict[str, Any] | None = None  # assistant turns: what the provider reported
    stop_reason: str | None = None

    def as_row(self) -> dict[str, Any]:
        """The mapping the projection and slimming functions read."""
        return {
            "id": self.id,
            "ordinal": self.ordinal,
            "role": self.role,
            "content": self.content,
            "model": self.model,
            "run_id": self.run_id,
            "page_context": self.page_context,
            "usage": self.usage,
            "stop_reason": self.stop_reason,
        }


async def start_conversation(conn: Conn, caller: Caller) -> UUID:
    cur = await conn.execute(
        "INSERT INTO ai_conversations (organization_id, user_id) VALUES (%s, %s) RETURNING id",
        (caller.org_id, caller.user_id),
    )
    row = await cur.fetchone()
    assert row is not None
    conversation_id: UUID = row["id"]
    return conversation_id


async def load_history(conn: Conn, caller: Caller, conversation_id: UUID) -> list[StoredMessage]:
    """The caller's conversation, oldest first; `not_found` for a foreign or missing id.

    One round trip: the conversation row decides ownership, its messages ride along.
    """
    cur = await conn.execute(
        "SELECT c.id AS conversation_id, m.id, m.ordinal, m.role, m.content, m.model, m.run_id,"
        " m.page_context, m.usage, m.stop_reason"
        " FROM ai_conversations c LEFT JOIN ai_messages m"
        " ON m.conversation_id = c.id AND m.organization_id = c.organization_id"
        " WHERE c.id = %s AND c.organization_id = %s AND c.user_id = %s ORDER BY m.ordinal",
        (conversation_id, caller.org_id, caller.user_id),
    )
    rows = await cur.fetchall()
    if not rows:
        raise NotFoundError("No such conversation.")
    return [
        StoredMessage(
            r["id"],
            r["ordinal"],
            r["role"],
            r["content"],
            r["model"],
            r["run_id"],
            r["page_context"],
            r["usage"],
            r["stop_reason"],
        )
        for r in rows
        if r["id"] is not None
    ]
