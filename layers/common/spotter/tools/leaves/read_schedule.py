"""read — schedule lookups: sessions in a range, class types, one session with its roster.

The `read` router's description belongs to its own module; these are three of its actions.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from spotter.domain import bookings, programming, schedule
from spotter.tools.args import Args, NoArgs
from spotter.tools.catalog import agent_tool
from spotter.tools.context import ToolContext
from spotter.tools.schedule_args import Days


class ScheduleArgs(Args):
    days: Days
    class_type_id: UUID | None = None


@agent_tool(
    router="read",
    action="schedule",
    summary="Sessions in a local date range: class, time, coaches, booked/capacity, status.",
    quick_action=True,
)
async def read_schedule(ctx: ToolContext, args: ScheduleArgs) -> dict[str, Any]:
    rows = await schedule.list_sessions(
        ctx.conn,
        ctx.caller.org_id,
        ctx.tz,
        args.days.first,
        args.days.end,
        class_type_id=args.class_type_id,
    )
    return {"timezone": ctx.tz.key, "sessions": [schedule.session_out(r, ctx.tz) for r in rows]}


@agent_tool(
    router="read", action="class_types", summary="The gym's class types.", quick_action=True
)
async def read_class_types(ctx: ToolContext, args: NoArgs) -> dict[str, Any]:
    rows = await schedule.list_class_types(ctx.conn, ctx.caller.org_id)
    return {"classTypes": [schedule.class_type_out(r) for r in rows]}


class SessionArgs(Args):
    session_id: UUID


@agent_tool(
    router="read",
    action="session",
    summary="One session with roster and workouts.",
    quick_action=True,
)
async def read_session(ctx: ToolContext, args: SessionArgs) -> dict[str, Any]:
    org = ctx.caller.org_id
    row = await schedule.get_session(ctx.conn, org, args.session_id)
    return {
        **schedule.session_out(row, ctx.tz),
        **await programming.effective_workouts(ctx.conn, org, row, ctx.tz),
        "roster": await bookings.roster(ctx.conn, org, args.session_id),
    }
