"""A conversation as the AI SDK's `UIMessage[]`, so `useChat({ messages })` starts from what the
server stored, not from what a tab remembers.

A user message per stored user turn (its text, without the turn context); after it ONE assistant
message for the turn (`agent.chats`: id = the run that answered it, the id its live and resumed
streams name), a step per stored assistant turn (the model's text, then its calls). Each call is
its tool part (`http.ui_stream` names it, and shapes its input and metadata: the call's words in
the reader's language, as the live stream gives them) in its final state:
run → `output-available` (with `executionId`, `inverseAvailable`, `undone`); rejected →
`output-denied` with the approval and its reason; failed, superseded, interrupted or discarded →
`output-error` with its code in `toolMetadata.errorCode`; still waiting for a person →
`approval-requested` (the card in the approval's descriptor) or, for a picker,
`input-available`; held or running → `input-available`.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from spotter.agent.conversations import ConversationLog
from spotter.agent.transcript import INTERRUPTED
from spotter.http.ui_stream import (
    REJECTED,
    approval_descriptor,
    titled,
    tool_input,
    tool_metadata,
)
from spotter.tools.spec import action_tool_name

# failures of calls nobody approved: no approval is shown on them
_NEVER_DECIDED = frozenset({"superseded", "skipped_after_rejection"})


def ui_messages(log: ConversationLog, live_turn: UUID | None = None) -> list[dict[str, Any]]:
    """Oldest first. An assistant message with no stored turn yet (a run that is still reading
    the model) is left out: the resumed stream adds it. `live_turn`: the turn a live run is
    writing, whose calls without a row yet are running, not interrupted."""
    messages: list[dict[str, Any]] = []
    turn: dict[str, Any] | None = None
    turn_run = None  # the run that answered the newest user message: its assistant message's id
    metadata = {"conversationId": str(log.id)}
    for message in log.messages:
        if message.role == "user":
            text = "\n\n".join(b["text"] for b in message.blocks if b["type"] == "text")
            messages.append(
                {"id": str(message.id), "role": "user", "parts": [{"type": "text", "text": text}]}
            )
            turn, turn_run = None, message.run_id
            continue
        if turn is None:
            turn_id = str(turn_run or message.run_id)
            turn = {"id": turn_id, "role": "assistant", "metadata": metadata, "parts": []}
            messages.append(turn)
        live = live_turn is not None and (turn_run or message.run_id) == live_turn
        turn["parts"].append({"type": "step-start"})
        for block in message.blocks:
            if block["type"] == "text":
                turn["parts"].append({"type": "text", "text": block["text"], "state": "done"})
            else:
                turn["parts"].append(_tool_part(block, log.calls.get(block["id"]), live=live))
    return messages


def _unsettled(block: dict[str, Any], *, live: bool) -> dict[str, Any]:
    """A call with no row yet: running in the live run, else its run ended before it settled."""
    router, raw = str(block["name"]), block["input"]
    action = raw.get("action") if isinstance(raw, dict) else None
    action = action if isinstance(action, str) else ""
    part: dict[str, Any] = {
        "type": f"tool-{action_tool_name(router, action)}",
        "toolCallId": block["id"],
        "input": tool_input(raw),
        "providerExecuted": True,
    }
    if live:
        return part | {"state": "input-available", "toolMetadata": tool_metadata(router, action)}
    meta = tool_metadata(router, action, errorCode=INTERRUPTED.code)
    return part | {"state": "output-error", "errorText": INTERRUPTED.message, "toolMetadata": meta}


def _tool_part(block: dict[str, Any], call: dict[str, Any] | None, *, live: bool) -> dict[str, Any]:
    if call is None:
        return _unsettled(block, live=live)
    call_id = block["id"]
    router, action, status = call["router"], call["action"], call["status"]
    client = call["kind"] == "user_picker"
    part: dict[str, Any] = {
        "type": f"tool-{action_tool_name(router, action)}",
        "toolCallId": call_id,
        "input": tool_input(call["input"]),
    }
    if not client:
        part["providerExecuted"] = True
    approval = call["confirm"] != "never" and not client
    fingerprint = call["fingerprint"]
    error = call["error"] or {}
    code = error.get("code")
    if status == "succeeded":
        part["state"] = "output-available"
        part["output"] = call["output"]
        part["toolMetadata"] = tool_metadata(
            router,
            action,
            call,
            executionId=call["executionId"],
            inverseAvailable=call["inverseAvailable"],
            undone=call["undone"] or None,
        )
        if approval:
            part["approval"] = {"id": fingerprint, "approved": True}
    elif code == REJECTED:
        part["state"] = "output-denied"
        part["approval"] = {"id": fingerprint, "approved": False}
        if error.get("reason"):
            part["approval"]["reason"] = error["reason"]
        # as the live stream leaves it: the SDK's `tool-output-denied` chunk carries no metadata,
        # so a denied part keeps the words it was asked with (its reason is on the approval)
        asked = {k: v for k, v in call.items() if k != "summary"}
        part["toolMetadata"] = tool_metadata(router, action, asked, executionId=call["executionId"])
    elif status in ("failed", "rejected_by_user"):
        part["state"] = "output-error"
        part["errorText"] = str(error.get("message") or code or "failed")
        part["toolMetadata"] = tool_metadata(
            router, action, call, executionId=call["executionId"], errorCode=code or "internal"
        )
        if approval and code not in _NEVER_DECIDED:
            part["approval"] = {"id": fingerprint, "approved": True}
    elif call["awaitingUser"] and approval:
        part["state"] = "approval-requested"
        descriptor = approval_descriptor(call["confirm"], call.get("confirmation"))
        part["approval"] = {"id": fingerprint, "descriptor": descriptor}
        part["toolMetadata"] = tool_metadata(router, action, call)
    else:  # a picker waiting for its pick, a held sibling, a call running now
        part["state"] = "input-available"
        part["toolMetadata"] = tool_metadata(router, action, call)
        if status == "running" and approval:
            part["approval"] = {"id": fingerprint, "approved": True}
    return titled(part, call)
