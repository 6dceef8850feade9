"""class_sessions — the timetable: create, copy, publish, move, cancel, coaches, workouts."""

from __future__ import annotations

from datetime import date, time, timedelta
from typing import Any, Literal
from uuid import UUID

from pydantic import Field

from spotter.domain import bookings as booking_domain
from spotter.domain import programming
from spotter.domain import schedule as domain
from spotter.domain.errors import DomainError
from spotter.i18n.dates import format_local_date
from spotter.tools.args import Args
from spotter.tools.cards import Confirmation
from spotter.tools.catalog import agent_tool, describe_router
from spotter.tools.context import ToolContext
from spotter.tools.schedule_args import (
    Capacity,
    Days,
    Minutes,
    SessionIds,
    Slot,
    WorkoutIds,
    card,
    session_labels,
)
from spotter.tools.spec import MANAGERS, Audit, Inverse

R = "class_sessions"
describe_router(
    R,
    "Class sessions. Dates/times are the gym's local time; days: {first, last?} inclusive,"
    " ≤31. New sessions are drafts until published. A session runs its class type's daily"
    " programming unless set_workouts overrides.",
)

Weekday = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
_WEEKDAYS: tuple[Weekday, ...] = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def _ids(values: list[UUID]) -> list[str]:
    return [str(v) for v in values]


async def _session(ctx: ToolContext, session_id: UUID | str) -> dict[str, Any]:
    row = await domain.get_session(ctx.conn, ctx.caller.org_id, UUID(str(session_id)))
    return domain.session_out(row, ctx.tz)


def _undo_sessions(action: str) -> Inverse:
    return Inverse(R, action, lambda out: {"sessionIds": out["sessionIds"]})


# --- reads ------------------------------------------------------------------------------------


class ListArgs(Args):
    days: Days
    class_type_id: UUID | None = None
    status: Literal["draft", "published", "cancelled"] | None = None


@agent_tool(router=R, action="list", summary="Sessions in a date range.")
async def list_sessions(ctx: ToolContext, args: ListArgs) -> dict[str, Any]:
    rows = await domain.list_sessions(
        ctx.conn,
        ctx.caller.org_id,
        ctx.tz,
        args.days.first,
        args.days.end,
        class_type_id=args.class_type_id,
        status=args.status,
    )
    return {"sessions": [domain.session_out(r, ctx.tz) for r in rows]}


class SessionArgs(Args):
    session_id: UUID


@agent_tool(router=R, action="get", summary="One session, its workouts and their source.")
async def get_session(ctx: ToolContext, args: SessionArgs) -> dict[str, Any]:
    row = await domain.get_session(ctx.conn, ctx.caller.org_id, args.session_id)
    effective = await programming.effective_workouts(ctx.conn, ctx.caller.org_id, row, ctx.tz)
    return {**domain.session_out(row, ctx.tz), **effective}


class RangeArgs(Args):
    days: Days


@agent_tool(
    router=R, action="check", summary="Problems in a range: drafts, no coach, coach overlaps."
)
async def check_sessions(ctx: ToolContext, args: RangeArgs) -> dict[str, Any]:
    days = args.days
    found = await domain.problems(ctx.conn, ctx.caller.org_id, ctx.tz, days.first, days.end)
    return {"problems": found}


# --- creating ---------------------------------------------------------------------------------


class Details(Args):
    class_type_id: UUID
    capacity: Capacity | None = None
    location: str | None = Field(None, max_length=80)
    notes: str | None = Field(None, max_length=500)
    coach_ids: list[UUID] = Field([], max_length=5)


class CreateArgs(Details):
    slot: Slot


@agent_tool(
    router=R,
    action="create",
    summary="Create a draft session (defaults from its class type).",
    roles=MANAGERS,
    side_effects="write",
    audit=Audit("class_session", "class_session.created"),
    inverse=Inverse(R, "delete", lambda out: {"sessionIds": [out["id"]]}),
)
async def create_session(ctx: ToolContext, args: CreateArgs) -> dict[str, Any]:
    draft = await _draft(ctx, args, args.slot.day, args.slot)
    created, _ = await domain.create_sessions(
        ctx.conn, ctx.caller.org_id, [draft], skip_duplicates=False
    )
    return await _session(ctx, created[0])


