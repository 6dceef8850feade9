"""Appending to a conversation's message log: the one place that allocates ordinals.

One statement: the conversation row's `next_ordinal` is incremented (which locks the row, so
concurrent writers take turns and each gets the next free ordinal), `updated_at` is touched, and
the message is inserted with the allocated ordinal. Rows are only ever appended, with one
exception a run makes to its own user turn before any loop call has read it: its
`<turn_context>` completed (`queue_complete_user_turn`: the ambient section found once the cheap
lanes declined, or a turn context backfilled on resume onto a turn written before they existed).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal
from uuid import UUID

from psycopg import AsyncCursor
from psycopg.types.json import Jsonb

from spotter.agent.cost.budget import UNDER_CAP_SQL, DailyCap
from spotter.db import Conn
from spotter.domain.mentions import ColumnType, Mentions, redact_columns
from spotter.errors import NotFoundError

# 'tool_result' and 'system_note' (a compaction summary) rows are user turns to the model
MessageRole = Literal["user", "assistant", "tool_result", "system_note"]

_APPEND_TEMPLATE = """
WITH slot AS (
  UPDATE ai_conversations SET next_ordinal = next_ordinal + 1, updated_at = now(){refresh}
   WHERE id = %(conversation)s AND organization_id = %(org)s{fence}{guard}
  RETURNING next_ordinal - 1 AS ordinal
)
INSERT INTO ai_messages (id, organization_id, conversation_id, run_id, ordinal, role, content,
                         page_context, model, stop_reason, usage)
SELECT %(id)s, %(org)s, %(conversation)s, %(run)s, slot.ordinal, %(role)s, %(content)s,
       %(page)s, %(model)s, %(stop)s, %(usage)s
  FROM slot
RETURNING id, ordinal
"""
_APPEND_SQL = _APPEND_TEMPLATE.format(refresh="", fence="", guard="")
# The same append fenced on the conversation's lease, which it also refreshes: the row is
# written only while `run` holds the conversation (a run presumed dead and replaced writes
# nothing more), and no row comes back when it does not.
_FENCE = " AND live_run_id = %(run)s"
_REFRESH = ", live_run_claimed_at = clock_timestamp()"
_FENCED_APPEND_SQL = _APPEND_TEMPLATE.format(refresh=_REFRESH, fence=_FENCE, guard="")
# A new user turn, queued with the lease's taking in one round trip: written only when the run
# holds the conversation, its last turn is not an assistant turn whose calls still need their
# results (those are appended first, `approvals.settle.answer_for_new_message`), and, with a
# cap, today's recorded spend is under it. No row: the caller finds out which, and the turn is
# written then (after the tail's results) or not at all (over the cap: the budget rule's own
# fragment, `cost.budget.UNDER_CAP_SQL`).
_TAIL_SETTLED = """
     AND NOT EXISTS (SELECT 1 FROM (SELECT role, content FROM ai_messages
                                     WHERE conversation_id = %(conversation)s
                                       AND organization_id = %(org)s
                                     ORDER BY ordinal DESC LIMIT 1) tail
                      WHERE tail.role = 'assistant' AND tail.content @> '[{"type": "tool_use"}]')"""
_USER_TURN_SQL = _APPEND_TEMPLATE.format(refresh=_REFRESH, fence=_FENCE, guard=_TAIL_SETTLED)
_CAPPED_USER_TURN_SQL = _APPEND_TEMPLATE.format(
    refresh=_REFRESH, fence=_FENCE, guard=f"{_TAIL_SETTLED}\n     AND {UNDER_CAP_SQL}"
)


@dataclass(frozen=True)
class UserTurnGuard:
    """What a new user turn's append checks besides the lease: today's cap (an unmetered tier
    has none)."""

    cap: DailyCap


@dataclass(frozen=True)
class Appended:
    id: UUID
    ordinal: int


async def append_message(
    conn: Conn,
    org_id: UUID,
    conversation_id: UUID,
    *,
    run_id: UUID,
    role: MessageRole,
    content: Sequence[dict[str, Any]],
    page_context: dict[str, Any] | None = None,
    model: str | None = None,
    stop_reason: str | None = None,
    usage: dict[str, Any] | None = None,
) -> Appended:
    cur = await queue_append(
        conn, org_id, conversation_id, uuid.uuid4(), run_id=run_id, role=role, content=content,
        page_context=page_context, model=model, stop_reason=stop_reason, usage=usage,
    )  # fmt: skip
    row = await cur.fetchone()
    if row is None:
        raise NotFoundError("No such conversation.")
    return Appended(row["id"], row["ordinal"])


async def queue_append(
    conn: Conn,
    org_id: UUID,
    conversation_id: UUID,
    message_id: UUID,
    *,
    run_id: UUID,
    role: MessageRole,
    content: Sequence[dict[str, Any]],
    page_context: dict[str, Any] | None = None,
    model: str | None = None,
    stop_reason: str | None = None,
    usage: dict[str, Any] | None = None,
    fenced: bool = False,
    guarded: UserTurnGuard | None = None,
) -> AsyncCursor[dict[str, Any]]:
    """The append statement, its result (`id, ordinal`, or no row) left on the cursor: in a
    pipelined transaction it is read after the commit, costing no round trip of its own.
    The id is the caller's, so a run knows it before anything comes back. `guarded`: a new
    user turn, fenced, written only when the tail is settled (and under the cap)."""
    if guarded is None:
        sql = _FENCED_APPEND_SQL if fenced else _APPEND_SQL
        guard: dict[str, Any] = {}
    else:
        sql = _CAPPED_USER_TURN_SQL if guarded.cap.metered else _USER_TURN_SQL
        guard = guarded.cap.params(org_id)
    return await conn.execute(
        sql,
        {
            **guard,
            "id": message_id,
            "conversation": conversation_id,
            "org": org_id,
            "run": run_id,
            "role": role,
            "content": Jsonb(list(content)),
            "page": Jsonb(page_context) if page_context is not None else None,
            "model": model,
            "stop": stop_reason,
            "usage": Jsonb(usage) if usage is not None else None,
        },
    )


_COMPLETE_USER_TURN_SQL = """
UPDATE ai_messages m SET content = %(content)s
  FROM ai_conversations c
 WHERE m.id = %(id)s AND m.organization_id = %(org)s AND m.conversation_id = %(conversation)s
   AND m.role = 'user'
   AND c.id = m.conversation_id AND c.organization_id = m.organization_id
   AND c.live_run_id = %(run)s
RETURNING m.id
"""


async def queue_complete_user_turn(
    conn: Conn,
    org_id: UUID,
    conversation_id: UUID,
    message_id: UUID,
    *,
    run_id: UUID,
    content: Sequence[dict[str, Any]],
) -> AsyncCursor[dict[str, Any]]:
    """A user turn's content replaced by the same words with its turn context completed, fenced
    on the conversation's lease like an append (no row: the run no longer holds it)."""
    return await conn.execute(
        _COMPLETE_USER_TURN_SQL,
        {
            "content": Jsonb(list(content)),
            "id": message_id,
            "org": org_id,
            "conversation": conversation_id,
            "run": run_id,
        },
    )


async def erase_mentions(conn: Conn, org_id: UUID, mentions: Mentions) -> None:
    """Member erasure: every stored turn keeps its shape (the history stays valid), each mention
    of the person `[erased]` — in what was said and in the page it was said on."""
    columns: dict[str, ColumnType] = {"content": "jsonb", "page_context": "jsonb"}
    await redact_columns(conn, org_id, "ai_messages", columns, mentions)
