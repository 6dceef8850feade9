"""The AI SDK's own request body (`DefaultChatTransport`: `id`, `messages`, `trigger`,
`messageId`, plus the app's `body` extras such as `pageContext`) and what it asks of Spotter.

Only the newest message is read: the server's stored history is the truth, and a client cannot
rewrite it. A newest user message is a new message (its text parts). A newest assistant message
is a decision about the message Spotter is waiting on: each tool part the person answered with
`addToolApprovalResponse` (`approval-responded`: its `approvalId` is the card's fingerprint, its
`reason` reaches the model) and each picker the app answered with `addToolOutput`
(`output-available`, the chosen candidate or its id). What the body names is only a claim:
`approvals.resolution` checks every decision against the stored calls before anything runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from spotter.agent.chats import CHAT_ID
from spotter.agent.run import Decision
from spotter.errors import SpotterError
from spotter.http.bodies import MAX_REASON_CHARS, MAX_TEXT_CHARS, Body, PageContext
from spotter.http.ui_stream import KnownCall

ChatId = Annotated[str, Field(pattern=CHAT_ID.pattern)]
_APPROVAL_STATES = ("approval-requested", "approval-responded")


class UiMessageIn(BaseModel):
    """A `UIMessage` as the SDK sends it; only the newest one is read, and only its parts."""

    model_config = ConfigDict(extra="allow")

    id: Annotated[str, Field(max_length=256)]
    role: Literal["system", "user", "assistant"]
    parts: list[dict[str, Any]]


class ChatBody(Body):
    """Unknown keys are the app's own `body` extras: ignored, so a newer SDK's additions or an
    app's own fields never break the chat. A NUL or an unpaired surrogate anywhere is refused
    (Postgres cannot hold it: `db.text`)."""

    model_config = ConfigDict(extra="ignore")

    id: ChatId
    messages: Annotated[list[UiMessageIn], Field(min_length=1)]
    trigger: Literal["submit-message", "regenerate-message"]
    message_id: Annotated[str, Field(max_length=256)] | None = None
    page_context: PageContext | None = None


@dataclass(frozen=True)
class NewMessage:
    text: str


@dataclass(frozen=True)
class PickedOutput:
    tool_use_id: str
    picked_id: str


@dataclass
class Answers:
    """A decision request: the approvals answered, the pickers' outputs (which of them are
    still open is the database's to say), and the calls the client's message shows."""

    approvals: list[Decision] = field(default_factory=list)
    outputs: list[PickedOutput] = field(default_factory=list)
    shown: dict[str, KnownCall] = field(default_factory=dict)


def _refuse(detail: str) -> SpotterError:
    return SpotterError("invalid_request", detail, status=400)


def read_request(body: ChatBody) -> NewMessage | Answers:
    if body.trigger == "regenerate-message":
        raise _refuse(
            "Regenerating is not supported: the conversation is append-only. Send the message "
            "again instead."
        )
    newest = body.messages[-1]
    if newest.role == "user":
        if body.message_id is not None:
            raise _refuse("Editing a sent message is not supported: send a new message.")
        return NewMessage(_text_of(newest))
    if newest.role == "assistant":
        return _answers(newest)
    raise _refuse("The newest message must be the user's or the assistant's.")


def _text_of(message: UiMessageIn) -> str:
    if any(part.get("type") != "text" for part in message.parts):
        raise _refuse("Spotter reads text parts only.")
    text = "\n\n".join(str(part.get("text") or "") for part in message.parts)
    if not text.strip():
        raise _refuse("The message must have text.")
    if len(text) > MAX_TEXT_CHARS:
        raise _refuse(f"The message must be at most {MAX_TEXT_CHARS} characters.")
    return text


def _tool_parts(message: UiMessageIn) -> list[dict[str, Any]]:
    parts = []
    for part in message.parts:
        kind = part.get("type")
        if not isinstance(kind, str) or not (kind.startswith("tool-") or kind == "dynamic-tool"):
            continue
        call_id = part.get("toolCallId")
        if not isinstance(call_id, str) or not 1 <= len(call_id) <= 128:
            raise _refuse("Every tool part needs its toolCallId.")
        parts.append(part)
    return parts


def _answers(message: UiMessageIn) -> Answers:
    answers = Answers()
    for part in _tool_parts(message):
        call_id, state = part["toolCallId"], part.get("state")
        client = not part.get("providerExecuted")
        given = part.get("approval")
        approval: dict[str, Any] = given if isinstance(given, dict) else {}
        name = part["type"][len("tool-") :] if part["type"] != "dynamic-tool" else "dynamic"
        asked = approval.get("id") if state in _APPROVAL_STATES else None
        answers.shown[call_id] = KnownCall(
            name,
            client=client,
            approval_id=asked if isinstance(asked, str) else None,
            awaiting=state in _APPROVAL_STATES or (client and state == "input-available"),
        )
        if state == "approval-responded":
            answers.approvals.append(_approval(call_id, approval))
        elif client and state == "output-available":
            answers.outputs.append(PickedOutput(call_id, _picked_id(part.get("output"))))
    return answers


def _approval(call_id: str, approval: dict[str, Any]) -> Decision:
    approval_id, approved = approval.get("id"), approval.get("approved")
    if not isinstance(approval_id, str) or not 1 <= len(approval_id) <= 64:
        raise _refuse("An approval response needs the approval's id.")
    if not isinstance(approved, bool):
        raise _refuse("An approval response says whether it was approved.")
    reason = approval.get("reason")
    if reason is not None and not isinstance(reason, str):
        raise _refuse("An approval's reason is text.")
    if reason is not None and len(reason) > MAX_REASON_CHARS:
        raise _refuse(f"A reason must be at most {MAX_REASON_CHARS} characters.")
    # the model reads why a call was declined; an approval needs no reason
    said = reason.strip() if reason and not approved else None
    return Decision(call_id, approved, reason=said or None, fingerprint=approval_id)


def _picked_id(output: Any) -> str:
    """The app answers a picker with the chosen candidate (or its id)."""
    picked = output.get("id", output.get("pickedId")) if isinstance(output, dict) else output
    if isinstance(picked, int | str) and not isinstance(picked, bool) and str(picked):
        return str(picked)[:128]
    return ""  # not a candidate: `invalid_pick`
