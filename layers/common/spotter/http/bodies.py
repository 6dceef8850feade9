"""Request bodies. Validated before anything is written; a malformed body is a 400."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Self
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.alias_generators import to_camel

from spotter.db.text import unstorable

MAX_TEXT_CHARS = 20_000
MAX_DECISIONS = 20


class Body(BaseModel):
    """camelCase on the wire, unknown keys refused, and what Postgres cannot hold (`db.text`)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _storable(cls, data: Any) -> Any:
        # what Postgres cannot hold is refused before anything is written (`db.text`)
        if unstorable(data):
            raise ValueError("text must not contain NUL characters or unpaired surrogates")
        return data


class PageContext(Body):
    pathname: Annotated[str, Field(min_length=1, max_length=512)]
    selection: dict[str, Any] | None = None


class SendMessageBody(Body):
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


class ConfirmBody(Body):
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


class ConfirmBatchBody(Body):
    decisions: Annotated[list[Decision], Field(min_length=1, max_length=MAX_DECISIONS)]

    @field_validator("decisions")
    @classmethod
    def _unique(cls, decisions: list[Decision]) -> list[Decision]:
        ids = [d.tool_use_id for d in decisions]
        if len(set(ids)) != len(ids):
            raise ValueError("each toolUseId may appear only once")
        return decisions


class PickBody(Body):
    id: Annotated[str, Field(min_length=1, max_length=128)]


class ApprovalDecisionBody(Body):
    """A person's decision on the approval page of a pending MCP call."""

    decision: Literal["approve", "reject"]
    reason: Annotated[str, Field(min_length=1, max_length=2000)] | None = None
