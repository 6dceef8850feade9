"""daily_programming — the workouts a class type runs on a date; its sessions inherit them."""

from __future__ import annotations

from datetime import date
from typing import Any
from uuid import UUID

from spotter.domain import programming as domain
from spotter.domain import schedule
from spotter.domain.names import simple_name
from spotter.i18n.dates import format_local_date
from spotter.tools.args import Args
from spotter.tools.cards import Confirmation
from spotter.tools.catalog import agent_tool, describe_router
from spotter.tools.context import ToolContext
from spotter.tools.schedule_args import Days, WorkoutIds
from spotter.tools.spec import Audit, Inverse

R = "daily_programming"
describe_router(
    R,
    "Daily programming: existing workouts per class type and local date, inherited by its"
    " sessions unless a session overrides (class_sessions.set_workouts). Never compose workouts.",
)


class DayArgs(Args):
    class_type_id: UUID
    day: date


async def _day_out(ctx: ToolContext, class_type_id: UUID, day: date) -> dict[str, Any]:
    org = ctx.caller.org_id
    class_type = await schedule.get_class_type(ctx.conn, org, class_type_id)
    workouts = await domain.day_workouts(ctx.conn, org, class_type_id, day)
    sessions = await domain.sessions_on_day(ctx.conn, org, ctx.tz, class_type_id, day)
    return {
        "classTypeId": str(class_type_id),
        "classType": class_type["name"],
        "date": day.isoformat(),
        "workouts": domain.workouts_out(workouts),
        "sessions": len(sessions),
        "overridden": sum(1 for s in sessions if s["workouts_override"]),
    }


@agent_tool(router=R, action="get", summary="A class type's workouts on a date.")
async def get_day(ctx: ToolContext, args: DayArgs) -> dict[str, Any]:
    return await _day_out(ctx, args.class_type_id, args.day)


class SetArgs(DayArgs):
    workout_ids: WorkoutIds


async def _set_preview(ctx: ToolContext, args: SetArgs) -> Confirmation:
    org = ctx.caller.org_id
    name = await simple_name(ctx.conn, org, "class_type", args.class_type_id)
    await domain.check_workouts(ctx.conn, org, args.workout_ids)
    sessions = await domain.sessions_on_day(ctx.conn, org, ctx.tz, args.class_type_id, args.day)
    inheriting = sum(1 for s in sessions if not s["workouts_override"])
    return Confirmation(
        target=f"{name} · {format_local_date(args.day, ctx.caller.locale)}",
        affected_count=inheriting,
        consequences=["day_programming_replaced"],
    )


def _restore_previous(out: dict[str, Any]) -> dict[str, Any]:
    return {"classTypeId": out["classTypeId"], "day": out["date"], "workoutIds": out["previous"]}


@agent_tool(
    router=R,
    action="set",
    summary="Replace a class type's workouts on a date ([] clears).",
    side_effects="write",
    confirm="always",
    preview=_set_preview,
    audit=Audit("daily_programming", "daily_programming.set"),
    inverse=Inverse(R, "set", _restore_previous),
)
async def set_day(ctx: ToolContext, args: SetArgs) -> dict[str, Any]:
    previous = await domain.set_day(
        ctx.conn, ctx.caller.org_id, args.class_type_id, args.day, args.workout_ids
    )
    return {**await _day_out(ctx, args.class_type_id, args.day), "previous": previous}


@agent_tool(
    router=R,
    action="clear",
    summary="Remove a class type's workouts on a date.",
    side_effects="write",
    audit=Audit("daily_programming", "daily_programming.cleared"),
    inverse=Inverse(R, "set", _restore_previous),
)
async def clear_day(ctx: ToolContext, args: DayArgs) -> dict[str, Any]:
    previous = await domain.set_day(ctx.conn, ctx.caller.org_id, args.class_type_id, args.day, [])
    return {**await _day_out(ctx, args.class_type_id, args.day), "previous": previous}


class RangeArgs(Args):
    days: Days
    class_type_id: UUID | None = None


@agent_tool(router=R, action="list", summary="Programmed days in a date range.")
async def list_days(ctx: ToolContext, args: RangeArgs) -> dict[str, Any]:
    days = await domain.list_days(
        ctx.conn, ctx.caller.org_id, args.days.first, args.days.end, args.class_type_id
    )
    return {"days": days}


@agent_tool(
    router=R,
    action="coverage",
    summary="Per date and class type: sessions, and how many have workouts (find gaps).",
)
async def coverage(ctx: ToolContext, args: RangeArgs) -> dict[str, Any]:
    rows = await domain.coverage(
        ctx.conn, ctx.caller.org_id, ctx.tz, args.days.first, args.days.end, args.class_type_id
    )
    return {"days": rows, "gaps": sum(1 for r in rows if r["withWorkouts"] < r["sessions"])}
