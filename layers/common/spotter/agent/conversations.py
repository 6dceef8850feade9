"""Reading conversations for the dashboard: the list, and one conversation as a person sees it."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from spotter.agent.approvals import CLAIM_TTL, interrupted_error
from spotter.agent.transcript import visible_text
from spotter.db import Conn
from spotter.errors import NotFoundError

_LIST_LIMIT = 50


async def list_conversations(conn: Conn, org_id: UUID, user_id: UUID) -> list[dict[str, Any]]:
    cur = await conn.execute(
        "SELECT id, title, created_at, updated_at, compacting_since IS NOT NULL AS compacting"
        " FROM ai_conversations WHERE organization_id = %s AND user_id = %s"
        " ORDER BY updated_at DESC LIMIT %s",
        (org_id, user_id, _LIST_LIMIT),
    )
    return [
        {
            "id": str(row["id"]),
            "title": row["title"],
            "createdAt": row["created_at"].isoformat(),
            "updatedAt": row["updated_at"].isoformat(),
            "compacting": row["compacting"],
        }
        for row in await cur.fetchall()
    ]


async def get_conversation(
    conn: Conn, org_id: UUID, user_id: UUID, conversation_id: UUID
) -> dict[str, Any]:
    cur = await conn.execute(
        "SELECT id, title, created_at, updated_at, compacting_since IS NOT NULL AS compacting"
        " FROM ai_conversations WHERE id = %s AND organization_id = %s AND user_id = %s",
        (conversation_id, org_id, user_id),
    )
    conversation = await cur.fetchone()
    if conversation is None:
        raise NotFoundError("No such conversation.")
    cur = await conn.execute(
        "SELECT id, role, content, stop_reason, created_at FROM ai_messages"
        " WHERE conversation_id = %s AND organization_id = %s AND role IN ('user', 'assistant')"
        " ORDER BY ordinal",
        (conversation_id, org_id),
    )
    messages = [
        {
            "id": str(row["id"]),
            "role": row["role"],
            "text": visible_text(row["content"]),
            "stopReason": row["stop_reason"],
            "createdAt": row["created_at"].isoformat(),
        }
        for row in await cur.fetchall()
    ]
    cur = await conn.execute(
        # in the conversation's order: concurrent reads commit in any order, positions do not
        "SELECT e.message_id, e.tool_use_id, e.router, e.action, e.status, e.input, e.output,"
        " e.error, e.confirmation, e.confirm_policy, e.kind, e.discarded, e.external_effects,"
        " e.status = 'running' AND e.claimed_at < clock_timestamp() - %s AS abandoned,"
        " u.status = 'succeeded' AS undone"
        " FROM ai_tool_executions e JOIN ai_messages m"
        " ON m.id = e.message_id AND m.organization_id = e.organization_id"
        " LEFT JOIN ai_tool_undos u"
        " ON u.execution_id = e.id AND u.organization_id = e.organization_id"
        " WHERE e.conversation_id = %s AND e.organization_id = %s ORDER BY m.ordinal, e.position",
        (CLAIM_TTL, conversation_id, org_id),
    )
    tools = [_tool_execution(row) for row in await cur.fetchall()]
    return {
        "id": str(conversation["id"]),
        "title": conversation["title"],
        "createdAt": conversation["created_at"].isoformat(),
        "updatedAt": conversation["updated_at"].isoformat(),
        "compacting": conversation["compacting"],
        "messages": messages,
        "toolExecutions": tools,
    }


def _tool_execution(row: dict[str, Any]) -> dict[str, Any]:
    """One call as a person sees it: an abandoned claim is a failure, not a spinner; a call
    waiting for the user carries what its card needs."""
    status, error = row["status"], row["error"]
    if row["abandoned"]:
        # no live stream is behind it; the sweep will close it exactly like this
        status, error = "failed", interrupted_error(row["external_effects"])
    awaiting = status == "pending" and (
        row["kind"] == "user_picker" or row["confirm_policy"] != "never"
    )
    shown: dict[str, Any] = {
        "messageId": str(row["message_id"]),
        "toolUseId": row["tool_use_id"],
        "router": row["router"],
        "action": row["action"],
        "status": status,
        "output": row["output"],
        "error": error,
        "discarded": row["discarded"],
        "awaitingUser": awaiting,
        "undone": bool(row["undone"]),
    }
    if awaiting:
        shown["input"] = row["input"]
        shown["kind"] = row["kind"]
        if row["kind"] != "user_picker":
            shown["confirm"] = row["confirm_policy"]
            shown["confirmation"] = row["confirmation"]
    return shown
