"""Validating confirm / confirm-batch / pick decisions: reads only, all before anything runs.

Order of checks, each over every decision: the call exists in this conversation → it is still
pending → it awaits this kind of decision (an approval, or for pick a picker; held siblings and
pickers are not approvable) → all belong to one assistant message. The first failing check is
the batch's error; nothing is claimed or run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from spotter.agent.errors import (
    ConfirmBatchMixedMessages,
    InvalidPick,
    ToolAlreadyResolved,
    ToolExecutionNotFound,
    ToolNotAwaitingApproval,
)
from spotter.agent.executions import PendingCall

DecisionKind = Literal["confirm", "pick"]


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
