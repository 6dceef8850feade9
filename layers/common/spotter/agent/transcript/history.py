"""The conversation log in Postgres: rows are only ever appended while a run goes on.

Every function takes the caller's org transaction and filters by organization explicitly (row-
level security checks it again).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from uuid import UUID

from psycopg.types.json import Jsonb

from spotter.auth.caller import Caller
from spotter.db import Conn
from spotter.errors import NotFoundError

MessageRole = str  # 'user' | 'assistant' | 'tool_result' | 'system_note'


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


@dataclass(frozen=True)
class ExecutionRow:
    """One `ai_tool_executions` row as the orchestrator stores it: settled, or `pending` (awaiting
    the user, or held behind a call that does) with no finish time."""

    message_id: UUID
    position: int
    tool_use_id: str
    router: str
    action: str
    input: Any
    status: str  # 'succeeded' | 'failed' | 'pending'
    output: Any = None
    error: dict[str, Any] | None = None
    confirm_policy: str = "never"
    kind: str = "normal"
    discarded: bool = False
    audit_log_id: UUID | None = None
    confirmation: dict[str, Any] | None = None  # the server-built card of a pending approval
    external_effects: bool = False


_EXECUTION_COLUMNS = (
    "organization_id, conversation_id, message_id, position, tool_use_id, router, action, input,"
    " output, error, status, confirm_policy, kind, discarded, audit_log_id, confirmation,"
    " external_effects, finished_at"
)


def _execution_values(caller: Caller, conversation_id: UUID, row: ExecutionRow) -> list[Any]:
    return [
        caller.org_id,
        conversation_id,
        row.message_id,
        row.position,
        row.tool_use_id,
        row.router,
        row.action,
        Jsonb(row.input),
        Jsonb(row.output) if row.output is not None else None,
        Jsonb(row.error) if row.error is not None else None,
        row.status,
        row.confirm_policy,
        row.kind,
        row.discarded,
        row.audit_log_id,
        Jsonb(row.confirmation) if row.confirmation is not None else None,
        row.external_effects,
        row.status != "pending",
    ]


async def insert_executions(
    conn: Conn, caller: Caller, conversation_id: UUID, rows: list[ExecutionRow]
) -> None:
    """Insert execution rows in one statement (settled ones finished now, pending ones not)."""
    if not rows:
        return
    one = "(" + ", ".join(["%s"] * 17) + ", CASE WHEN %s THEN now() END)"
    params = [v for row in rows for v in _execution_values(caller, conversation_id, row)]
    await conn.execute(
        f"INSERT INTO ai_tool_executions ({_EXECUTION_COLUMNS}) VALUES "
        + ", ".join([one] * len(rows)),
        params,
    )


async def settled_outcomes(
    conn: Conn, caller: Caller, conversation_id: UUID, tool_use_ids: list[str]
) -> dict[str, tuple[bool, Any]]:
    """What the execution rows say about these calls: (ok, output or error), if they ran."""
    cur = await conn.execute(
        "SELECT tool_use_id, status, output, error FROM ai_tool_executions"
        " WHERE organization_id = %s AND conversation_id = %s AND tool_use_id = ANY(%s)"
        " AND status IN ('succeeded', 'failed', 'rejected_by_user')",
        (caller.org_id, conversation_id, tool_use_ids),
    )
    return {
        r["tool_use_id"]: (
            r["status"] == "succeeded",
            r["output"] if r["status"] == "succeeded" else r["error"],
        )
        for r in await cur.fetchall()
    }