async def _draft(ctx: ToolContext, details: Details, day: date, slot: Slot) -> domain.SessionDraft:
    return await domain.draft_for(
        ctx.conn,
        ctx.caller.org_id,
        ctx.tz,
        details.class_type_id,
        day,
        slot.start,
        minutes=slot.minutes,
        capacity=details.capacity,
        location=details.location,
        notes=details.notes,
        coach_ids=details.coach_ids,
    )


class CreateManyArgs(Details):
    days: Days
    # default: every day
    weekdays: list[Weekday] = Field([], max_length=7)
    times: list[time] = Field(min_length=1, max_length=10)
    minutes: Minutes | None = None


@agent_tool(
    router=R,
    action="create_many",
    summary="Create drafts on chosen weekdays of a range at each time; existing ones skipped.",
    roles=MANAGERS,
    side_effects="write",
    audit=Audit("class_session", "class_session.created_many"),
    inverse=_undo_sessions("delete"),
)
async def create_many(ctx: ToolContext, args: CreateManyArgs) -> dict[str, Any]:
    domain.local_day_bounds(args.days.first, args.days.end, ctx.tz)  # refuses a bad range
    wanted = set(args.weekdays or _WEEKDAYS)
    drafts = []
    day = args.days.first
    while day <= args.days.end:
        if _WEEKDAYS[day.weekday()] in wanted:
            for at in args.times:
                slot = Slot(day=day, start=at, minutes=args.minutes)
                drafts.append(await _draft(ctx, args, day, slot))
        day += timedelta(days=1)
    created, skipped = await domain.create_sessions(
        ctx.conn, ctx.caller.org_id, drafts, skip_duplicates=True
    )
    return {"sessionIds": _ids(created), "skipped": skipped}


class ReplicateDayArgs(Args):
    source: date
    targets: list[date] = Field(min_length=1, max_length=14)
    class_type_id: UUID | None = None


@agent_tool(
    router=R,
    action="replicate_day",
    summary="Copy a day's sessions (coaches too) to other dates as drafts.",
    roles=MANAGERS,
    side_effects="write",
    audit=Audit("class_session", "class_session.replicated"),
    inverse=_undo_sessions("delete"),
)
async def replicate_day(ctx: ToolContext, args: ReplicateDayArgs) -> dict[str, Any]:
    created, skipped = await domain.copy_days(
        ctx.conn,
        ctx.caller.org_id,
        ctx.tz,
        [(args.source, target) for target in args.targets],
        args.class_type_id,
    )
    return {"sessionIds": _ids(created), "skipped": skipped}


class CopyWeekArgs(Args):
    source_start: date
    target_start: date
    class_type_id: UUID | None = None


@agent_tool(
    router=R,
    action="copy_week",
    summary="Copy the 7 days from sourceStart to targetStart (a whole number of weeks apart)"
    " as drafts.",
    roles=MANAGERS,
    side_effects="write",
    audit=Audit("class_session", "class_session.week_copied"),
    inverse=_undo_sessions("delete"),
)
async def copy_week(ctx: ToolContext, args: CopyWeekArgs) -> dict[str, Any]:
    offset = (args.target_start - args.source_start).days
    if offset == 0 or offset % 7:
        raise DomainError("invalid_args", "targetStart must be whole weeks from sourceStart.")
    pairs = [
        (args.source_start + timedelta(days=i), args.target_start + timedelta(days=i))
        for i in range(7)
    ]
    created, skipped = await domain.copy_days(
        ctx.conn, ctx.caller.org_id, ctx.tz, pairs, args.class_type_id
    )
    return {"sessionIds": _ids(created), "skipped": skipped}


class DuplicateArgs(Args):
    session_id: UUID
    slot: Slot


@agent_tool(
    router=R,
    action="duplicate",
    summary="Copy one session to another slot as a draft.",
    roles=MANAGERS,
    side_effects="write",
    audit=Audit("class_session", "class_session.created"),
    inverse=Inverse(R, "delete", lambda out: {"sessionIds": [out["id"]]}),
)
async def duplicate(ctx: ToolContext, args: DuplicateArgs) -> dict[str, Any]:
    row = await domain.get_session(ctx.conn, ctx.caller.org_id, args.session_id)
    details = Details(
        class_type_id=row["class_type_id"],
        capacity=row["own_capacity"],
        location=row["location"],
        notes=row["notes"],
        coach_ids=[UUID(str(c["id"])) for c in row["coaches"]],
    )
    slot = args.slot if args.slot.minutes else args.slot.model_copy(
        update={"minutes": domain.minutes_of(row)}
    )  # fmt: skip
    draft = await _draft(ctx, details, slot.day, slot)
    created, _ = await domain.create_sessions(
        ctx.conn, ctx.caller.org_id, [draft], skip_duplicates=False
    )
    return await _session(ctx, created[0])


