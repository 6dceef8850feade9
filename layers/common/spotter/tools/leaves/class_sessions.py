"""class_sessions — the timetable: create, copy, publish, move, cancel, coaches, workouts."""

from __future__ import annotations

from datetime import date, time, timedelta
from typing import Any, Literal
from uuid import UUID

from pydantic import Field

from spotter.domain import bookings as booking_domain
from spotter.domain import names, programming
from spotter.domain import schedule as domain
from spotter.domain.errors import DomainError
from spotter.i18n.dates import format_local_date
from spotter.tools.args import Args
from spotter.tools.cards import Confirmation, set_change
from spotter.tools.context import ToolContext
from spotter.tools.router import Router
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
from spotter.tools.spec import MANAGERS, STAFF, Audit, EntityTarget, Identified, Inverse, Output

class_sessions = Router(
    "class_sessions",
    "Class sessions. Dates/times are the gym's local time; days: {first, last?} inclusive,"
    " ≤31. New sessions are drafts until published. A session runs its class type's daily"
    " programming unless set_workouts overrides.",
    roles=MANAGERS,
)

Weekday = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
_WEEKDAYS: tuple[Weekday, ...] = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def _ids(values: list[UUID]) -> list[str]:
    return [str(v) for v in values]


async def _session(ctx: ToolContext, session_id: UUID | str) -> dict[str, Any]:
    row = await domain.get_session(ctx.scope, UUID(str(session_id)))
    return domain.session_out(row, ctx.tz)


class ChangedSessions(Output):
    session_ids: list[UUID]


class Rescheduled(Identified):
    previous: dict[str, Any]  # the slot it had: {day, start, minutes}


class CoachesSet(Identified):
    previous_coach_ids: list[UUID]


def _undo_sessions(action: str) -> Inverse[ChangedSessions]:
    return Inverse(action, ChangedSessions, lambda out: SessionsArgs(session_ids=out.session_ids))


_DELETE_CREATED = Inverse("delete", Identified, lambda out: SessionsArgs(session_ids=[out.id]))

# Reading the timetable, and who coaches a session and what it trains: any staff (the rest of
# the timetable is owner/admin).
staff = class_sessions.group(roles=STAFF)
# Calls that bring sessions into being: undone by deleting the sessions they made.
making_sessions = class_sessions.group(inverse=_undo_sessions("delete"))
# Publishing shows sessions to members: confirmed, undone by unpublishing.
publishing = class_sessions.group(confirm="always", inverse=_undo_sessions("unpublish"))
# Cancelling, deleting or moving sessions members may have booked.
destructive = class_sessions.group(confirm="destructive")
# Replacing a session's whole set of coaches or workouts: always confirmed (the spec's TKN-305),
# on a card with the set before and after. Any staff, like the rest of coaching a session.
replacing = staff.group(confirm="always", target=EntityTarget("class_session", "session_id"))


# --- reads ------------------------------------------------------------------------------------


class ListArgs(Args):
    days: Days
    class_type_id: UUID | None = None
    status: Literal["draft", "published", "cancelled"] | None = None


@staff.read("list", "Sessions in a date range.")
async def list_sessions(ctx: ToolContext, args: ListArgs) -> dict[str, Any]:
    rows = await domain.list_sessions(
        ctx.scope,
        ctx.tz,
        args.days.first,
        args.days.end,
        class_type_id=args.class_type_id,
        status=args.status,
    )
    return {"sessions": [domain.session_out(r, ctx.tz) for r in rows]}


class SessionArgs(Args):
    session_id: UUID


@staff.read("get", "One session, its workouts and their source.")
async def get_session(ctx: ToolContext, args: SessionArgs) -> dict[str, Any]:
    row = await domain.get_session(ctx.scope, args.session_id)
    effective = await programming.effective_workouts(ctx.scope, row, ctx.tz)
    return {**domain.session_out(row, ctx.tz), **effective}


