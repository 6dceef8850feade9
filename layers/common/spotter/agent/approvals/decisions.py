"""Validating confirm / confirm-batch / pick decisions: reads only, all before anything runs.

Order of checks, each over every decision: the call exists in this conversation → it is still
pending → it awaits this kind of decision (an approval, or for pick a picker; held siblings and
pickers are not approvable) → all belong to one assistant message. The first failing check is
the batch's error; nothing is claimed or run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal
from uuid import UUID

from spotter.agent.approvals.held import awaits_approval, awaits_pick
from spotter.agent.call_record import CallRef, ExecutionStatus
from spotter.agent.errors import (
    ConfirmBatchMixedMessages,
    InvalidPick,
    ToolAlreadyResolved,
    ToolExecutionNotFound,
    ToolNotAwaitingApproval,
)
from spotter.db import Conn

DecisionKind = Literal["confirm", "pick"]


@dataclass(frozen=True)
class PendingCall:
    execution_id: UUID
    message_id: UUID
    position: int
    tool_use_id: str
    router: str
    action: str
    input: dict[str, Any]
    status: ExecutionStatus
    confirm_policy: str
    kind: str

    @property
    def ref(self) -> CallRef:
        return CallRef(self.tool_use_id, self.router, self.action, self.input)

    @property
    def awaits_approval(self) -> bool:
        return awaits_approval(self.kind, self.confirm_policy)

    @property
    def awaits_pick(self) -> bool:
        return awaits_pick(self.kind)

    @property
    def held(self) -> bool:
        """Stored pending behind a suspending call; it needs no decision of its own."""
        return not (self.awaits_approval or self.awaits_pick)


_COLUMNS = (
    "id, message_id, position, tool_use_id, router, action, input, status, confirm_policy, kind"
)


def _call(row: dict[str, Any]) -> PendingCall:
    return PendingCall(
        execution_id=row["id"],
        message_id=row["message_id"],
        position=row["position"],
        tool_use_id=row["tool_use_id"],
        router=row["router"],
        action=row["action"],
        input=row["input"],
        status=row["status"],
        confirm_policy=row["confirm_policy"],
        kind=row["kind"],
    )


async def load_calls(
    conn: Conn, org_id: UUID, conversation_id: UUID, tool_use_ids: Sequence[str]
) -> dict[str, PendingCall]:
    cur = await conn.execute(
        f"SELECT {_COLUMNS} FROM ai_tool_executions"
        " WHERE organization_id = %s AND conversation_id = %s AND tool_use_id = ANY(%s)",
        (org_id, conversation_id, list(tool_use_ids)),
    )
    return {row["tool_use_id"]: _call(row) for row in await cur.fetchall()}


async def message_calls(conn: Conn, org_id: UUID, message_id: UUID) -> list[PendingCall]:
    """Every call of one assistant message, in the message's tool order."""
    cur = await conn.execute(
        f"SELECT {_COLUMNS} FROM ai_tool_executions"
        " WHERE organization_id = %s AND message_id = %s ORDER BY position",
        (org_id, message_id),
    )
    return [_call(row) for row in await cur.fetchall()]


def validate_decisions(
    calls: dict[str, PendingCall], tool_use_ids: Sequence[str], kind: DecisionKind
) -> list[PendingCall]:
    """The decided calls in the MESSAGE's order, or a `DecisionError` for the whole batch."""
    if any(tid not in calls for tid in tool_use_ids):
        raise ToolExecutionNotFound
    decided = [calls[tid] for tid in tool_use_ids]
    if any(call.status != "pending" for call in decided):
        raise ToolAlreadyResolved
    waiting = [c.awaits_pick if kind == "pick" else c.awaits_approval for c in decided]
    if not all(waiting):
        raise ToolNotAwaitingApproval(f"That call is not waiting for a {kind} decision.")
    if len({call.message_id for call in decided}) > 1:
        raise ConfirmBatchMixedMessages
    return sorted(decided, key=lambda call: call.position)


def validate_pick(call: PendingCall, picked_id: str) -> dict[str, str]:
    """The pick's stored output `{pickedId, pickedLabel, kind}`; `invalid_pick` if not offered."""
    args = call.input.get("args", {})
    for candidate in args.get("candidates", []):
        if str(candidate.get("id")) == picked_id:
            return {
                "pickedId": picked_id,
                "pickedLabel": str(candidate.get("label", "")),
                "kind": str(args.get("kind", "")),
            }
    raise InvalidPick
