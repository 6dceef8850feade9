"""bookings — who is in a class: book, waitlist, cancel, attendance, class credits."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any
from uuid import UUID

from pydantic import Field, field_validator

from spotter.domain import bookings as domain
from spotter.domain import schedule
from spotter.domain.names import member_name
from spotter.tools.args import Args
from spotter.tools.cards import Confirmation
from spotter.tools.catalog import agent_tool, describe_router
from spotter.tools.context import ToolContext
from spotter.tools.schedule_args import SessionMember, session_labels
from spotter.tools.spec import MANAGERS, Audit, EntityTarget, Inverse

R = "bookings"
describe_router(R, "Bookings of members (memberId) on class sessions, waitlists and credits.")

_CANCEL = Inverse(
    R, "cancel", lambda out: {"sessionId": out["sessionId"], "memberId": out["memberId"]}
)


def _preview(
    consequences: Callable[[ToolContext, SessionMember], Awaitable[list[str]]],
) -> Callable[[ToolContext, SessionMember], Awaitable[Confirmation]]:
    """A card naming `<member> · <session>`, one booking, and what else happens."""

    async def preview(ctx: ToolContext, args: SessionMember) -> Confirmation:
        member = await member_name(ctx.conn, ctx.caller.org_id, args.member_id)
        session = await session_labels(ctx, [args.session_id])
        return Confirmation(
            target=f"{member} · {session}",
            affected_count=1,
            consequences=await consequences(ctx, args),
        )

    return preview


async def _joining(ctx: ToolContext, args: SessionMember, *, waitlist: bool) -> list[str]:
    org = ctx.caller.org_id
    session = await schedule.get_session(ctx.conn, org, args.session_id)
    await domain.check_can_join(ctx.conn, org, session, args.member_id, ctx.now, waitlist=waitlist)
    if waitlist:
        return ["member_waitlisted"]
    paying = await domain.credit_balance(ctx.conn, org, args.member_id) is not None
    return ["member_booked"] + (["credit_used"] if paying else [])


async def _book_consequences(ctx: ToolContext, args: SessionMember) -> list[str]:
    return await _joining(ctx, args, waitlist=False)


async def _waitlist_consequences(ctx: ToolContext, args: SessionMember) -> list[str]:
    return await _joining(ctx, args, waitlist=True)


async def _cancel_consequences(ctx: ToolContext, args: SessionMember) -> list[str]:
    org = ctx.caller.org_id
    booking = await domain.require_booking(ctx.conn, org, args.session_id, args.member_id)
    session = await schedule.get_session(ctx.conn, org, args.session_id)
    found = ["booking_cancelled"]
    if booking["status"] == "booked" and session["waitlisted"]:
        found.append("waitlist_promoted")
    return found


async def _attendance_consequences(ctx: ToolContext, args: SessionMember) -> list[str]:
    await domain.require_booking(ctx.conn, ctx.caller.org_id, args.session_id, args.member_id)
    return ["attendance_recorded"]


class SessionArgs(Args):
    session_id: UUID


@agent_tool(router=R, action="list", summary="A session's roster and waitlist (in order).")
async def roster(ctx: ToolContext, args: SessionArgs) -> dict[str, Any]:
    session = await schedule.get_session(ctx.conn, ctx.caller.org_id, args.session_id)
    people = await domain.roster(ctx.conn, ctx.caller.org_id, args.session_id)
    return {**schedule.session_out(session, ctx.tz), "roster": people}


@agent_tool(
    router=R,
    action="book",
    summary="Book a member (full: capacity_full, offer the waitlist; uses a credit if on credits).",
    side_effects="write",
    confirm="always",
    preview=_preview(_book_consequences),
    audit=Audit("booking", "booking.created"),
    inverse=_CANCEL,
)
async def book(ctx: ToolContext, args: SessionMember) -> dict[str, Any]:
    return await domain.book(ctx.conn, ctx.caller.org_id, args.session_id, args.member_id, ctx.now)


@agent_tool(
    router=R,
    action="join_waitlist",
    summary="Waitlist a member on a full session.",
    side_effects="write",
    confirm="always",
    preview=_preview(_waitlist_consequences),
    audit=Audit("booking", "booking.waitlisted"),
    inverse=_CANCEL,
)
async def join_waitlist(ctx: ToolContext, args: SessionMember) -> dict[str, Any]:
    return await domain.join_waitlist(
        ctx.conn, ctx.caller.org_id, args.session_id, args.member_id, ctx.now
    )


@agent_tool(
    router=R,
    action="cancel",
    summary="Cancel a booking/waitlist entry; refunds its credit; first waitlisted gets the spot.",
    side_effects="write",
    confirm="always",
    preview=_preview(_cancel_consequences),
    audit=Audit("booking", "booking.cancelled"),
)
async def cancel(ctx: ToolContext, args: SessionMember) -> dict[str, Any]:
    return await domain.cancel(ctx.conn, ctx.caller.org_id, args.session_id, args.member_id)


@agent_tool(
    router=R,
    action="check_in",
    summary="Check a booked member in (from 1h before start).",
    side_effects="write",
    confirm="always",
    preview=_preview(_attendance_consequences),
    audit=Audit("booking", "booking.checked_in"),
)
async def check_in(ctx: ToolContext, args: SessionMember) -> dict[str, Any]:
    return await domain.record_attendance(
        ctx.conn, ctx.caller.org_id, args.session_id, args.member_id, "checked_in", ctx.now
    )


@agent_tool(
    router=R,
    action="mark_no_show",
    summary="Mark a booked member absent (after start).",
    side_effects="write",
    confirm="always",
    preview=_preview(_attendance_consequences),
    audit=Audit("booking", "booking.no_show"),
)
async def mark_no_show(ctx: ToolContext, args: SessionMember) -> dict[str, Any]:
    return await domain.record_attendance(
        ctx.conn, ctx.caller.org_id, args.session_id, args.member_id, "no_show", ctx.now
    )


class MemberArgs(Args):
    member_id: UUID


@agent_tool(
    router=R, action="credits", summary="A member's credit balance (null = unlimited), history."
)
async def credits(ctx: ToolContext, args: MemberArgs) -> dict[str, Any]:
    return await domain.credit_history(ctx.conn, ctx.caller.org_id, args.member_id)


class AdjustArgs(MemberArgs):
    delta: int = Field(ge=-100, le=100)
    reason: str = Field(min_length=1, max_length=200)

    @field_validator("delta")
    @classmethod
    def _not_zero(cls, value: int) -> int:
        if value == 0:
            raise ValueError("delta must not be 0")
        return value


async def _adjust_preview(ctx: ToolContext, args: AdjustArgs) -> Confirmation:
    balance = await domain.credit_balance(ctx.conn, ctx.caller.org_id, args.member_id) or 0
    return Confirmation(
        consequences=["credits_changed"],
        changes=[{"field": "credits", "old": balance, "new": balance + args.delta}],
    )


@agent_tool(
    router=R,
    action="adjust_credits",
    summary="Add (+) or remove (-) class credits.",
    roles=MANAGERS,
    side_effects="write",
    confirm="always",
    preview=_adjust_preview,
    target=EntityTarget("member", "member_id"),
    audit=Audit("member_credits", "member_credits.adjusted"),
    inverse=Inverse(
        R,
        "adjust_credits",
        lambda out: {"memberId": out["memberId"], "delta": -out["delta"], "reason": "Undo"},
    ),
)
async def adjust_credits(ctx: ToolContext, args: AdjustArgs) -> dict[str, Any]:
    return await domain.adjust_credits(
        ctx.conn, ctx.caller.org_id, args.member_id, args.delta, args.reason
    )
