"""Reading conversations for the dashboard: the list, one conversation as a person sees it, and
one in full for a client that rebuilds it (`conversation_log`: the AI SDK history)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal
from uuid import UUID

from spotter.agent.approvals import call_fingerprint
from spotter.agent.chats import live_now
from spotter.agent.executions import conversation_calls, interrupted_error
from spotter.agent.transcript import strip_turn_context, visible_text
from spotter.db import Conn
from spotter.db.scope import OrgScope
from spotter.domain.form_compliance import withhold_health_answers
from spotter.domain.outbox import statuses_for_conversation, with_delivery
from spotter.errors import NotFoundError
from spotter.tools.asking import awaits_pick, needs_user
from spotter.tools.catalog import load_catalog
from spotter.tools.summaries import Voice, describe_call, present_card

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


async def _own(
    conn: Conn, org_id: UUID, user_id: UUID, conversation_id: UUID, columns: str
) -> dict[str, Any]:
    """The caller's conversation row (`columns` of it); a foreign or missing one is not_found."""
    cur = await conn.execute(
        f"SELECT {columns} FROM ai_conversations"
        " WHERE id = %s AND organization_id = %s AND user_id = %s",
        (conversation_id, org_id, user_id),
    )
    conversation = await cur.fetchone()
    if conversation is None:
        raise NotFoundError("No such conversation.")
    return conversation


async def _turns(conn: Conn, org_id: UUID, conversation_id: UUID, columns: str) -> list[Any]:
    """The user and assistant turns (`columns` of them), oldest first."""
    cur = await conn.execute(
        f"SELECT {columns} FROM ai_messages"
        " WHERE conversation_id = %s AND organization_id = %s AND role IN ('user', 'assistant')"
        " ORDER BY ordinal",
        (conversation_id, org_id),
    )
    return list(await cur.fetchall())


async def get_conversation(
    conn: Conn, org_id: UUID, user_id: UUID, conversation_id: UUID, *, voice: Voice | None = None
) -> dict[str, Any]:
    """The conversation as its reader sees it; with a `voice`, each call also carries the words
    its card shows (`tools.summaries`: title, summary, a labelled card) in the reader's language,
    exactly as the live stream gave them."""
    conversation = await _own(
        conn, org_id, user_id, conversation_id,
        "id, title, created_at, updated_at, compacting_since IS NOT NULL AS compacting",
    )  # fmt: skip
    # the run still holding the lease, from its first event (`GET …/stream?after=<after>`): a
    # reader shows everything before that run from this read and the run from the stream
    live = await live_now(conn, org_id, user_id, conversation_id)
    rows = await _turns(
        conn, org_id, conversation_id, "id, run_id, role, content, stop_reason, created_at"
    )
    messages = [
        {
            "id": str(row["id"]),
            "runId": str(row["run_id"]),
            "role": row["role"],
            "text": visible_text(row["content"]),
            "stopReason": row["stop_reason"],
            "createdAt": row["created_at"].isoformat(),
        }
        for row in rows
    ]
    tools = [
        _tool_execution(row, voice)
        for row in await conversation_calls(conn, org_id, conversation_id)
    ]
    # outbound calls: each message's delivery status (queued, delivered, failed, outcome_unknown)
    deliveries = await statuses_for_conversation(OrgScope(conn, org_id), conversation_id)
    for tool in tools:
        if tool["toolUseId"] in deliveries:
            tool["delivery"] = deliveries[tool["toolUseId"]]
            # the output as the rows say now, never as it was before delivery (`settle`)
            tool["output"] = with_delivery(tool["output"], tool["delivery"])
    return {
        "id": str(conversation["id"]),
        "title": conversation["title"],
        "createdAt": conversation["created_at"].isoformat(),
        "updatedAt": conversation["updated_at"].isoformat(),
        "compacting": conversation["compacting"],
        "messages": messages,
        "toolExecutions": tools,
        "liveRun": {"runId": str(live.run_id), "after": live.after} if live else None,
    }


