"""announcements — one email to every active member (or a plan's), through the outbox."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from spotter.domain import messaging
from spotter.tools.args import Args
from spotter.tools.cards import Confirmation
from spotter.tools.context import ToolContext
from spotter.tools.outbound import Body, Subject, outbound_card
from spotter.tools.router import Router
from spotter.tools.spec import MANAGERS

announcements = Router("announcements", "Broadcast email to active members.", roles=MANAGERS)


class AnnounceArgs(Args):
    subject: Subject
    body: Body
    plan_id: UUID | None = None


async def _preview(ctx: ToolContext, args: AnnounceArgs) -> Confirmation:
    recipients, without_email = await messaging.audience(ctx.scope, plan_id=args.plan_id)
    card = outbound_card(
        [r.name or r.address for r in recipients], subject=args.subject, body=args.body
    )
    if without_email:
        card = card.model_copy(
            update={"consequences": [*card.consequences, "members_without_email_skipped"]}
        )
    return card


@announcements.write(
    "send",
    "Email all active members (or one plan's).",
    confirm="always",
    external_effects=True,
    preview=_preview,
)
async def send(ctx: ToolContext, args: AnnounceArgs) -> dict[str, Any]:
    return await messaging.announce(
        ctx.scope, subject=args.subject, body=args.body, plan_id=args.plan_id, link=ctx.outbox_link
    )
