"""inbox — the staff CRM inbox: threads with leads and members (not the agent's conversations).

All staff; every action re-applies the `lead_management` tier gate. A reply leaves our
database (the outbox sends it), so it always confirms with the full body in the card.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import Field

from spotter.domain import inbox as domain
from spotter.domain import outbox
from spotter.domain.staff import staff_user_id
from spotter.tools.args import Args
from spotter.tools.cards import Confirmation
from spotter.tools.context import ToolContext
from spotter.tools.outbound import Body, outbound_card
from spotter.tools.router import Router
from spotter.tools.spec import STAFF, Identified, Inverse

inbox = Router(
    "inbox",
    "Staff inbox: email threads with leads and members. assigneeId: a staff memberId.",
    roles=STAFF,
    feature_gate="lead_management",
    resource="inbox_thread",
)

Tag = Annotated[str, Field(min_length=1, max_length=40)]


class ThreadArgs(Args):
    thread_id: UUID


class ListArgs(Args):
    status: Literal["open", "closed", "all"] = "open"
    assignee_id: UUID | None = None
    tag: str | None = None
    unread_only: bool = False
    lead_id: UUID | None = None
    member_id: UUID | None = None


@inbox.read("list", "Threads, newest first (open unless asked).")
async def list_threads(ctx: ToolContext, args: ListArgs) -> dict[str, Any]:
    assignee = await staff_user_id(ctx.scope, args.assignee_id) if args.assignee_id else None
    threads = await domain.list_threads(
        ctx.scope,
        status=None if args.status == "all" else args.status,
        assignee_user_id=assignee,
        tag=args.tag,
        unread_only=args.unread_only,
        lead_id=args.lead_id,
        membership_id=args.member_id,
    )
    return {"threads": threads}


@inbox.read("read", "A thread's messages; marks it read.")
async def read_thread(ctx: ToolContext, args: ThreadArgs) -> dict[str, Any]:
    return await domain.read_thread(ctx.scope, args.thread_id)


class AssignArgs(Args):
    thread_id: UUID
    assignee_id: UUID | None = None


class Assigned(Identified):
    previous_assignee_id: UUID | None = None


@inbox.write(
    "assign",
    "Assign a thread (omit assigneeId to unassign).",
    inverse=Inverse(
        "assign",
        Assigned,
        lambda out: AssignArgs(thread_id=out.id, assignee_id=out.previous_assignee_id),
    ),
)
async def assign_thread(ctx: ToolContext, args: AssignArgs) -> Assigned:
    assignee = await staff_user_id(ctx.scope, args.assignee_id) if args.assignee_id else None
    return Assigned.model_validate(await domain.assign_thread(ctx.scope, args.thread_id, assignee))


class TagArgs(Args):
    thread_id: UUID
    add: Annotated[list[Tag], Field(max_length=10)] = Field(default_factory=list)
    remove: Annotated[list[Tag], Field(max_length=10)] = Field(default_factory=list)


class Tagged(Identified):
    added: list[str]
    removed: list[str]


@inbox.write(
    "tag",
    "Add and/or remove a thread's tags.",
    inverse=Inverse(
        "tag", Tagged, lambda out: TagArgs(thread_id=out.id, add=out.removed, remove=out.added)
    ),
)
async def tag_thread(ctx: ToolContext, args: TagArgs) -> Tagged:
    tagged = await domain.tag_thread(ctx.scope, args.thread_id, add=args.add, remove=args.remove)
    return Tagged.model_validate(tagged)


_REOPEN = Inverse("reopen", Identified, lambda out: ThreadArgs(thread_id=out.id))
_CLOSE = Inverse("close", Identified, lambda out: ThreadArgs(thread_id=out.id))


@inbox.write("close", "Close a thread.", inverse=_REOPEN)
async def close_thread(ctx: ToolContext, args: ThreadArgs) -> Identified:
    return Identified.model_validate(
        await domain.set_thread_status(ctx.scope, args.thread_id, "closed")
    )


@inbox.write("reopen", "Reopen a closed thread.", inverse=_CLOSE)
async def reopen_thread(ctx: ToolContext, args: ThreadArgs) -> Identified:
    return Identified.model_validate(
        await domain.set_thread_status(ctx.scope, args.thread_id, "open")
    )


class ReplyArgs(Args):
    thread_id: UUID
    body: Body


async def _reply_preview(ctx: ToolContext, args: ReplyArgs) -> Confirmation:
    target = await domain.reply_recipient(ctx.scope, args.thread_id)
    recipient: outbox.Recipient = target["recipient"]
    return outbound_card(
        [recipient.name or recipient.address], subject=target["subject"], body=args.body
    )


@inbox.write(
    "reply",
    "Email a reply on a thread.",
    confirm="always",
    preview=_reply_preview,
    external_effects=True,
)
async def reply(ctx: ToolContext, args: ReplyArgs) -> dict[str, Any]:
    return await domain.reply(
        ctx.scope, ctx.caller.user_id, args.thread_id, args.body, link=ctx.outbox_link
    )
