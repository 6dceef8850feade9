"""Reading a conversation's log from Postgres (rows are only ever appended while a run goes on):
the part of it a replay sends, never the whole log.

Every function takes the caller's org transaction and filters by organization explicitly (row-
level security checks it again).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from psycopg import AsyncCursor

from spotter.agent.transcript.message_log import MessageRole
from spotter.auth.caller import Caller
from spotter.db import Conn
from spotter.domain.mentions import Mentions, redact_columns
from spotter.errors import NotFoundError

Cursor = AsyncCursor[dict[str, Any]]


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


async def start_conversation(
    conn: Conn, caller: Caller, run_id: UUID, chat_id: str | None = None
) -> UUID:
    """A new conversation of the caller's, its lease already `run_id`'s, bound to an AI SDK
    `chat_id` when one names it (unique: a taken id fails the transaction). The id is ours, so
    nothing is read back (free in a pipelined transaction)."""
    conversation_id = uuid.uuid4()
    await conn.execute(
        "INSERT INTO ai_conversations"
        " (id, organization_id, user_id, live_run_id, live_run_claimed_at, chat_id)"
        " VALUES (%s, %s, %s, %s, clock_timestamp(), %s)",
        (conversation_id, caller.org_id, caller.user_id, run_id, chat_id),
    )
    return conversation_id


# The conversation row decides ownership; the messages ride along, but only those a replay can
# send: from the newest compaction summary on (`transcript.projection`). Older rows are never
# read again, so a turn's work does not grow with the conversation's length.
_HISTORY_SQL = """
SELECT c.id AS conversation_id, m.id, m.ordinal, m.role, m.content, m.model, m.run_id,
       m.page_context, m.usage, m.stop_reason
  FROM ai_conversations c
  LEFT JOIN LATERAL (
        SELECT n.ordinal, (n.page_context ->> 'summarizedThroughOrdinal')::bigint AS through
          FROM ai_messages n
         WHERE n.conversation_id = c.id AND n.organization_id = c.organization_id
           AND n.role = 'system_note'
         ORDER BY n.ordinal DESC LIMIT 1) note ON true
  LEFT JOIN ai_messages m
    ON m.conversation_id = c.id AND m.organization_id = c.organization_id
   AND (note.ordinal IS NULL OR m.ordinal = note.ordinal
        OR m.ordinal > coalesce(note.through, note.ordinal))
 WHERE c.id = %s AND c.organization_id = %s AND c.user_id = %s
 ORDER BY m.ordinal
"""


async def queue_history(conn: Conn, caller: Caller, conversation_id: UUID) -> Cursor:
    """The history statement; `read_history` reads it (after more statements were queued, in a
    pipelined transaction, they all share its round trip)."""
    return await conn.execute(_HISTORY_SQL, (conversation_id, caller.org_id, caller.user_id))


async def read_history(cur: Cursor) -> list[StoredMessage]:
    """The caller's conversation as a replay sees it, oldest first; `not_found` for a foreign
    or missing id."""
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


async def load_history(conn: Conn, caller: Caller, conversation_id: UUID) -> list[StoredMessage]:
    """`read_history` of `queue_history`: one round trip."""
    return await read_history(await queue_history(conn, caller, conversation_id))


async def erase_person(conn: Conn, org_id: UUID, user_id: UUID, mentions: Mentions) -> None:
    """Member erasure: the person's own conversations go whole (their messages, calls, events
    and usage with them); other conversations' titles lose each mention of them."""
    await conn.execute(
        "DELETE FROM ai_conversations WHERE organization_id = %s AND user_id = %s",
        (org_id, user_id),
    )
    await redact_columns(conn, org_id, "ai_conversations", {"title": "text"}, mentions)
