"""Every event Spotter streams, one small model each, and the union the SSE encoder takes.

Field names are snake_case here and camelCase on the wire (`toolUseId`), as the web reducer
reads them; `None` fields are left out of the wire form.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from spotter.errors import ErrorCode
from spotter.tools.cards import Confirmation


class _Event(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True)


class Usage(_Event):
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd_micros: int = 0


class ConversationStarted(_Event):
    type: Literal["conversation_started"] = "conversation_started"
    conversation_id: str


class TextDelta(_Event):
    type: Literal["text_delta"] = "text_delta"
    delta: str


class ToolStarted(_Event):
    type: Literal["tool_started"] = "tool_started"
    tool_use_id: str
    router: str
    action: str
    input: dict[str, Any]


class ToolCompleted(_Event):
    type: Literal["tool_completed"] = "tool_completed"
    tool_use_id: str
    router: str
    action: str
    ok: bool
    output: Any = None
    error: dict[str, Any] | None = None
    inverse_available: bool = False
    execution_id: str | None = None  # its row, as the loader names it (undo by execution id)


class ConfirmationPending(_Event):
    type: Literal["confirmation_pending"] = "confirmation_pending"
    tool_use_id: str
    router: str
    action: str
    input: dict[str, Any]
    confirm: Literal["destructive", "always"]
    confirmation: Confirmation | None = None
    # router, action and exact arguments: a decision naming another one is refused (stale)
    fingerprint: str | None = None


class PickCandidate(_Event):
    id: str
    label: str
    sublabel: str | None = None
    detail: str | None = None


class DisambiguationPending(_Event):
    type: Literal["disambiguation_pending"] = "disambiguation_pending"
    tool_use_id: str
    kind: str
    prompt: str
    candidates: list[PickCandidate]
    # the picker tool itself (`read.ask_user_to_pick`), as `confirmation_pending` names its call
    router: str | None = None
    action: str | None = None


class MessageDone(_Event):
    type: Literal["message_done"] = "message_done"
    message_id: str
    stop_reason: str | None


class CompactionStarted(_Event):
    """Older messages are being summarized; the conversation shows `compacting: true`."""

    type: Literal["compaction_started"] = "compaction_started"
    conversation_id: str


class CompactionFinished(_Event):
    """`compacted` is false when it failed or another request held the lease (nothing changed)."""

    type: Literal["compaction_finished"] = "compaction_finished"
    conversation_id: str
    compacted: bool
    summarized_messages: int = 0


class Done(_Event):
    type: Literal["done"] = "done"
    conversation_id: str | None
    usage: Usage = Usage()


class Error(_Event):
    type: Literal["error"] = "error"
    code: ErrorCode
    message: str
    trace_id: str
    run_id: str | None = None  # conversation_busy: the live run, so a client can follow it


AgentEvent = (
    ConversationStarted
    | TextDelta
    | ToolStarted
    | ToolCompleted
    | ConfirmationPending
    | DisambiguationPending
    | MessageDone
    | CompactionStarted
    | CompactionFinished
    | Done
    | Error
)
