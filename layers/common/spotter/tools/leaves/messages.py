"""messages — one email to one member, through the outbox."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from spotter.domain import messaging
from spotter.tools.args import Args
from spotter.tools.cards import Confirmation
from spotter.tools.context import ToolContext
from spotter.tools.outbound import Body, Subject, outbound_card
from spotter.tools.router import Router

messages = Router("messages", "Email one member (memberId).")


class MessageArgs(Args):
    member_id: UUID
    subject: Subject
    body: Body


async def _preview(ctx: ToolContext, args: MessageArgs) -> Confirmation:
    recipient = await messaging.member_recipient(ctx.scope, args.member_id)
    return outbound_card(
        [recipient.name or recipient.address], subject=args.subject, body=args.body
    )


@messages.write(
    "send",
    "Email a member.",
    confirm="always",
    external_effects=True,
    preview=_preview,
)
async def send(ctx: ToolContext, args: MessageArgs) -> dict[str, Any]:
    return await messaging.send_message(
        ctx.scope, args.member_id, subject=args.subject, body=args.body, link=ctx.outbox_link
    )