class RangeArgs(Args):
    days: Days


@staff.read("check", "Problems in a range: drafts, no coach, coach overlaps.")
async def check_sessions(ctx: ToolContext, args: RangeArgs) -> dict[str, Any]:
    days = args.days
    found = await domain.problems(ctx.scope, ctx.tz, days.first, days.end)
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


@class_sessions.write(
    "create",
    "Create a draft session (defaults from its class type).",
    inverse=_DELETE_CREATED,
)
async def create_session(ctx: ToolContext, args: CreateArgs) -> Identified:
    draft = await _draft(ctx, args, args.slot.day, args.slot)
    created, _ = await domain.create_sessions(ctx.scope, [draft], skip_duplicates=False)
    return Identified.model_validate(await _session(ctx, created[0]))


async def _draft(ctx: ToolContext, details: Details, day: date, slot: Slot) -> domain.SessionDraft:
    return await domain.draft_for(
        ctx.scope,
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


@making_sessions.write(
    "create_many",
    "Create drafts on chosen weekdays of a range at each time; existing ones skipped.",
    audit=Audit("class_session", "class_session.bulk_created"),
)
async def create_many(ctx: ToolContext, args: CreateManyArgs) -> ChangedSessions:
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
    created, skipped = await domain.create_sessions(ctx.scope, drafts, skip_duplicates=True)
    return ChangedSessions.model_validate({"sessionIds": _ids(created), "skipped": skipped})


class ReplicateDayArgs(Args):
    source: date
    targets: list[date] = Field(min_length=1, max_length=14)
    class_type_id: UUID | None = None


@making_sessions.write(
    "replicate_day",
    "Copy a day's sessions (coaches too) to other dates as drafts.",
    audit=Audit("class_session", "class_session.replicated"),
)
async def replicate_day(ctx: ToolContext, args: ReplicateDayArgs) -> ChangedSessions:
    created, skipped = await domain.copy_days(
        ctx.scope,
        ctx.tz,
        [(args.source, target) for target in args.targets],
        args.class_type_id,
    )
    return ChangedSessions.model_validate({"sessionIds": _ids(created), "skipped": skipped})


class CopyWeekArgs(Args):
    source_start: date
    target_start: date
    class_type_id: UUID | None = None


@making_sessions.write(
    "copy_week",
    "Copy the 7 days from sourceStart to targetStart (a whole number of weeks apart) as drafts.",
)
async def copy_week(ctx: ToolContext, args: CopyWeekArgs) -> ChangedSessions:
    offset = (args.target_start - args.source_start).days
    if offset == 0 or offset % 7:
        raise DomainError("invalid_args", "targetStart must be whole weeks from sourceStart.")
    pairs = [
        (args.source_start + timedelta(days=i), args.target_start + timedelta(days=i))
        for i in range(7)
    ]
    created, skipped = await domain.copy_days(ctx.scope, ctx.tz, pairs, args.class_type_id)
    return ChangedSessions.model_validate({"sessionIds": _ids(created), "skipped": skipped})


class DuplicateArgs(Args):
    session_id: UUID
    slot: Slot


@class_sessions.write(
    "duplicate",
    "Copy one session to another slot as a draft.",
    audit=Audit("class_session", "class_session.created"),
    inverse=_DELETE_CREATED,
)
async def duplicate(ctx: ToolContext, args: DuplicateArgs) -> Identified:
    row = await domain.get_session(ctx.scope, args.session_id)
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
    created, _ = await domain.create_sessions(ctx.scope, [draft], skip_duplicates=False)
    return Identified.model_validate(await _session(ctx, created[0]))


# --- status -----------------------------------------------------------------------------------


class SessionsArgs(Args):
    session_ids: SessionIds


async def _publish_preview(ctx: ToolContext, args: SessionsArgs) -> Confirmation:
    rows = await domain.get_sessions(ctx.scope, args.session_ids)
    drafts = [r["id"] for r in rows if r["status"] == "draft"]
    return card(await session_labels(ctx, args.session_ids), len(drafts), "members_can_book")


@publishing.write("publish", "Publish drafts so members can book.", preview=_publish_preview)
async def publish(ctx: ToolContext, args: SessionsArgs) -> ChangedSessions:
    changed = await domain.set_status(ctx.scope, args.session_ids, "published")
    return ChangedSessions.model_validate({"sessionIds": _ids(changed)})


class PublishRangeArgs(RangeArgs):
    class_type_id: UUID | None = None


async def _publish_range_preview(ctx: ToolContext, args: PublishRangeArgs) -> Confirmation:
    ids = await domain.draft_ids_in_range(
        ctx.scope, ctx.tz, args.days.first, args.days.end, args.class_type_id
    )
    if not ids:
        raise DomainError("conflict", "There are no drafts in that range.")
    return card(await session_labels(ctx, ids), len(ids), "members_can_book")


@publishing.write(
    "publish_range",
    "Publish every draft in a date range.",
    preview=_publish_range_preview,
    audit=Audit("class_session", "class_session.published"),
)
async def publish_range(ctx: ToolContext, args: PublishRangeArgs) -> ChangedSessions:
    ids = await domain.draft_ids_in_range(
        ctx.scope, ctx.tz, args.days.first, args.days.end, args.class_type_id
    )
    if not ids:
        raise DomainError("conflict", "There are no drafts in that range.")
    changed = await domain.set_status(ctx.scope, ids, "published")
    return ChangedSessions.model_validate({"sessionIds": _ids(changed)})


@class_sessions.write(
    "unpublish",
    "Back to draft (only sessions without bookings).",
    inverse=_undo_sessions("publish"),
)
async def unpublish(ctx: ToolContext, args: SessionsArgs) -> ChangedSessions:
    changed = await domain.set_status(ctx.scope, args.session_ids, "draft")
    return ChangedSessions.model_validate({"sessionIds": _ids(changed)})


class CancelArgs(SessionsArgs):
    reason: str | None = Field(None, max_length=200)


async def _cancel_preview(ctx: ToolContext, args: CancelArgs) -> Confirmation:
    rows = await domain.cancellable(ctx.scope, args.session_ids, ctx.now)
    affected = sum(r["booked"] + r["waitlisted"] for r in rows)
    consequences = ["session_cancelled"]
    if affected:
        consequences += ["members_lose_spots", "credits_refunded"]
    return card(await session_labels(ctx, args.session_ids), affected, *consequences)


@destructive.write(
    "cancel",
    "Cancel sessions; their bookings and waitlists are cancelled, credits refunded.",
    preview=_cancel_preview,
)
async def cancel(ctx: ToolContext, args: CancelArgs) -> dict[str, Any]:
    await domain.mark_cancelled(ctx.scope, args.session_ids, args.reason, ctx.now)
    released = 0
    for session_id in args.session_ids:
        released += await booking_domain.cancel_all(ctx.scope, session_id)
    return {"sessionIds": _ids(args.session_ids), "bookingsCancelled": released}


async def _delete_preview(ctx: ToolContext, args: SessionsArgs) -> Confirmation:
    return card(
        await session_labels(ctx, args.session_ids), len(set(args.session_ids)), "session_removed"
    )


@destructive.write(
    "delete",
    "Delete sessions nobody booked (else cancel).",
    preview=_delete_preview,
    inverse=_undo_sessions("restore"),
)
async def delete(ctx: ToolContext, args: SessionsArgs) -> ChangedSessions:
    removed = await domain.soft_delete(ctx.scope, args.session_ids)
    return ChangedSessions.model_validate({"sessionIds": _ids(removed)})


@making_sessions.write("restore", "Bring back deleted sessions.")
async def restore(ctx: ToolContext, args: SessionsArgs) -> ChangedSessions:
    restored = await domain.restore(ctx.scope, args.session_ids)
    return ChangedSessions.model_validate({"sessionIds": _ids(restored)})


# --- changing one session ---------------------------------------------------------------------


class RescheduleArgs(Args):
    session_id: UUID
    slot: Slot


async def _reschedule_preview(ctx: ToolContext, args: RescheduleArgs) -> Confirmation:
    row = await domain.get_session(ctx.scope, args.session_id)
    minutes = args.slot.minutes or domain.minutes_of(row)
    await domain.plan_move(ctx.scope, ctx.tz, row, args.slot.day, args.slot.start, minutes)
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


@destructive.write(
    "reschedule",
    "Move a session to another slot; its bookings move with it.",
    preview=_reschedule_preview,
    inverse=Inverse(
        "reschedule",
        Rescheduled,
        lambda out: RescheduleArgs(session_id=out.id, slot=Slot.model_validate(out.previous)),
    ),
)
async def reschedule(ctx: ToolContext, args: RescheduleArgs) -> Rescheduled:
    row = await domain.get_session(ctx.scope, args.session_id)
    minutes = args.slot.minutes or domain.minutes_of(row)
    previous = await domain.move(
        ctx.scope, ctx.tz, args.session_id, args.slot.day, args.slot.start, minutes
    )
    return Rescheduled.model_validate(
        {**await _session(ctx, args.session_id), "previous": previous}
    )


class UpdateArgs(Args):
    session_id: UUID
    capacity: Capacity | None = None
    location: str | None = Field(None, max_length=80)
    notes: str | None = Field(None, max_length=500)


@class_sessions.write(
    "update", "Change capacity, location or notes; added spots go to the waitlist."
)
async def update(ctx: ToolContext, args: UpdateArgs) -> dict[str, Any]:
    await domain.update_details(
        ctx.scope,
        args.session_id,
        capacity=args.capacity,
        location=args.location,
        notes=args.notes,
    )
    promoted = await booking_domain.fill_from_waitlist(ctx.scope, args.session_id)
    return {**await _session(ctx, args.session_id), "promoted": promoted}


class SetCoachesArgs(Args):
    session_id: UUID
    coach_ids: list[UUID] = Field(max_length=5)


async def _set_coaches_preview(ctx: ToolContext, args: SetCoachesArgs) -> Confirmation:
    row = await domain.get_session(ctx.scope, args.session_id)
    await domain.check_coaches(ctx.scope, row, args.coach_ids)
    old = {str(c["id"]): str(c["name"]) for c in row["coaches"]}
    new = await names.member_names_by_id(ctx.scope, list(dict.fromkeys(args.coach_ids)))
    return Confirmation(
        consequences=["session_coaches_replaced"], changes=[set_change("coaches", old, new)]
    )


@replacing.write(
    "set_coaches",
    "Replace a session's coaches ([] = none).",
    preview=_set_coaches_preview,
    inverse=Inverse(
        "set_coaches",
        CoachesSet,
        lambda out: SetCoachesArgs(session_id=out.id, coach_ids=out.previous_coach_ids),
    ),
)
async def set_coaches(ctx: ToolContext, args: SetCoachesArgs) -> CoachesSet:
    previous = await domain.replace_coaches(ctx.scope, args.session_id, args.coach_ids)
    return CoachesSet.model_validate(
        {**await _session(ctx, args.session_id), "previousCoachIds": previous}
    )


class SubstituteArgs(RangeArgs):
    from_coach_id: UUID
    to_coach_id: UUID


@class_sessions.write("substitute_coach", "Give one coach's sessions in a range to another.")
async def substitute_coach(ctx: ToolContext, args: SubstituteArgs) -> dict[str, Any]:
    moved = await domain.substitute_coach(
        ctx.scope,
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


def _titles(workouts: list[dict[str, Any]]) -> dict[str, str]:
    return {str(w["id"]): str(w["title"]) for w in workouts}


async def _running(ctx: ToolContext, session_id: UUID) -> dict[str, str]:
    """What a session runs now (its own workouts, else its day's), by id."""
    row = await domain.get_session(ctx.scope, session_id)
    return _titles((await programming.effective_workouts(ctx.scope, row, ctx.tz))["workouts"])


async def _set_workouts_preview(ctx: ToolContext, args: SetWorkoutsArgs) -> Confirmation:
    old = await _running(ctx, args.session_id)
    new = _titles(await programming.check_workouts(ctx.scope, args.workout_ids))
    return Confirmation(
        consequences=["session_workouts_replaced"], changes=[set_change("workouts", old, new)]
    )


@replacing.write(
    "set_workouts",
    "Give a session its own workouts, overriding daily programming ([] = none).",
    preview=_set_workouts_preview,
)
async def set_workouts(ctx: ToolContext, args: SetWorkoutsArgs) -> dict[str, Any]:
    await domain.get_session(ctx.scope, args.session_id, lock=True)
    await programming.check_workouts(ctx.scope, args.workout_ids)
    await programming.set_session_override(ctx.scope, args.session_id, args.workout_ids)
    return await get_session(ctx, SessionArgs(session_id=args.session_id))


async def _clear_workouts_preview(ctx: ToolContext, args: SessionArgs) -> Confirmation:
    row = await domain.get_session(ctx.scope, args.session_id)
    old = await _running(ctx, args.session_id)
    day = row["starts_at"].astimezone(ctx.tz).date()
    new = _titles(await programming.day_workouts(ctx.scope, row["class_type_id"], day))
    return Confirmation(
        consequences=["session_inherits_daily_programming"],
        changes=[set_change("workouts", old, new)],
    )


@replacing.write(
    "clear_workouts",
    "Drop a session's override; it inherits daily programming again.",
    preview=_clear_workouts_preview,
)
async def clear_workouts(ctx: ToolContext, args: SessionArgs) -> dict[str, Any]:
    await domain.get_session(ctx.scope, args.session_id, lock=True)
    await programming.set_session_override(ctx.scope, args.session_id, None)
    return await get_session(ctx, args)


class SetDayWorkoutsArgs(Args):
    day: date
    workout_ids: WorkoutIds
    class_type_id: UUID | None = None


async def _day_sessions(ctx: ToolContext, args: SetDayWorkoutsArgs) -> list[dict[str, Any]]:
    rows = await programming.sessions_on_day(ctx.scope, ctx.tz, args.class_type_id, args.day)
    if not rows:
        raise DomainError("conflict", f"No sessions on {args.day}.")
    return rows


async def _set_day_preview(ctx: ToolContext, args: SetDayWorkoutsArgs) -> Confirmation:
    rows = await _day_sessions(ctx, args)
    new = _titles(await programming.check_workouts(ctx.scope, args.workout_ids))
    changes = []
    for row in rows:  # one line per session: each may run something else now
        label = await names.session_label(ctx.scope, row["id"], ctx.tz, ctx.caller.locale)
        changes.append(set_change(label, await _running(ctx, row["id"]), new))
    return card(
        format_local_date(args.day, ctx.caller.locale), len(rows), "session_workouts_replaced"
    ).model_copy(update={"changes": changes})


@staff.write(
    "set_day_workouts",
    "Set the same workouts on every session of a day (optionally one class type).",
    confirm="always",
    preview=_set_day_preview,
)
async def set_day_workouts(ctx: ToolContext, args: SetDayWorkoutsArgs) -> dict[str, Any]:
    await programming.check_workouts(ctx.scope, args.workout_ids)
    rows = await _day_sessions(ctx, args)
    for row in rows:
        await programming.set_session_override(ctx.scope, row["id"], args.workout_ids)
    return {"sessionIds": [str(r["id"]) for r in rows]}
