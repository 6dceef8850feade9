"""programs — tracks of workouts."""

from __future__ import annotations

from typing import Annotated, Any
from uuid import UUID

from pydantic import Field

from spotter.domain import programs as domain
from spotter.tools.args import Args
from spotter.tools.cards import Confirmation
from spotter.tools.catalog import agent_tool, describe_router
from spotter.tools.context import ToolContext
from spotter.tools.spec import MANAGERS, Audit, EntityTarget, NameTarget, id_inverse

describe_router("programs", "Programs: named tracks that workouts belong to.")

Name = Annotated[str, Field(min_length=1, max_length=120)]


class ListArgs(Args):
    query: str | None = None
    include_archived: bool = False


@agent_tool(router="programs", action="list", summary="List programs (active unless asked).")
async def list_programs(ctx: ToolContext, args: ListArgs) -> dict[str, Any]:
    rows = await domain.list_programs(
        ctx.conn, ctx.caller.org_id, include_archived=args.include_archived, query=args.query
    )
    return {"programs": [domain.program_out(r) for r in rows]}


class CreateArgs(Args):
    name: Name
    description: str | None = None


@agent_tool(
    router="programs",
    action="create",
    summary="Create a program.",
    roles=MANAGERS,
    side_effects="write",
    audit=Audit("program", "program.created"),
    inverse=id_inverse("programs", "archive", key="programId"),
    target=NameTarget(("name",)),
    quick_action=True,
)
async def create_program(ctx: ToolContext, args: CreateArgs) -> dict[str, Any]:
    row = await domain.create_program(
        ctx.conn, ctx.caller.org_id, name=args.name, description=args.description
    )
    return domain.program_out(row)


class UpdateArgs(Args):
    program_id: UUID
    name: Name | None = None
    description: str | None = None


@agent_tool(
    router="programs",
    action="update",
    summary="Rename a program or change its description.",
    roles=MANAGERS,
    side_effects="write",
    audit=Audit("program", "program.updated"),
)
async def update_program(ctx: ToolContext, args: UpdateArgs) -> dict[str, Any]:
    row = await domain.update_program(
        ctx.conn, ctx.caller.org_id, args.program_id, name=args.name, description=args.description
    )
    return domain.program_out(row)


class ArchiveArgs(Args):
    program_id: UUID


async def _archive_preview(ctx: ToolContext, args: ArchiveArgs) -> Confirmation:
    upcoming = await domain.count_upcoming_workouts(
        ctx.conn, ctx.caller.org_id, args.program_id, ctx.local_now.date()
    )
    return Confirmation(
        affected_count=upcoming,
        consequences=["program_hidden_from_schedule"]
        + (["upcoming_workouts_unpublished"] if upcoming else []),
    )


@agent_tool(
    router="programs",
    action="archive",
    summary="Archive a program; its upcoming workouts stop showing.",
    roles=MANAGERS,
    side_effects="write",
    confirm="destructive",
    preview=_archive_preview,
    target=EntityTarget("program", "program_id"),
    audit=Audit("program", "program.archived"),
)
async def archive_program(ctx: ToolContext, args: ArchiveArgs) -> dict[str, Any]:
    row = await domain.set_program_status(ctx.conn, ctx.caller.org_id, args.program_id, "archived")
    return domain.program_out(row)
