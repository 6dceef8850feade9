"""memberships — members and their plans, invitations, and permanent member erasure."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import Field

from spotter.domain import erasure, memberships, outbox
from spotter.tools.args import Args, NoArgs
from spotter.tools.cards import Confirmation
from spotter.tools.context import ToolContext
from spotter.tools.entities import entity_namer
from spotter.tools.outbound import outbound_card
from spotter.tools.router import Router
from spotter.tools.spec import MANAGERS, STAFF, Audit, EntityTarget, Identified, Inverse, Output

memberships_router = Router(
    "memberships",
    "Gym members (memberId), their plans (planId), invitations, erasure.",
    resource="membership",
    roles=MANAGERS,
)
_MEMBER = EntityTarget("member", "member_id")
# Looking members up and inviting them: any staff.
staff = memberships_router.group(roles=STAFF)
# A member's plan and credits: owner/admin, confirmed on a card naming the member.
plan_changes = memberships_router.group(confirm="always", target=_MEMBER)
Reason = Annotated[str, Field(min_length=1, max_length=200)]


@entity_namer("membership_plan")
async def _plan_name(ctx: ToolContext, plan_id: UUID) -> str | None:
    return str((await memberships.get_plan(ctx.scope, plan_id))["name"])


class Member(Args):
    member_id: UUID


class ListArgs(Args):
    query: str | None = None
    plan_id: UUID | None = None
    subscription: Literal["active", "paused", "none"] | None = None


@staff.read("list", "Members and plans; filter by name, plan, status.")
async def list_members(ctx: ToolContext, args: ListArgs) -> dict[str, Any]:
    rows = await memberships.list_members(
        ctx.scope, query=args.query, plan_id=args.plan_id, subscription=args.subscription
    )
    return {"members": rows}


@staff.read("get", "One member: plan, credits, attendance.")
async def get_member(ctx: ToolContext, args: Member) -> dict[str, Any]:
    return await memberships.get_member(ctx.scope, args.member_id)


@staff.read("overview", "Plans with member counts; pending invitations.")
async def overview(ctx: ToolContext, args: NoArgs) -> dict[str, Any]:
    return {
        "plans": await memberships.list_plans(ctx.scope),
        "pendingInvitations": await memberships.list_invitations(ctx.scope),
    }


# -- invitations -------------------------------------------------------------------------------


class InviteArgs(Args):
    email: str = Field(min_length=3, max_length=320)
    name: str | None = Field(default=None, min_length=1, max_length=120)
    plan_id: UUID | None = None


class InvitationArgs(Args):
    invitation_id: UUID


@staff.write(
    "invite",
    "Record an invitation (send_invitations emails it).",
    quick_action=True,
    inverse=Inverse(
        "revoke_invitation", Identified, lambda out: InvitationArgs(invitation_id=out.id)
    ),
)
async def invite(ctx: ToolContext, args: InviteArgs) -> Identified:
    row = await memberships.invite(
        ctx.scope,
        email=str(args.email),
        full_name=args.name,
        plan_id=args.plan_id,
        invited_by=ctx.caller.user_id,
    )
    return Identified.model_validate(row)


@staff.write("revoke_invitation", "Revoke a pending invitation.")
async def revoke_invitation(ctx: ToolContext, args: InvitationArgs) -> dict[str, Any]:
    return await memberships.revoke_invitation(ctx.scope, args.invitation_id)


class SendInvitationsArgs(Args):
    invitation_ids: list[UUID] = Field(min_length=1, max_length=200)


async def _send_invitations_preview(ctx: ToolContext, args: SendInvitationsArgs) -> Confirmation:
    invitations = await memberships.pending_invitations(ctx.scope, args.invitation_ids)
    first = invitations[0]
    subject, body = memberships.invitation_email(ctx.caller.org_name, first["full_name"])
    return outbound_card(
        [i["full_name"] or i["email"] for i in invitations],
        subject=subject,
        body=body,
        consequences=["invitation_emailed"],
    )


@staff.write(
    "send_invitations",
    "Email or resend pending invitations.",
    confirm="always",
    external_effects=True,
    preview=_send_invitations_preview,
)
async def send_invitations(ctx: ToolContext, args: SendInvitationsArgs) -> dict[str, Any]:
    invitations = await memberships.pending_invitations(ctx.scope, args.invitation_ids)
    queued = await memberships.send_invitations(
        ctx.scope, invitations, gym=ctx.caller.org_name, link=ctx.outbox_link, now=ctx.now
    )
    return outbox.call_output(queued)


# -- subscriptions -----------------------------------------------------------------------------


class MemberChange(Output):
    id: UUID


class PauseArgs(Member):
    resume_on: date | None = None


def _subscription_card(old: str, new: str, consequence: str) -> Confirmation:
    return Confirmation(
        consequences=[consequence], changes=[{"field": "plan", "old": old, "new": new}]
    )


async def _pause_preview(ctx: ToolContext, args: PauseArgs) -> Confirmation:
    row = await memberships.live_subscription(ctx.scope, args.member_id, expect="active")
    until = f"paused until {args.resume_on.isoformat()}" if args.resume_on else "paused"
    return _subscription_card(f"{row['plan_name']} (active)", until, "membership_paused")


@plan_changes.write(
    "pause",
    "Pause a member's plan, optionally until resumeOn.",
    preview=_pause_preview,
    inverse=Inverse("resume", MemberChange, lambda out: Member(member_id=out.id)),
)
async def pause(ctx: ToolContext, args: PauseArgs) -> MemberChange:
    out = await memberships.pause(
        ctx.scope, args.member_id, resume_on=args.resume_on, today=ctx.local_now.date()
    )
    return MemberChange.model_validate(out)


async def _resume_preview(ctx: ToolContext, args: Member) -> Confirmation:
    row = await memberships.live_subscription(ctx.scope, args.member_id, expect="paused")
    return _subscription_card(
        f"{row['plan_name']} (paused)", f"{row['plan_name']} (active)", "membership_resumed"
    )


@plan_changes.write(
    "resume",
    "Resume a paused plan.",
    preview=_resume_preview,
    inverse=Inverse("pause", MemberChange, lambda out: PauseArgs(member_id=out.id)),
)
async def resume(ctx: ToolContext, args: Member) -> MemberChange:
    return MemberChange.model_validate(await memberships.resume(ctx.scope, args.member_id))


class CancelArgs(Member):
    reason: Reason | None = None


class Cancelled(Output):
    id: UUID
    plan_id: UUID


class PlanArgs(Member):
    plan_id: UUID


async def _cancel_preview(ctx: ToolContext, args: CancelArgs) -> Confirmation:
    row = await memberships.live_subscription(ctx.scope, args.member_id)
    return _subscription_card(
        f"{row['plan_name']} ({row['subscription_status']})", "no plan", "membership_cancelled"
    )


@plan_changes.write(
    "cancel",
    "Cancel a member's plan.",
    preview=_cancel_preview,
    # undo re-subscribes to the same plan (a fresh subscription row)
    inverse=Inverse(
        "change_plan", Cancelled, lambda out: PlanArgs(member_id=out.id, plan_id=out.plan_id)
    ),
)
async def cancel(ctx: ToolContext, args: CancelArgs) -> Cancelled:
    out = await memberships.cancel(ctx.scope, args.member_id, reason=args.reason)
    return Cancelled.model_validate(out)


class PlanChange(Output):
    id: UUID
    previous_plan_id: UUID | None = None


def _back_to_previous_plan(out: PlanChange) -> PlanArgs:
    # a first plan has no previous one: this raises, so the call has no undo
    return PlanArgs.model_validate({"memberId": out.id, "planId": out.previous_plan_id})


async def _change_plan_preview(ctx: ToolContext, args: PlanArgs) -> Confirmation:
    row, plan = await memberships.check_plan_change(ctx.scope, args.member_id, args.plan_id)
    return _subscription_card(row["plan_name"] or "no plan", plan["name"], "plan_changed")


@plan_changes.write(
    "change_plan",
    "Move a member to a plan (or start one).",
    preview=_change_plan_preview,
    inverse=Inverse("change_plan", PlanChange, _back_to_previous_plan),
)
async def change_plan(ctx: ToolContext, args: PlanArgs) -> PlanChange:
    out = await memberships.change_plan(ctx.scope, args.member_id, args.plan_id)
    return PlanChange.model_validate(out)


class CreditsArgs(Member):
    balance: int = Field(ge=0, le=1000)
    reason: Reason | None = None


class CreditsSet(Output):
    id: UUID
    previous_balance: int | None = None


def _back_to_previous_balance(out: CreditsSet) -> CreditsArgs:
    # from unlimited there is no balance to go back to: this raises, so the call has no undo
    return CreditsArgs.model_validate(
        {"memberId": out.id, "balance": out.previous_balance, "reason": "Undo"}
    )


async def _credits_preview(ctx: ToolContext, args: CreditsArgs) -> Confirmation:
    _, current = await memberships.check_credits(ctx.scope, args.member_id, args.balance)
    return Confirmation(
        consequences=["credits_changed"],
        changes=[
            {"field": "credits", "old": "unlimited" if current is None else current,
             "new": args.balance}
        ],
    )  # fmt: skip


@plan_changes.write(
    "credits",
    "Set a member's class-credit balance.",
    preview=_credits_preview,
    audit=Audit("membership", "membership.credits_set"),
    inverse=Inverse("credits", CreditsSet, _back_to_previous_balance),
)
async def credits(ctx: ToolContext, args: CreditsArgs) -> CreditsSet:
    reason = args.reason or "Set by staff"
    out = await memberships.set_credits(ctx.scope, args.member_id, args.balance, reason=reason)
    return CreditsSet.model_validate(out)


# -- erasure -----------------------------------------------------------------------------------


async def _erase_preview(ctx: ToolContext, args: Member) -> Confirmation:
    await memberships.member_row(ctx.scope, args.member_id)
    return Confirmation(affected_count=1, consequences=["permanent_member_erasure"])


@memberships_router.write(
    "erase",
    "Permanently erase a member's personal data (irreversible).",
    roles=frozenset({"owner"}),
    confirm="destructive",
    target=_MEMBER,
    preview=_erase_preview,
)
async def erase(ctx: ToolContext, args: Member) -> dict[str, Any]:
    return await erasure.erase_member(ctx.scope, args.member_id)
