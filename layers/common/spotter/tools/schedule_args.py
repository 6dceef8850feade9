"""Argument pieces shared by the schedule routers, so each is stated once in a router's `$defs`.

Times are the org's local wall-clock time; the domain converts them to UTC with the org's zone.
"""

from __future__ import annotations

from datetime import date, time
from typing import Annotated
from uuid import UUID

from pydantic import Field

from spotter.domain import names
from spotter.tools.args import Args
from spotter.tools.cards import Confirmation
from spotter.tools.context import ToolContext

Minutes = Annotated[int, Field(ge=5, le=480)]
Capacity = Annotated[int, Field(ge=1, le=500)]
SessionIds = Annotated[list[UUID], Field(min_length=1, max_length=200)]
WorkoutIds = Annotated[list[UUID], Field(max_length=10)]


class Slot(Args):
    day: date
    start: time
    # default: the class type's duration (reschedule: the current one)
    minutes: Minutes | None = None


class Days(Args):
    first: date
    # inclusive; default: `first`
    last: date | None = None

    @property
    def end(self) -> date:
        return self.last or self.first


class SessionMember(Args):
    session_id: UUID
    member_id: UUID


async def session_labels(ctx: ToolContext, session_ids: list[UUID]) -> str:
    """`CrossFit · Tue 1 Dec 07:00` for one; the first three and how many more for a list."""
    labels = [
        await names.session_label(ctx.scope, sid, ctx.tz, ctx.caller.locale)
        for sid in dict.fromkeys(session_ids)
    ]
    more = len(labels) - 3
    return "; ".join(labels[:3]) + (f" (+{more} more)" if more > 0 else "")


def card(target: str | None, count: int | None, *consequences: str) -> Confirmation:
    return Confirmation(target=target, affected_count=count, consequences=list(consequences))
