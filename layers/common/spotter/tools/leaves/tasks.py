"""tasks — staff to-dos with due dates and assignees, optionally about a lead or a member."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import Field

from spotter.domain import tasks as domain
from spotter.domain.staff import staff_user_id
from spotter.tools.args import Args, Title
from spotter.tools.context import ToolContext
from spotter.tools.entities import entity_namer
from spotter.tools.router import Router
from spotter.tools.spec import STAFF, EntityTarget, Identified, Inverse, NameTarget, Output

tasks = Router(
    "tasks", "Staff tasks. assigneeId: a staff memberId; dueOn: a local date.", roles=STAFF
)

Notes = Annotated[str, Field(max_length=4000)]


@entity_namer("task")
async def _task_title(ctx: ToolContext, task_id: UUID) -> str:
    return await domain.task_title(ctx.scope, task_id)


class TaskArgs(Args):
    task_id: UUID


class ListArgs(Args):
    status: Literal["open", "done", "all"] = "open"
    assignee_id: UUID | None = None
    lead_id: UUID | None = None
    member_id: UUID | None = None
    due_by: date | None = None


@tasks.read("list", "Tasks, soonest due first (open unless asked).")
async def list_tasks(ctx: ToolContext, args: ListArgs) -> dict[str, Any]:
    assignee = await staff_user_id(ctx.scope, args.assignee_id) if args.assignee_id else None
    found = await domain.list_tasks(
        ctx.scope,
        ctx.local_now.date(),
        status=None if args.status == "all" else args.status,
        assignee_user_id=assignee,
        lead_id=args.lead_id,
        membership_id=args.member_id,
        due_by=args.due_by,
    )
    return {"tasks": found}


class CreateArgs(Args):
    title: Title
    notes: Notes | None = None
    due_on: date | None = None
    assignee_id: UUID | None = None
    lead_id: UUID | None = None
    member_id: UUID | None = None


@tasks.write(
    "create",
    "Create a task (about a lead or member optional).",
    target=NameTarget(("title",)),
    inverse=Inverse("delete", Identified, lambda out: TaskArgs(task_id=out.id)),
)
async def create_task(ctx: ToolContext, args: CreateArgs) -> Identified:
    assignee = await staff_user_id(ctx.scope, args.assignee_id) if args.assignee_id else None
    made = await domain.create_task(
        ctx.scope,
        ctx.caller.user_id,
        ctx.local_now.date(),
        title=args.title,
        notes=args.notes,
        due_on=args.due_on,
        assignee_user_id=assignee,
        lead_id=args.lead_id,
        membership_id=args.member_id,
    )
    return Identified.model_validate(made)


class UpdateArgs(Args):
    task_id: UUID
    title: Title | None = None
    notes: Notes | None = None
    due_on: date | None = None
    assignee_id: UUID | None = None


@tasks.write("update", "Change a task's title, notes, due date or assignee.")
async def update_task(ctx: ToolContext, args: UpdateArgs) -> dict[str, Any]:
    changes: dict[str, Any] = {
        k: v for k, v in (("title", args.title), ("notes", args.notes), ("due_on", args.due_on))
        if v is not None
    }  # fmt: skip
    if args.assignee_id is not None:
        changes["assignee_user_id"] = await staff_user_id(ctx.scope, args.assignee_id)
    return await domain.update_task(ctx.scope, args.task_id, ctx.local_now.date(), changes)


class CompleteArgs(Args):
    task_id: UUID
    done: bool = True


class Completed(Output):
    id: UUID
    status: Literal["open", "done"]


@tasks.write(
    "complete",
    "Mark a task done (done: false reopens it).",
    inverse=Inverse(
        "complete", Completed, lambda out: CompleteArgs(task_id=out.id, done=out.status == "open")
    ),
)
async def complete_task(ctx: ToolContext, args: CompleteArgs) -> Completed:
    done = await domain.complete_task(ctx.scope, args.task_id, ctx.local_now.date(), args.done)
    return Completed.model_validate(done)


@tasks.write(
    "delete",
    "Delete a task.",
    confirm="destructive",
    target=EntityTarget("task", "task_id"),
    consequences=("task_deleted",),
)
async def delete_task(ctx: ToolContext, args: TaskArgs) -> dict[str, Any]:
    return await domain.delete_task(ctx.scope, args.task_id)