def _tool_execution(row: dict[str, Any], voice: Voice | None) -> dict[str, Any]:
    """One call as a person sees it: an abandoned claim is a failure, not a spinner; a call
    waiting for the user carries what its card needs; a write that can still be undone says so,
    as its live `tool_completed` did (`inverseAvailable`), with the execution id undo names."""
    status, error = row["status"], row["error"]
    if row["abandoned"]:
        # no live stream is behind it; the sweep will close it exactly like this
        status, error = "failed", interrupted_error(row["external_effects"]).as_json()
    awaiting = status == "pending" and needs_user(row["kind"], row["confirm_policy"])
    spec = load_catalog().specs.get(f"{row['router']}.{row['action']}")
    undone = bool(row["undone"])
    shown: dict[str, Any] = {
        "executionId": str(row["id"]),
        "messageId": str(row["message_id"]),
        "toolUseId": row["tool_use_id"],
        "router": row["router"],
        "action": row["action"],
        "status": status,
        # what the reader's role may read of it (health answers: managers only)
        "output": withhold_health_answers(row["output"], voice.role if voice else None),
        "error": error,
        "discarded": row["discarded"],
        "awaitingUser": awaiting,
        "undone": undone,
        "inverseAvailable": (
            status == "succeeded" and not undone and spec is not None and spec.inverse is not None
        ),
    }
    if awaiting:
        shown["input"] = row["input"]
        shown["kind"] = row["kind"]
        if not awaits_pick(row["kind"]):
            shown["confirm"] = row["confirm_policy"]
            shown["confirmation"] = row["confirmation"]
            shown["fingerprint"] = call_fingerprint(row["router"], row["action"], row["input"])
    if voice is not None:
        shown |= describe_call(
            row["router"],
            row["action"],
            voice=voice,
            finished=status not in ("pending", "running"),
            ok=status == "succeeded",
            output=shown["output"],
            error=error,
        )
        if awaiting and not awaits_pick(row["kind"]):
            shown["confirmation"] = present_card(row["confirmation"], voice)
    return shown


@dataclass(frozen=True)
class LoggedMessage:
    """One stored user or assistant turn as a person reads it: a user turn's visible text; an
    assistant turn's text blocks and tool calls in the order the model wrote them."""

    id: UUID
    role: Literal["user", "assistant"]
    run_id: UUID
    # {"type": "text", "text"} and {"type": "tool_use", "id", "name", "input"}
    blocks: list[dict[str, Any]]


@dataclass(frozen=True)
class ConversationLog:
    """A conversation read in full for a client that rebuilds it (the AI SDK history): every
    user and assistant turn, oldest first, and every call as the loader shows it, with its input
    and fingerprint, by tool_use id."""

    id: UUID
    chat_id: str | None
    messages: list[LoggedMessage]
    calls: dict[str, dict[str, Any]]


async def conversation_log(
    conn: Conn, org_id: UUID, user_id: UUID, conversation_id: UUID, *, voice: Voice
) -> ConversationLog:
    conversation = await _own(conn, org_id, user_id, conversation_id, "chat_id")
    messages = [
        LoggedMessage(row["id"], row["role"], row["run_id"], _readable(row["content"]))
        for row in await _turns(conn, org_id, conversation_id, "id, role, run_id, content")
    ]
    calls = {}
    for row in await conversation_calls(conn, org_id, conversation_id):
        shown = _tool_execution(row, voice)
        shown["input"] = row["input"]
        shown["kind"] = row["kind"]
        shown["confirm"] = row["confirm_policy"]
        shown["fingerprint"] = call_fingerprint(row["router"], row["action"], row["input"])
        calls[row["tool_use_id"]] = shown
    return ConversationLog(conversation_id, conversation["chat_id"], messages, calls)


def _readable(content: list[dict[str, Any]]) -> list[dict[str, Any]]:
    readable: list[dict[str, Any]] = []
    for block in strip_turn_context(content):
        if block.get("type") == "text" and block.get("text"):
            readable.append({"type": "text", "text": str(block["text"])})
        elif block.get("type") == "tool_use":
            readable.append(
                {"type": "tool_use", "id": block["id"], "name": block.get("name", "")}
                | {"input": block.get("input")}
            )
    return readable
