"""programs — tracks of workouts."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from spotter.domain import programs as domain
from spotter.tools.args import Args, Name
from spotter.tools.cards import Confirmation
from spotter.tools.context import ToolContext
from spotter.tools.router import Router
from spotter.tools.spec import MANAGERS, STAFF, EntityTarget, Identified, Inverse, NameTarget

programs = Router("programs", "Programs: named tracks that workouts belong to.", roles=MANAGERS)


class ListArgs(Args):
    query: str | None = None
    include_archived: bool = False


@programs.read("list", "List programs (active unless asked).", roles=STAFF)
async def list_programs(ctx: ToolContext, args: ListArgs) -> dict[str, Any]:
    rows = await domain.list_programs(
        ctx.scope, include_archived=args.include_archived, query=args.query
    )
    return {"programs": [domain.program_out(r) for r in rows]}


class CreateArgs(Args):
    name: Name
    description: str | None = None


@programs.write(
    "create",
    "Create a program.",
    quick_action=True,
    inverse=Inverse("archive", Identified, lambda out: ArchiveArgs(program_id=out.id)),
    target=NameTarget(("name",)),
)
async def create_program(ctx: ToolContext, args: CreateArgs) -> Identified:
    row = await domain.create_program(ctx.scope, name=args.name, description=args.description)
    return Identified.model_validate(domain.program_out(row))


class UpdateArgs(Args):
    program_id: UUID
    name: Name | None = None
    description: str | None = None


@programs.write("update", "Rename a program or change its description.")
async def update_program(ctx: ToolContext, args: UpdateArgs) -> dict[str, Any]:
    row = await domain.update_program(
        ctx.scope, args.program_id, name=args.name, description=args.description
    )
    return domain.program_out(row)


class ArchiveArgs(Args):
    program_id: UUID


async def _archive_preview(ctx: ToolContext, args: ArchiveArgs) -> Confirmation:
    upcoming = await domain.count_upcoming_workouts(
        ctx.scope, args.program_id, ctx.local_now.date()
    )
    return Confirmation(
        affected_count=upcoming,
        consequences=["program_hidden_from_schedule"]
        + (["upcoming_workouts_unpublished"] if upcoming else []),
    )


@programs.write(
    "archive",
    "Archive a program; its upcoming workouts stop showing.",
    confirm="destructive",
    preview=_archive_preview,
    target=EntityTarget("program", "program_id"),
)
async def archive_program(ctx: ToolContext, args: ArchiveArgs) -> dict[str, Any]:
    row = await domain.set_program_status(ctx.scope, args.program_id, "archived")
    return domain.program_out(row)
