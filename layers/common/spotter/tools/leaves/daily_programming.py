"""daily_programming — the workouts a class type runs on a date; its sessions inherit them."""

from __future__ import annotations

from datetime import date
from typing import Any
from uuid import UUID

from pydantic import Field

from spotter.domain import programming as domain
from spotter.domain import schedule
from spotter.domain.names import simple_name
from spotter.i18n.dates import format_local_date
from spotter.tools.args import Args
from spotter.tools.cards import Confirmation, set_change
from spotter.tools.context import ToolContext
from spotter.tools.router import Router
from spotter.tools.schedule_args import Days, WorkoutIds
from spotter.tools.spec import Inverse, Output

daily_programming = Router(
    "daily_programming",
    "Daily programming: existing workouts per class type and local date, inherited by its"
    " sessions unless a session overrides (class_sessions.set_workouts). Never compose workouts.",
)


class DayArgs(Args):
    class_type_id: UUID
    day: date


async def _day_out(ctx: ToolContext, class_type_id: UUID, day: date) -> dict[str, Any]:
    class_type = await schedule.get_class_type(ctx.scope, class_type_id)
    workouts = await domain.day_workouts(ctx.scope, class_type_id, day)
    sessions = await domain.sessions_on_day(ctx.scope, ctx.tz, class_type_id, day)
    return {
        "classTypeId": str(class_type_id),
        "classType": class_type["name"],
        "date": day.isoformat(),
        "workouts": domain.workouts_out(workouts),
        "sessions": len(sessions),
        "overridden": sum(1 for s in sessions if s["workouts_override"]),
    }


@daily_programming.read("get", "A class type's workouts on a date.")
async def get_day(ctx: ToolContext, args: DayArgs) -> dict[str, Any]:
    return await _day_out(ctx, args.class_type_id, args.day)


class SetArgs(DayArgs):
    workout_ids: WorkoutIds


def _titles(workouts: list[dict[str, Any]]) -> dict[str, str]:
    return {str(w["id"]): str(w["title"]) for w in workouts}


async def _day_card(
    ctx: ToolContext, class_type_id: UUID, day: date, workout_ids: list[UUID]
) -> Confirmation:
    """A day's whole set of workouts replaced: before and after, and the sessions inheriting."""
    name = await simple_name(ctx.scope, "class_type", class_type_id)
    new = _titles(await domain.check_workouts(ctx.scope, workout_ids))
    old = _titles(await domain.day_workouts(ctx.scope, class_type_id, day))
    sessions = await domain.sessions_on_day(ctx.scope, ctx.tz, class_type_id, day)
    inheriting = sum(1 for s in sessions if not s["workouts_override"])
    return Confirmation(
        target=f"{name} · {format_local_date(day, ctx.caller.locale)}",
        affected_count=inheriting,
        consequences=["day_programming_replaced"],
        changes=[set_change("workouts", old, new)],
    )


async def _set_preview(ctx: ToolContext, args: SetArgs) -> Confirmation:
    return await _day_card(ctx, args.class_type_id, args.day, args.workout_ids)


async def _clear_preview(ctx: ToolContext, args: DayArgs) -> Confirmation:
    return await _day_card(ctx, args.class_type_id, args.day, [])


class ChangedDay(Output):
    """A day after `set` / `clear`, with the workouts it had before."""

    class_type_id: UUID
    day: date = Field(alias="date")
    previous: list[UUID]


_RESTORE = Inverse(
    "set",
    ChangedDay,
    lambda out: SetArgs(class_type_id=out.class_type_id, day=out.day, workout_ids=out.previous),
)


@daily_programming.write(
    "set",
    "Replace a class type's workouts on a date ([] clears).",
    confirm="always",
    preview=_set_preview,
    inverse=_RESTORE,
)
async def set_day(ctx: ToolContext, args: SetArgs) -> ChangedDay:
    previous = await domain.set_day(ctx.scope, args.class_type_id, args.day, args.workout_ids)
    day = await _day_out(ctx, args.class_type_id, args.day)
    return ChangedDay.model_validate({**day, "previous": previous})


@daily_programming.write(
    "clear",
    "Remove a class type's workouts on a date.",
    confirm="always",
    preview=_clear_preview,
    inverse=_RESTORE,
)
async def clear_day(ctx: ToolContext, args: DayArgs) -> ChangedDay:
    previous = await domain.set_day(ctx.scope, args.class_type_id, args.day, [])
    day = await _day_out(ctx, args.class_type_id, args.day)
    return ChangedDay.model_validate({**day, "previous": previous})


class RangeArgs(Args):
    days: Days
    class_type_id: UUID | None = None


@daily_programming.read("list", "Programmed days in a date range.")
async def list_days(ctx: ToolContext, args: RangeArgs) -> dict[str, Any]:
    days = await domain.list_days(ctx.scope, args.days.first, args.days.end, args.class_type_id)
    return {"days": days}


@daily_programming.read(
    "coverage", "Per date and class type: sessions, and how many have workouts (find gaps)."
)
async def coverage(ctx: ToolContext, args: RangeArgs) -> dict[str, Any]:
    rows = await domain.coverage(
        ctx.scope, ctx.tz, args.days.first, args.days.end, args.class_type_id
    )
    return {"days": rows, "gaps": sum(1 for r in rows if r["withWorkouts"] < r["sessions"])}
