"""Validating confirm / confirm-batch / pick decisions: reads only, all before anything runs.

Order of checks, each over every decision: the call exists in this conversation → it is still
pending → it awaits this kind of decision (an approval, or for pick a picker; held siblings and
pickers are not approvable) → all belong to one assistant message. The first failing check is
the batch's error; nothing is claimed or run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
    calls: dict[str, PendingCall],
    tool_use_ids: Sequence[str],
    kind: DecisionKind | Mapping[str, DecisionKind],
) -> list[PendingCall]:
    """The decided calls in the MESSAGE's order, or a `DecisionError` for the whole batch.
    `kind`: every decision's, or each one's by tool_use id (an AI SDK request may answer an
    approval and a picker of one message at once)."""
    kind_of = kind if isinstance(kind, Mapping) else dict.fromkeys(tool_use_ids, kind)
    if any(tid not in calls for tid in tool_use_ids):
        raise ToolExecutionNotFound
    decided = [calls[tid] for tid in tool_use_ids]
    if any(call.status != "pending" for call in decided):
        raise ToolAlreadyResolved
    for call in decided:
        wanted = kind_of[call.tool_use_id]
        if not (call.awaits_pick if wanted == "pick" else call.awaits_approval):
            raise ToolNotAwaitingApproval(f"That call is not waiting for a {wanted} decision.")
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
