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
from spotter.tools.context import ToolContext
from spotter.tools.router import Router
from spotter.tools.schedule_args import SessionMember, session_labels
from spotter.tools.spec import MANAGERS, Audit, EntityTarget, Inverse, Output

bookings = Router(
    "bookings", "Bookings of members (memberId) on class sessions, waitlists and credits."
)
# Every change to a member's spot or credits is confirmed first.
confirmed = bookings.group(confirm="always")


class Booking(Output):
    session_id: UUID
    member_id: UUID


_CANCEL = Inverse(
    "cancel", Booking, lambda out: SessionMember(session_id=out.session_id, member_id=out.member_id)
)


def _preview(
    consequences: Callable[[ToolContext, SessionMember], Awaitable[list[str]]],
) -> Callable[[ToolContext, SessionMember], Awaitable[Confirmation]]:
    """A card naming `<member> · <session>`, one booking, and what else happens."""

    async def preview(ctx: ToolContext, args: SessionMember) -> Confirmation:
        member = await member_name(ctx.scope, args.member_id)
        session = await session_labels(ctx, [args.session_id])
        return Confirmation(
            target=f"{member} · {session}",
            affected_count=1,
            consequences=await consequences(ctx, args),
        )

    return preview


async def _joining(ctx: ToolContext, args: SessionMember, *, waitlist: bool) -> list[str]:
    session = await schedule.get_session(ctx.scope, args.session_id)
    await domain.check_can_join(ctx.scope, session, args.member_id, ctx.now, waitlist=waitlist)
    if waitlist:
        return ["member_waitlisted"]
    paying = await domain.credit_balance(ctx.scope, args.member_id) is not None
    return ["member_booked"] + (["credit_used"] if paying else [])


async def _book_consequences(ctx: ToolContext, args: SessionMember) -> list[str]:
    return await _joining(ctx, args, waitlist=False)


async def _waitlist_consequences(ctx: ToolContext, args: SessionMember) -> list[str]:
    return await _joining(ctx, args, waitlist=True)


async def _cancel_consequences(ctx: ToolContext, args: SessionMember) -> list[str]:
    booking = await domain.require_booking(ctx.scope, args.session_id, args.member_id)
    session = await schedule.get_session(ctx.scope, args.session_id)
    found = ["booking_cancelled"]
    if booking["status"] == "booked" and session["waitlisted"]:
        found.append("waitlist_promoted")
    return found


async def _attendance_consequences(ctx: ToolContext, args: SessionMember) -> list[str]:
    await domain.require_booking(ctx.scope, args.session_id, args.member_id)
    return ["attendance_recorded"]


class SessionArgs(Args):
    session_id: UUID


@bookings.read("list", "A session's roster and waitlist (in order).")
async def roster(ctx: ToolContext, args: SessionArgs) -> dict[str, Any]:
    session = await schedule.get_session(ctx.scope, args.session_id)
    people = await domain.roster(ctx.scope, args.session_id)
    return {**schedule.session_out(session, ctx.tz), "roster": people}


@confirmed.write(
    "book",
    "Book a member (full: capacity_full, offer the waitlist; uses a credit if on credits).",
    preview=_preview(_book_consequences),
    inverse=_CANCEL,
)
async def book(ctx: ToolContext, args: SessionMember) -> Booking:
    booking = await domain.book(ctx.scope, args.session_id, args.member_id, ctx.now)
    return Booking.model_validate(booking)


@confirmed.write(
    "join_waitlist",
    "Waitlist a member on a full session.",
    preview=_preview(_waitlist_consequences),
    inverse=_CANCEL,
)
async def join_waitlist(ctx: ToolContext, args: SessionMember) -> Booking:
    booking = await domain.join_waitlist(ctx.scope, args.session_id, args.member_id, ctx.now)
    return Booking.model_validate(booking)


@confirmed.write(
    "cancel",
    "Cancel a booking/waitlist entry; refunds its credit; first waitlisted gets the spot.",
    preview=_preview(_cancel_consequences),
)
async def cancel(ctx: ToolContext, args: SessionMember) -> dict[str, Any]:
    return await domain.cancel(ctx.scope, args.session_id, args.member_id)


@confirmed.write(
    "check_in",
    "Check a booked member in (from 1h before start).",
    preview=_preview(_attendance_consequences),
    audit=Audit("booking", "booking.checked_in"),
)
async def check_in(ctx: ToolContext, args: SessionMember) -> dict[str, Any]:
    return await domain.record_attendance(
        ctx.scope, args.session_id, args.member_id, "checked_in", ctx.now
    )


@confirmed.write(
    "mark_no_show",
    "Mark a booked member absent (after start).",
    preview=_preview(_attendance_consequences),
)
async def mark_no_show(ctx: ToolContext, args: SessionMember) -> dict[str, Any]:
    return await domain.record_attendance(
        ctx.scope, args.session_id, args.member_id, "no_show", ctx.now
    )


class MemberArgs(Args):
    member_id: UUID


@bookings.read("credits", "A member's credit balance (null = unlimited), history.")
async def credits(ctx: ToolContext, args: MemberArgs) -> dict[str, Any]:
    return await domain.credit_history(ctx.scope, args.member_id)


class AdjustArgs(MemberArgs):
    delta: int = Field(ge=-100, le=100)
    reason: str = Field(min_length=1, max_length=200)

    @field_validator("delta")
    @classmethod
    def _not_zero(cls, value: int) -> int:
        if value == 0:
            raise ValueError("delta must not be 0")
        return value


class CreditChange(Output):
    member_id: UUID
    delta: int


async def _adjust_preview(ctx: ToolContext, args: AdjustArgs) -> Confirmation:
    balance = await domain.credit_balance(ctx.scope, args.member_id) or 0
    return Confirmation(
        consequences=["credits_changed"],
        changes=[{"field": "credits", "old": balance, "new": balance + args.delta}],
    )


@confirmed.write(
    "adjust_credits",
    "Add (+) or remove (-) class credits.",
    roles=MANAGERS,
    preview=_adjust_preview,
    target=EntityTarget("member", "member_id"),
    resource="member_credits",
    inverse=Inverse(
        "adjust_credits",
        CreditChange,
        lambda out: AdjustArgs(member_id=out.member_id, delta=-out.delta, reason="Undo"),
    ),
)
async def adjust_credits(ctx: ToolContext, args: AdjustArgs) -> CreditChange:
    change = await domain.adjust_credits(ctx.scope, args.member_id, args.delta, args.reason)
    return CreditChange.model_validate(change)