# --- status -----------------------------------------------------------------------------------


class SessionsArgs(Args):
    session_ids: SessionIds


async def _publish_preview(ctx: ToolContext, args: SessionsArgs) -> Confirmation:
    rows = await domain.get_sessions(ctx.conn, ctx.caller.org_id, args.session_ids)
    drafts = [r["id"] for r in rows if r["status"] == "draft"]
    return card(await session_labels(ctx, args.session_ids), len(drafts), "members_can_book")


@agent_tool(
    router=R,
    action="publish",
    summary="Publish drafts so members can book.",
    roles=MANAGERS,
    side_effects="write",
    confirm="always",
    preview=_publish_preview,
    audit=Audit("class_session", "class_session.published"),
    inverse=_undo_sessions("unpublish"),
)
async def publish(ctx: ToolContext, args: SessionsArgs) -> dict[str, Any]:
    changed = await domain.set_status(ctx.conn, ctx.caller.org_id, args.session_ids, "published")
    return {"sessionIds": _ids(changed)}


class PublishRangeArgs(RangeArgs):
    class_type_id: UUID | None = None


async def _publish_range_preview(ctx: ToolContext, args: PublishRangeArgs) -> Confirmation:
    ids = await domain.draft_ids_in_range(
        ctx.conn, ctx.caller.org_id, ctx.tz, args.days.first, args.days.end, args.class_type_id
    )
    if not ids:
        raise DomainError("conflict", "There are no drafts in that range.")
    return card(await session_labels(ctx, ids), len(ids), "members_can_book")


@agent_tool(
    router=R,
    action="publish_range",
    summary="Publish every draft in a date range.",
    roles=MANAGERS,
    side_effects="write",
    confirm="always",
    preview=_publish_range_preview,
    audit=Audit("class_session", "class_session.published"),
    inverse=_undo_sessions("unpublish"),
)
async def publish_range(ctx: ToolContext, args: PublishRangeArgs) -> dict[str, Any]:
    ids = await domain.draft_ids_in_range(
        ctx.conn, ctx.caller.org_id, ctx.tz, args.days.first, args.days.end, args.class_type_id
    )
    if not ids:
        raise DomainError("conflict", "There are no drafts in that range.")
    changed = await domain.set_status(ctx.conn, ctx.caller.org_id, ids, "published")
    return {"sessionIds": _ids(changed)}


@agent_tool(
    router=R,
    action="unpublish",
    summary="Back to draft (only sessions without bookings).",
    roles=MANAGERS,
    side_effects="write",
    audit=Audit("class_session", "class_session.unpublished"),
    inverse=_undo_sessions("publish"),
)
async def unpublish(ctx: ToolContext, args: SessionsArgs) -> dict[str, Any]:
    changed = await domain.set_status(ctx.conn, ctx.caller.org_id, args.session_ids, "draft")
    return {"sessionIds": _ids(changed)}


class CancelArgs(SessionsArgs):
    reason: str | None = Field(None, max_length=200)


async def _cancel_preview(ctx: ToolContext, args: CancelArgs) -> Confirmation:
    rows = await domain.cancellable(ctx.conn, ctx.caller.org_id, args.session_ids, ctx.now)
    affected = sum(r["booked"] + r["waitlisted"] for r in rows)
    consequences = ["session_cancelled"]
    if affected:
        consequences += ["members_lose_spots", "credits_refunded"]
    return card(await session_labels(ctx, args.session_ids), affected, *consequences)


@agent_tool(
    router=R,
    action="cancel",
    summary="Cancel sessions; their bookings and waitlists are cancelled, credits refunded.",
    roles=MANAGERS,
    side_effects="write",
    confirm="destructive",
    preview=_cancel_preview,
    audit=Audit("class_session", "class_session.cancelled"),
)
async def cancel(ctx: ToolContext, args: CancelArgs) -> dict[str, Any]:
    org = ctx.caller.org_id
    await domain.mark_cancelled(ctx.conn, org, args.session_ids, args.reason, ctx.now)
    released = 0
    for session_id in args.session_ids:
        released += await booking_domain.cancel_all(ctx.conn, org, session_id)
    return {"sessionIds": _ids(args.session_ids), "bookingsCancelled": released}


