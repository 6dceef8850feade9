"""read — look-ups that never change anything (people, programs, workouts, exercises, the
schedule), and the user picker."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import Field, model_validator

from spotter.domain import (
    bookings,
    exercises,
    organizations,
    people,
    programming,
    programs,
    schedule,
    workouts,
)
from spotter.tiers import enabled_features
from spotter.tools.args import Args, NoArgs
from spotter.tools.context import ToolContext
from spotter.tools.errors import NeedsUser
from spotter.tools.router import Router
from spotter.tools.schedule_args import Days

read = Router("read", "Look-ups; nothing changes. Ids come from here.", quick_action=True)

Query = Annotated[str, Field(min_length=1, max_length=100)]
Label = Annotated[str, Field(min_length=1, max_length=120)]


class Candidate(Args):
    id: Annotated[str, Field(min_length=1, max_length=100)]
    label: Label
    sublabel: Label | None = None
    detail: Annotated[str, Field(max_length=200)] | None = None


class PickArgs(Args):
    kind: Literal[
        "member", "coach", "program", "workout", "exercise", "class_session", "class_type", "other"
    ]
    prompt: Annotated[str, Field(min_length=1, max_length=200)]
    candidates: Annotated[list[Candidate], Field(min_length=2, max_length=8)]

    @model_validator(mode="after")
    def _distinct_ids(self) -> PickArgs:
        if len({c.id for c in self.candidates}) != len(self.candidates):
            raise ValueError("candidate ids must be distinct")
        return self


@read.read(
    "ask_user_to_pick",
    "Ask the user to pick one of 2-8 candidates when several fit; waits for the pick.",
    quick_action=False,
    kind="user_picker",
)
async def ask_user_to_pick(ctx: ToolContext, args: PickArgs) -> dict[str, Any]:
    # The orchestrator suspends on a picker and never runs it; the runner refuses it too.
    raise NeedsUser("read.ask_user_to_pick")


@read.read("org", "The gym: name, timezone, tier, features, now.")
async def org(ctx: ToolContext, args: NoArgs) -> dict[str, Any]:
    row = await organizations.get_organization(ctx.scope)
    local = ctx.local_now
    return {
        "name": row["name"],
        "timezone": row["timezone"],
        "locale": row["default_locale"],
        "tier": row["platform_tier"],
        "orgType": row["org_type"],
        "dayGrainProgramming": row["day_grain_programming"],
        "features": sorted(enabled_features(row["platform_tier"], row["feature_flags"])),
        "localDate": local.date().isoformat(),
        "localTime": local.strftime("%H:%M"),
        "weekday": local.strftime("%A"),
    }


class FindMembersArgs(Args):
    query: Query | None = None
    role: Literal["member", "coach", "admin", "owner", "staff"] | None = None
    include_inactive: bool = False
    limit: Annotated[int, Field(ge=1, le=50)] = 10


@read.read(
    "find_members", "Find people by name or email (typo-tolerant); active only unless asked."
)
async def find_members(ctx: ToolContext, args: FindMembersArgs) -> dict[str, Any]:
    if args.role is None:
        roles: tuple[str, ...] = ("member", *people.STAFF_ROLES)
    else:
        roles = people.STAFF_ROLES if args.role == "staff" else (args.role,)
    rows = await people.find_people(
        ctx.scope,
        query=args.query,
        roles=roles,
        include_inactive=args.include_inactive,
        limit=args.limit,
    )
    return {"people": [people.person_out(r) for r in rows]}


class MemberArgs(Args):
    membership_id: UUID


@read.read("member", "One person by membershipId.")
async def member(ctx: ToolContext, args: MemberArgs) -> dict[str, Any]:
    row = await people.get_person(ctx.scope, args.membership_id)
    return people.person_out(row) | {"since": row["created_at"].date().isoformat()}


@read.read("coaches", "Active staff who coach.")
async def coaches(ctx: ToolContext, args: NoArgs) -> dict[str, Any]:
    rows = await people.list_coaches(ctx.scope)
    return {"coaches": [people.person_out(r) for r in rows]}


class ProgramsArgs(Args):
    query: Query | None = None
    include_archived: bool = False


@read.read("programs", "Programs, with their count of upcoming workouts.")
async def read_programs(ctx: ToolContext, args: ProgramsArgs) -> dict[str, Any]:
    today = ctx.local_now.date()
    rows = await programs.list_programs(
        ctx.scope, include_archived=args.include_archived, query=args.query
    )
    return {
        "programs": [
            programs.program_out(r)
            | {"upcoming": await programs.count_upcoming_workouts(ctx.scope, r["id"], today)}
            for r in rows
        ]
    }


class WorkoutsArgs(Args):
    program_id: UUID | None = None
    from_: Annotated[date | None, Field(alias="from")] = None
    to: date | None = None
    query: Query | None = None
    limit: Annotated[int, Field(ge=1, le=100)] = 30


@read.read("workouts", "Workouts by date range, program or title, newest first.")
async def read_workouts(ctx: ToolContext, args: WorkoutsArgs) -> dict[str, Any]:
    rows = await workouts.list_workouts(
        ctx.scope,
        program_id=args.program_id,
        date_from=args.from_,
        date_to=args.to,
        query=args.query,
        limit=args.limit,
    )
    return {"workouts": [workouts.workout_out(r, full=False) for r in rows]}


class ExercisesArgs(Args):
    query: Query | None = None
    category: Query | None = None
    limit: Annotated[int, Field(ge=1, le=50)] = 20


@read.read("exercises", "Search the exercise library by name or alias (DU, T2B, Hebrew names).")
async def read_exercises(ctx: ToolContext, args: ExercisesArgs) -> dict[str, Any]:
    rows = await exercises.search_exercises(
        ctx.scope, query=args.query, category=args.category, limit=args.limit
    )
    return {"exercises": [exercises.exercise_out(r) for r in rows]}


# Schedule lookups: sessions in a range, class types, one session with its roster.


class ScheduleArgs(Args):
    days: Days
    class_type_id: UUID | None = None


@read.read(
    "schedule", "Sessions in a local date range: class, time, coaches, booked/capacity, status."
)
async def read_schedule(ctx: ToolContext, args: ScheduleArgs) -> dict[str, Any]:
    rows = await schedule.list_sessions(
        ctx.scope,
        ctx.tz,
        args.days.first,
        args.days.end,
        class_type_id=args.class_type_id,
    )
    return {"timezone": ctx.tz.key, "sessions": [schedule.session_out(r, ctx.tz) for r in rows]}


@read.read("class_types", "The gym's class types.")
async def read_class_types(ctx: ToolContext, args: NoArgs) -> dict[str, Any]:
    rows = await schedule.list_class_types(ctx.scope)
    return {"classTypes": [schedule.class_type_out(r) for r in rows]}


class SessionArgs(Args):
    session_id: UUID


@read.read("session", "One session with roster and workouts.")
async def read_session(ctx: ToolContext, args: SessionArgs) -> dict[str, Any]:
    row = await schedule.get_session(ctx.scope, args.session_id)
    return {
        **schedule.session_out(row, ctx.tz),
        **await programming.effective_workouts(ctx.scope, row, ctx.tz),
        "roster": await bookings.roster(ctx.scope, args.session_id),
    }
