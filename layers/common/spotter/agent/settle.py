"""Settling a message: once every call of an assistant message has a final status, its results
go back to the model as ONE tool_result turn, in the message's tool order.

Also the abandoned-claim sweep: close stale running rows (never re-run them) and settle the
messages that thereby became complete, so the conversation replays validly afterwards.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from psycopg.types.json import Jsonb

from spotter.agent.claims import close_abandoned, orgs_with_abandoned_claims
from spotter.db import Conn, Database
from spotter.observability import log_event

FINAL_STATUSES = frozenset({"succeeded", "failed", "rejected_by_user"})


def tool_result_block(tool_use_id: str, status: str, output: Any, error: Any) -> dict[str, Any]:
    """The block the model reads for one finished call."""
    ok = status == "succeeded"
    payload = output if ok else (error or {"code": status, "message": f"The call {status}."})
    text = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_use_id, "content": text}
    if not ok:
        block["is_error"] = True
    return block


async def settle_message(conn: Conn, org_id: UUID, message_id: UUID) -> bool:
    """Append the merged tool_result turn if the message is complete and has none yet."""
    cur = await conn.execute(
        "SELECT e.tool_use_id, e.status, e.output, e.error, m.conversation_id, m.run_id"
        " FROM ai_tool_executions e JOIN ai_messages m"
        "   ON m.id = e.message_id AND m.organization_id = e.organization_id"
        " WHERE e.organization_id = %s AND e.message_id = %s ORDER BY e.position FOR UPDATE OF m",
        (org_id, message_id),
    )
    rows = await cur.fetchall()
    if not rows or any(r["status"] not in FINAL_STATUSES for r in rows):
        return False
    conversation_id, run_id = rows[0]["conversation_id"], rows[0]["run_id"]
    first_id = rows[0]["tool_use_id"]
    cur = await conn.execute(
        "SELECT 1 FROM ai_messages WHERE organization_id = %s AND conversation_id = %s"
        " AND role = 'tool_result' AND content @> %s",
        (org_id, conversation_id, Jsonb([{"tool_use_id": first_id}])),
    )
    if await cur.fetchone() is not None:
        return False
    blocks = [
        tool_result_block(r["tool_use_id"], r["status"], r["output"], r["error"]) for r in rows
    ]
    await conn.execute(
        "INSERT INTO ai_messages (organization_id, conversation_id, run_id, ordinal, role, content)"
        " SELECT %s, %s, %s, coalesce(max(ordinal), -1) + 1, 'tool_result', %s"
        " FROM ai_messages WHERE organization_id = %s AND conversation_id = %s",
        (org_id, conversation_id, run_id, Jsonb(blocks), org_id, conversation_id),
    )
    return True


async def close_and_settle(conn: Conn, org_id: UUID, *, message_id: UUID | None = None) -> int:
    """Close abandoned claims (of one message, or the org's) and settle what they completed."""
    closed = await close_abandoned(conn, org_id, message_id=message_id)
    for closed_message in closed:
        await settle_message(conn, org_id, closed_message)
    return len(closed)


@dataclass(frozen=True)
class SweepReport:
    orgs: int
    messages_closed: int


async def sweep(db: Database) -> SweepReport:
    """Idempotent, and safe beside itself and live resolutions: every close is a conditional
    update on a stale claim, every settle locks the message row first."""
    orgs = await orgs_with_abandoned_claims(db)
    closed = 0
    for org_id in orgs:
        async with db.org_tx(org_id) as conn:
            closed += await close_and_settle(conn, org_id)
    log_event("sweep.done", orgs=len(orgs), messages_closed=closed)
    return SweepReport(orgs=len(orgs), messages_closed=closed)