async def _delete_preview(ctx: ToolContext, args: SessionsArgs) -> Confirmation:
    return card(
        await session_labels(ctx, args.session_ids), len(set(args.session_ids)), "session_removed"
    )


@agent_tool(
    router=R,
    action="delete",
    summary="Delete sessions nobody booked (else cancel).",
    roles=MANAGERS,
    side_effects="write",
    confirm="destructive",
    preview=_delete_preview,
    audit=Audit("class_session", "class_session.deleted"),
    inverse=_undo_sessions("restore"),
)
async def delete(ctx: ToolContext, args: SessionsArgs) -> dict[str, Any]:
    removed = await domain.soft_delete(ctx.conn, ctx.caller.org_id, args.session_ids)
    return {"sessionIds": _ids(removed)}


@agent_tool(
    router=R,
    action="restore",
    summary="Bring back deleted sessions.",
    roles=MANAGERS,
    side_effects="write",
    audit=Audit("class_session", "class_session.restored"),
    inverse=_undo_sessions("delete"),
)
async def restore(ctx: ToolContext, args: SessionsArgs) -> dict[str, Any]:
    restored = await domain.restore(ctx.conn, ctx.caller.org_id, args.session_ids)
    return {"sessionIds": _ids(restored)}


# --- changing one session ---------------------------------------------------------------------


class RescheduleArgs(Args):
    session_id: UUID
    slot: Slot


async def _reschedule_preview(ctx: ToolContext, args: RescheduleArgs) -> Confirmation:
    row = await domain.get_session(ctx.conn, ctx.caller.org_id, args.session_id)
    minutes = args.slot.minutes or domain.minutes_of(row)
    await domain.plan_move(
        ctx.conn, ctx.caller.org_id, ctx.tz, row, args.slot.day, args.slot.start, minutes
    )
    day, start = domain.local_parts(row["starts_at"], ctx.tz)
    locale = ctx.caller.locale
    booked = row["booked"] + row["waitlisted"]
    return Confirmation(
        target=await session_labels(ctx, [args.session_id]),
        affected_count=booked,
        consequences=["booked_members_moved"] if booked else [],
        changes=[
            {
                "field": "time",
                "old": f"{format_local_date(day, locale)} {start}",
                "new": f"{format_local_date(args.slot.day, locale)} {args.slot.start:%H:%M}",
            }
        ],
    )


@agent_tool(
    router=R,
    action="reschedule",
    summary="Move a session to another slot; its bookings move with it.",
    roles=MANAGERS,
    side_effects="write",
    confirm="destructive",
    preview=_reschedule_preview,
    audit=Audit("class_session", "class_session.rescheduled"),
    inverse=Inverse(R, "reschedule", lambda out: {"sessionId": out["id"], "slot": out["previous"]}),
)
async def reschedule(ctx: ToolContext, args: RescheduleArgs) -> dict[str, Any]:
    org = ctx.caller.org_id
    row = await domain.get_session(ctx.conn, org, args.session_id)
    minutes = args.slot.minutes or domain.minutes_of(row)
    previous = await domain.move(
        ctx.conn, org, ctx.tz, args.session_id, args.slot.day, args.slot.start, minutes
    )
    return {**await _session(ctx, args.session_id), "previous": previous}


class UpdateArgs(Args):
    session_id: UUID
    capacity: Capacity | None = None
    location: str | None = Field(None, max_length=80)
    notes: str | None = Field(None, max_length=500)


@agent_tool(
    router=R,
    action="update",
    summary="Change capacity, location or notes; added spots go to the waitlist.",
    roles=MANAGERS,
    side_effects="write",
    audit=Audit("class_session", "class_session.updated"),
)
async def update(ctx: ToolContext, args: UpdateArgs) -> dict[str, Any]:
    org = ctx.caller.org_id
    await domain.update_details(
        ctx.conn,
        org,
        args.session_id,
        capacity=args.capacity,
        location=args.location,
        notes=args.notes,
    )
    promoted = await booking_domain.fill_from_waitlist(ctx.conn, org, args.session_id)
    return {**await _session(ctx, args.session_id), "promoted": promoted}


