"""Request bodies. Validated before anything is written; a malformed body is a 400."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Self
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.alias_generators import to_camel

MAX_TEXT_CHARS = 20_000
MAX_DECISIONS = 20


def has_nul(value: Any) -> bool:
    """Whether a NUL character hides anywhere in a JSON value, keys included: Postgres text and
    jsonb cannot hold one, so such input is refused before anything is written."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


class _Body(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _no_nul(cls, data: Any) -> Any:
        if has_nul(data):
            raise ValueError("text must not contain NUL characters")
        return data


class PageContext(_Body):
    pathname: Annotated[str, Field(min_length=1, max_length=512)]
    selection: dict[str, Any] | None = None


class SendMessageBody(_Body):
    conversation_id: UUID | None = None
    text: Annotated[str, Field(min_length=1, max_length=MAX_TEXT_CHARS)]
    page_context: PageContext

    @field_validator("text")
    @classmethod
    def _not_blank(cls, text: str) -> str:
        if not text.strip():
            raise ValueError("text must not be blank")
        return text


MAX_REASON_CHARS = 2_000
Fingerprint = Annotated[str, Field(min_length=1, max_length=64)]


class ConfirmBody(_Body):
    """`args` approves with edited arguments; `reason` says why a call was declined (the model
    reads it); `fingerprint` is the card's, so a decision made on a stale card is refused."""

    approved: bool
    args: dict[str, Any] | None = None
    reason: Annotated[str, Field(min_length=1, max_length=MAX_REASON_CHARS)] | None = None
    fingerprint: Fingerprint | None = None

    @model_validator(mode="after")
    def _fits_the_decision(self) -> Self:
        if self.args is not None and not self.approved:
            raise ValueError("args come with an approval")
        if self.reason is not None and self.approved:
            raise ValueError("a reason comes with a rejection")
        return self


class Decision(ConfirmBody):
    tool_use_id: Annotated[str, Field(min_length=1, max_length=128)]


class ConfirmBatchBody(_Body):
    decisions: Annotated[list[Decision], Field(min_length=1, max_length=MAX_DECISIONS)]

    @field_validator("decisions")
    @classmethod
    def _unique(cls, decisions: list[Decision]) -> list[Decision]:
        ids = [d.tool_use_id for d in decisions]
        if len(set(ids)) != len(ids):
            raise ValueError("each toolUseId may appear only once")
        return decisions


class PickBody(_Body):
    id: Annotated[str, Field(min_length=1, max_length=128)]


class ApprovalDecisionBody(_Body):
    """A person's decision on the approval page of a pending MCP call."""

    decision: Literal["approve", "reject"]
    reason: Annotated[str, Field(min_length=1, max_length=2000)] | None = None
