"""assignments — programs and workouts assigned to members and groups; the groups themselves."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any
from uuid import UUID

from pydantic import Field, model_validator

from spotter.domain import assignments as domain
from spotter.domain import names
from spotter.tools.args import Args
from spotter.tools.cards import Confirmation, set_change
from spotter.tools.context import ToolContext
from spotter.tools.entities import entity_namer
from spotter.tools.errors import ToolArgsError
from spotter.tools.router import Router
from spotter.tools.spec import MANAGERS, Audit, EntityTarget, Identified, Inverse, Output

assignments = Router(
    "assignments",
    "Programs/workouts assigned to members or groups (assignee: memberId or groupId); a group's"
    " assignment applies to each member. Members are membership ids.",
)

GroupName = Annotated[str, Field(min_length=1, max_length=80)]
# Empty lists are allowed no-ops, so the undo of a call that changed nothing still runs.
MemberIds = Annotated[list[UUID], Field(max_length=100)]


@entity_namer("group")
async def _group_namer(ctx: ToolContext, group_id: UUID) -> str:
    return str((await domain.get_group(ctx.scope, group_id))["name"])


@entity_namer("assignment")
async def _assignment_namer(ctx: ToolContext, assignment_id: UUID) -> str:
    return await domain.assignment_label(ctx.scope, assignment_id)


class Assignee(Args):
    member_id: UUID | None = None
    group_id: UUID | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> Assignee:
        if (self.member_id is None) == (self.group_id is None):
            raise ValueError("give exactly one of memberId or groupId")
        return self


class Span(Args):
    starts_on: date | None = None
    ends_on: date | None = None

    @model_validator(mode="after")
    def _ordered(self) -> Span:
        if self.starts_on and self.ends_on and self.ends_on < self.starts_on:
            raise ValueError("endsOn is before startsOn")
        return self


class GroupId(Args):
    group_id: UUID


class AssignmentId(Args):
    assignment_id: UUID


def _dates(ctx: ToolContext, span: Span | None) -> tuple[date, date | None]:
    """A span's dates; the start defaults to today in the org's time zone."""
    starts_on = (span.starts_on if span else None) or ctx.local_now.date()
    ends_on = span.ends_on if span else None
    if ends_on is not None and ends_on < starts_on:
        raise ToolArgsError("endsOn is before the start (today).")
    return starts_on, ends_on


async def _assignment(ctx: ToolContext, assignment_id: UUID, **extra: Any) -> dict[str, Any]:
    row = await domain.get_assignment(ctx.scope, assignment_id)
    return {**domain.assignment_out(row), **extra}


def _ids(ids: list[UUID]) -> list[str]:
    return [str(i) for i in ids]


class GroupRenamed(Identified):
    previous_name: str


class MembersAdded(Identified):
    added: list[UUID]


class MembersRemoved(Identified):
    removed: list[UUID]


class MembersSet(Identified):
    previous_member_ids: list[UUID]


class AssignmentIds(Output):
    assignment_ids: list[UUID]


class Dates(Output):
    starts_on: date
    ends_on: date | None = None


class Rescheduled(Identified):
    previous: Dates


_UNASSIGN = Inverse("unassign", Identified, lambda out: UnassignArgs(assignment_ids=[out.id]))

# ---- groups ---------------------------------------------------------------------------------

# Audited as `group.*`; creating and deleting a group, or replacing its members, is owner/admin.
member_groups = assignments.group(resource="group")
group_admin = member_groups.group(roles=MANAGERS)


class ListGroupsArgs(Args):
    query: str | None = None


@assignments.read("list_groups", "List groups.")
async def list_groups(ctx: ToolContext, args: ListGroupsArgs) -> dict[str, Any]:
    return {"groups": await domain.list_groups(ctx.scope, args.query)}


@assignments.read("get_group", "A group with its members.")
async def get_group(ctx: ToolContext, args: GroupId) -> dict[str, Any]:
    return await domain.group_out(ctx.scope, args.group_id)


class CreateGroupArgs(Args):
    name: GroupName
    member_ids: list[UUID] = Field(default=[], max_length=100)


@group_admin.write(
    "create_group",
    "Create a group, optionally with members.",
    inverse=Inverse("delete_group", Identified, lambda out: GroupId(group_id=out.id)),
)
async def create_group(ctx: ToolContext, args: CreateGroupArgs) -> Identified:
    group_id = await domain.create_group(
        ctx.scope, args.name, list(dict.fromkeys(args.member_ids)), user_id=ctx.caller.user_id
    )
    return Identified.model_validate(await domain.group_out(ctx.scope, group_id))


class RenameGroupArgs(GroupId):
    name: GroupName


@member_groups.write(
    "rename_group",
    "Rename a group.",
    inverse=Inverse(
        "rename_group",
        GroupRenamed,
        lambda out: RenameGroupArgs(group_id=out.id, name=out.previous_name),
    ),
)
async def rename_group(ctx: ToolContext, args: RenameGroupArgs) -> GroupRenamed:
    previous = await domain.rename_group(ctx.scope, args.group_id, args.name)
    return GroupRenamed.model_validate(
        {**await domain.group_out(ctx.scope, args.group_id), "previousName": previous}
    )


async def _delete_group_preview(ctx: ToolContext, args: GroupId) -> Confirmation:
    live = await domain.live_group_assignments(ctx.scope, args.group_id)
    return Confirmation(
        affected_count=len(live),
        consequences=["group_deleted"] + (["ends_active_assignments"] if live else []),
    )


@group_admin.write(
    "delete_group",
    "Delete a group; ends its live assignments.",
    confirm="destructive",
    preview=_delete_group_preview,
    target=EntityTarget("group", "group_id"),
)
async def delete_group(ctx: ToolContext, args: GroupId) -> dict[str, Any]:
    ended = await domain.delete_group(ctx.scope, args.group_id, ctx.local_now.date())
    return {"id": str(args.group_id), "deleted": True, "endedAssignments": ended}


class MembersArgs(GroupId):
    member_ids: MemberIds


@member_groups.write(
    "add_members",
    "Add members to a group; they get its live assignments.",
    inverse=Inverse(
        "remove_members",
        MembersAdded,
        lambda out: MembersArgs(group_id=out.id, member_ids=out.added),
    ),
)
async def add_members(ctx: ToolContext, args: MembersArgs) -> MembersAdded:
    added = await domain.add_members(
        ctx.scope,
        args.group_id,
        list(dict.fromkeys(args.member_ids)),
        user_id=ctx.caller.user_id,
    )
    return MembersAdded.model_validate(
        {**await domain.group_out(ctx.scope, args.group_id), "added": _ids(added)}
    )


@member_groups.write(
    "remove_members",
    "Remove members from a group; their assignments from it end.",
    inverse=Inverse(
        "add_members",
        MembersRemoved,
        lambda out: MembersArgs(group_id=out.id, member_ids=out.removed),
    ),
)
async def remove_members(ctx: ToolContext, args: MembersArgs) -> MembersRemoved:
    removed = await domain.remove_members(
        ctx.scope, args.group_id, list(dict.fromkeys(args.member_ids)), ctx.local_now.date()
    )
    return MembersRemoved.model_validate(
        {**await domain.group_out(ctx.scope, args.group_id), "removed": _ids(removed)}
    )


class SetMembersArgs(GroupId):
    member_ids: list[UUID] = Field(max_length=1000)


async def _member_diff(ctx: ToolContext, args: SetMembersArgs) -> tuple[list[UUID], list[UUID]]:
    current = await domain.group_member_ids(ctx.scope, args.group_id)
    wanted = list(dict.fromkeys(args.member_ids))
    return [m for m in wanted if m not in current], [m for m in current if m not in wanted]


def _by_name(people: dict[str, str]) -> dict[str, str]:
    """A group is a set: shown in name order."""
    return dict(sorted(people.items(), key=lambda person: person[1].lower()))


async def _set_members_preview(ctx: ToolContext, args: SetMembersArgs) -> Confirmation:
    await domain.get_group(ctx.scope, args.group_id)
    added, removed = await _member_diff(ctx, args)
    if added:
        await domain.require_active_members(ctx.scope, added)
    ending = await domain.derived_live_count(ctx.scope, args.group_id, removed)
    current = await domain.group_member_ids(ctx.scope, args.group_id)
    old = _by_name(await names.member_names_by_id(ctx.scope, current))
    new = _by_name(await names.member_names_by_id(ctx.scope, list(dict.fromkeys(args.member_ids))))
    return Confirmation(
        affected_count=len(added) + len(removed),
        consequences=["replaces_group_members"] + (["ends_group_assignments"] if ending else []),
        changes=[set_change("members", old, new)],
    )


@group_admin.write(
    "set_members",
    "Replace a group's members.",
    confirm="always",
    preview=_set_members_preview,
    target=EntityTarget("group", "group_id"),
    inverse=Inverse(
        "set_members",
        MembersSet,
        lambda out: SetMembersArgs(group_id=out.id, member_ids=out.previous_member_ids),
    ),
)
async def set_members(ctx: ToolContext, args: SetMembersArgs) -> MembersSet:
    await domain.get_group(ctx.scope, args.group_id)
    previous = await domain.group_member_ids(ctx.scope, args.group_id)
    added, removed = await _member_diff(ctx, args)
    if removed:
        await domain.remove_members(ctx.scope, args.group_id, removed, ctx.local_now.date())
    if added:
        await domain.add_members(ctx.scope, args.group_id, added, user_id=ctx.caller.user_id)
    return MembersSet.model_validate(
        {
            **await domain.group_out(ctx.scope, args.group_id),
            "added": _ids(added),
            "removed": _ids(removed),
            "previousMemberIds": _ids(previous),
        }
    )


# ---- assigning ------------------------------------------------------------------------------

# A program or a workout: audited as a created assignment, undone by unassigning it.
assigning = assignments.group(audit=Audit("assignment", "assignment.created"), inverse=_UNASSIGN)


class AssignProgramArgs(Args):
    program_id: UUID
    assignee: Assignee
    span: Span | None = None


@assigning.write("assign_program", "Assign a program (start defaults to today; no end = open).")
async def assign_program(ctx: ToolContext, args: AssignProgramArgs) -> Identified:
    starts_on, ends_on = _dates(ctx, args.span)
    new_id, skipped = await domain.assign(
        ctx.scope,
        domain.Subject(program_id=args.program_id),
        domain.Assignee(args.assignee.member_id, args.assignee.group_id),
        starts_on,
        ends_on,
        user_id=ctx.caller.user_id,
    )
    return Identified.model_validate(await _assignment(ctx, new_id, skippedMemberIds=_ids(skipped)))


class AssignWorkoutArgs(Args):
    workout_id: UUID
    assignee: Assignee
    on: date | None = None


@assigning.write("assign_workout", "Assign one workout (on defaults to its date, else today).")
async def assign_workout(ctx: ToolContext, args: AssignWorkoutArgs) -> Identified:
    on = args.on or await domain.workout_date(ctx.scope, args.workout_id) or ctx.local_now.date()
    new_id, skipped = await domain.assign(
        ctx.scope,
        domain.Subject(workout_id=args.workout_id),
        domain.Assignee(args.assignee.member_id, args.assignee.group_id),
        on,
        on,
        user_id=ctx.caller.user_id,
    )
    return Identified.model_validate(await _assignment(ctx, new_id, skippedMemberIds=_ids(skipped)))


class BulkAssignArgs(Args):
    program_id: UUID
    member_ids: Annotated[list[UUID], Field(min_length=1, max_length=100)]
    span: Span | None = None


@assignments.write(
    "bulk_assign",
    "Assign a program to many members; those already on it are skipped.",
    audit=Audit("assignment", "assignment.bulk_created"),
    inverse=Inverse(
        "unassign", AssignmentIds, lambda out: UnassignArgs(assignment_ids=out.assignment_ids)
    ),
)
async def bulk_assign(ctx: ToolContext, args: BulkAssignArgs) -> AssignmentIds:
    starts_on, ends_on = _dates(ctx, args.span)
    created, skipped = await domain.bulk_assign(
        ctx.scope,
        args.program_id,
        args.member_ids,
        starts_on,
        ends_on,
        user_id=ctx.caller.user_id,
    )
    return AssignmentIds.model_validate(
        {"assignmentIds": _ids(created), "skippedMemberIds": _ids(skipped)}
    )


class UnassignArgs(Args):
    assignment_ids: Annotated[list[UUID], Field(max_length=100)]


async def _unassign_preview(ctx: ToolContext, args: UnassignArgs) -> Confirmation:
    rows = [await domain.get_assignment(ctx.scope, i) for i in args.assignment_ids]
    groups = any(r["group_id"] is not None for r in rows)
    return Confirmation(
        target=await domain.assignment_label(ctx.scope, rows[0]["id"]) if len(rows) == 1 else None,
        affected_count=len(rows),
        consequences=["cancels_assignments"] + (["cancels_group_members_copies"] if groups else []),
    )


@assignments.write(
    "unassign",
    "Cancel assignments (a group's: for all its members).",
    confirm="destructive",
    preview=_unassign_preview,
    audit=Audit("assignment", "assignment.cancelled"),
)
async def unassign(ctx: ToolContext, args: UnassignArgs) -> dict[str, Any]:
    ids = list(dict.fromkeys(args.assignment_ids))
    cancelled = await domain.cancel(ctx.scope, ids)
    return {"assignmentIds": _ids(ids), "cancelledRows": cancelled}


# ---- reading --------------------------------------------------------------------------------


@assignments.read("get", "One assignment.")
async def get_assignment(ctx: ToolContext, args: AssignmentId) -> dict[str, Any]:
    return await _assignment(ctx, args.assignment_id)


class ForMemberArgs(Args):
    member_id: UUID
    include_ended: bool = False


class ForProgramArgs(Args):
    program_id: UUID
    include_ended: bool = False


class ForGroupArgs(GroupId):
    include_ended: bool = False


def _listed(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"assignments": [domain.assignment_out(r) for r in rows]}


@assignments.read("list_for_member", "A member's assignments (live).")
async def list_for_member(ctx: ToolContext, args: ForMemberArgs) -> dict[str, Any]:
    return _listed(
        await domain.list_assignments(
            ctx.scope, member_id=args.member_id, include_ended=args.include_ended
        )
    )


@assignments.read("list_for_program", "Who has a program (live).")
async def list_for_program(ctx: ToolContext, args: ForProgramArgs) -> dict[str, Any]:
    return _listed(
        await domain.list_assignments(
            ctx.scope,
            program_id=args.program_id,
            include_ended=args.include_ended,
        )
    )


@assignments.read("list_for_group", "A group's assignments (live).")
async def list_for_group(ctx: ToolContext, args: ForGroupArgs) -> dict[str, Any]:
    return _listed(
        await domain.list_assignments(
            ctx.scope, group_id=args.group_id, include_ended=args.include_ended
        )
    )


# ---- changing one ---------------------------------------------------------------------------


class RescheduleArgs(AssignmentId):
    starts_on: date
    ends_on: date | None = None

    @model_validator(mode="after")
    def _ordered(self) -> RescheduleArgs:
        if self.ends_on and self.ends_on < self.starts_on:
            raise ValueError("endsOn is before startsOn")
        return self


def _reschedule_back(out: Rescheduled) -> RescheduleArgs:
    dates = out.previous
    return RescheduleArgs(assignment_id=out.id, starts_on=dates.starts_on, ends_on=dates.ends_on)


@assignments.write(
    "reschedule",
    "Change an assignment's dates (no endsOn = open).",
    inverse=Inverse("reschedule", Rescheduled, _reschedule_back),
)
async def reschedule(ctx: ToolContext, args: RescheduleArgs) -> Rescheduled:
    before = await _assignment(ctx, args.assignment_id)
    await domain.reschedule(ctx.scope, args.assignment_id, args.starts_on, args.ends_on)
    previous = {"startsOn": before["startsOn"], "endsOn": before.get("endsOn")}
    return Rescheduled.model_validate(await _assignment(ctx, args.assignment_id, previous=previous))


@assignments.write(
    "pause",
    "Pause an active assignment.",
    inverse=Inverse("resume", Identified, lambda out: AssignmentId(assignment_id=out.id)),
)
async def pause(ctx: ToolContext, args: AssignmentId) -> Identified:
    await domain.set_status(ctx.scope, args.assignment_id, expected="active", to="paused")
    return Identified.model_validate(await _assignment(ctx, args.assignment_id))


@assignments.write(
    "resume",
    "Resume a paused assignment.",
    inverse=Inverse("pause", Identified, lambda out: AssignmentId(assignment_id=out.id)),
)
async def resume(ctx: ToolContext, args: AssignmentId) -> Identified:
    await domain.set_status(ctx.scope, args.assignment_id, expected="paused", to="active")
    return Identified.model_validate(await _assignment(ctx, args.assignment_id))


class EndArgs(AssignmentId):
    on: date | None = None


@assignments.write(
    "end",
    "End an assignment (on: last day, default today; later dates stay live until then).",
    confirm="destructive",
    target=EntityTarget("assignment", "assignment_id"),
    consequences=("ends_assignment",),
)
async def end(ctx: ToolContext, args: EndArgs) -> dict[str, Any]:
    today = ctx.local_now.date()
    await domain.end_assignment(ctx.scope, args.assignment_id, args.on or today, today)
    return await _assignment(ctx, args.assignment_id)