class SetCoachesArgs(Args):
    session_id: UUID
    coach_ids: list[UUID] = Field(max_length=5)


@agent_tool(
    router=R,
    action="set_coaches",
    summary="Replace a session's coaches ([] = none).",
    side_effects="write",
    audit=Audit("class_session", "class_session.coaches_set"),
    inverse=Inverse(
        R, "set_coaches", lambda out: {"sessionId": out["id"], "coachIds": out["previousCoachIds"]}
    ),
)
async def set_coaches(ctx: ToolContext, args: SetCoachesArgs) -> dict[str, Any]:
    previous = await domain.replace_coaches(
        ctx.conn, ctx.caller.org_id, args.session_id, args.coach_ids
    )
    return {**await _session(ctx, args.session_id), "previousCoachIds": previous}


class SubstituteArgs(RangeArgs):
    from_coach_id: UUID
    to_coach_id: UUID


@agent_tool(
    router=R,
    action="substitute_coach",
    summary="Give one coach's sessions in a range to another.",
    roles=MANAGERS,
    side_effects="write",
    audit=Audit("class_session", "class_session.coach_substituted"),
)
async def substitute_coach(ctx: ToolContext, args: SubstituteArgs) -> dict[str, Any]:
    moved = await domain.substitute_coach(
        ctx.conn,
        ctx.caller.org_id,
        ctx.tz,
        args.from_coach_id,
        args.to_coach_id,
        args.days.first,
        args.days.end,
    )
    return {"sessionIds": _ids(moved)}


# --- workouts ---------------------------------------------------------------------------------


class SetWorkoutsArgs(Args):
    session_id: UUID
    workout_ids: WorkoutIds


@agent_tool(
    router=R,
    action="set_workouts",
    summary="Give a session its own workouts, overriding daily programming ([] = none).",
    side_effects="write",
    audit=Audit("class_session", "class_session.workouts_set"),
)
async def set_workouts(ctx: ToolContext, args: SetWorkoutsArgs) -> dict[str, Any]:
    org = ctx.caller.org_id
    await domain.get_session(ctx.conn, org, args.session_id, lock=True)
    await programming.check_workouts(ctx.conn, org, args.workout_ids)
    await programming.set_session_override(ctx.conn, org, args.session_id, args.workout_ids)
    return await get_session(ctx, SessionArgs(session_id=args.session_id))


@agent_tool(
    router=R,
    action="clear_workouts",
    summary="Drop a session's override; it inherits daily programming again.",
    side_effects="write",
    audit=Audit("class_session", "class_session.workouts_cleared"),
)
async def clear_workouts(ctx: ToolContext, args: SessionArgs) -> dict[str, Any]:
    org = ctx.caller.org_id
    await domain.get_session(ctx.conn, org, args.session_id, lock=True)
    await programming.set_session_override(ctx.conn, org, args.session_id, None)
    return await get_session(ctx, args)


class SetDayWorkoutsArgs(Args):
    day: date
    workout_ids: WorkoutIds
    class_type_id: UUID | None = None


async def _day_sessions(ctx: ToolContext, args: SetDayWorkoutsArgs) -> list[dict[str, Any]]:
    rows = await programming.sessions_on_day(
        ctx.conn, ctx.caller.org_id, ctx.tz, args.class_type_id, args.day
    )
    if not rows:
        raise DomainError("conflict", f"No sessions on {args.day}.")
    return rows


async def _set_day_preview(ctx: ToolContext, args: SetDayWorkoutsArgs) -> Confirmation:
    rows = await _day_sessions(ctx, args)
    return card(
        format_local_date(args.day, ctx.caller.locale), len(rows), "session_workouts_replaced"
    )


@agent_tool(
    router=R,
    action="set_day_workouts",
    summary="Set the same workouts on every session of a day (optionally one class type).",
    side_effects="write",
    confirm="always",
    preview=_set_day_preview,
    audit=Audit("class_session", "class_session.day_workouts_set"),
)
async def set_day_workouts(ctx: ToolContext, args: SetDayWorkoutsArgs) -> dict[str, Any]:
    org = ctx.caller.org_id
    await programming.check_workouts(ctx.conn, org, args.workout_ids)
    rows = await _day_sessions(ctx, args)
    for row in rows:
        await programming.set_session_override(ctx.conn, org, row["id"], args.workout_ids)
    return {"sessionIds": [str(r["id"]) for r in rows]}
