"""program_templates — reusable day sequences applied to programs (tier feature gated)."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any
from uuid import UUID

from pydantic import Field, model_validator

from spotter.domain import program_templates as domain
from spotter.domain import programs
from spotter.tools.args import Args
from spotter.tools.cards import Confirmation
from spotter.tools.catalog import agent_tool, describe_router
from spotter.tools.context import ToolContext
from spotter.tools.previews import entity_namer
from spotter.tools.spec import Audit, EntityTarget, Inverse, id_inverse

ROUTER = "program_templates"
GATE = "program_templates"

describe_router(
    ROUTER, "Program templates: reusable days (offset from day 0 -> workout) applied to programs."
)

Name = Annotated[str, Field(min_length=1, max_length=120)]


@entity_namer("program_template")
async def _template_namer(ctx: ToolContext, template_id: UUID) -> str:
    return await domain.template_name(ctx.conn, ctx.caller.org_id, template_id)


class TemplateDay(Args):
    day_offset: int = Field(ge=0, le=365)
    title: str = Field(min_length=1, max_length=200)
    description: str | None = None
    # The shape of workouts.parts; stored as given.
    parts: list[dict[str, Any]] = Field(default=[], max_length=20)


Days = Annotated[list[TemplateDay], Field(max_length=366)]


class DateSpan(Args):
    starts_on: date
    ends_on: date

    @model_validator(mode="after")
    def _ordered(self) -> DateSpan:
        if self.ends_on < self.starts_on:
            raise ValueError("endsOn is before startsOn")
        return self


def _days(days: list[TemplateDay]) -> list[domain.Day]:
    return [domain.Day(d.day_offset, d.title, d.description, d.parts) for d in days]


def _day_input(day: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in day.items() if v is not None}


class TemplateId(Args):
    template_id: UUID


class ListArgs(Args):
    query: str | None = None


@agent_tool(router=ROUTER, action="list", summary="List templates.", feature_gate=GATE)
async def list_templates(ctx: ToolContext, args: ListArgs) -> dict[str, Any]:
    return {"templates": await domain.list_templates(ctx.conn, ctx.caller.org_id, args.query)}


@agent_tool(router=ROUTER, action="get", summary="A template with its days.", feature_gate=GATE)
async def get_template(ctx: ToolContext, args: TemplateId) -> dict[str, Any]:
    return await domain.template_out(ctx.conn, ctx.caller.org_id, args.template_id)


class CreateArgs(Args):
    name: Name
    description: str | None = None
    days: Days = Field(default=[])
    from_program_id: UUID | None = None
    span: DateSpan | None = None

    @model_validator(mode="after")
    def _one_source(self) -> CreateArgs:
        if (self.from_program_id is None) != (self.span is None):
            raise ValueError("fromProgramId and span go together")
        if self.from_program_id is not None and self.days:
            raise ValueError("give days or fromProgramId, not both")
        return self


_DELETE = id_inverse(ROUTER, "delete", key="templateId")


@agent_tool(
    router=ROUTER,
    action="create",
    summary="Create a template from days, or from a program's workouts in span.",
    side_effects="write",
    audit=Audit("program_template", "program_template.created"),
    inverse=_DELETE,
    feature_gate=GATE,
)
async def create_template(ctx: ToolContext, args: CreateArgs) -> dict[str, Any]:
    org = ctx.caller.org_id
    days = _days(args.days)
    if args.from_program_id is not None and args.span is not None:
        days = await domain.days_from_program(
            ctx.conn, org, args.from_program_id, args.span.starts_on, args.span.ends_on
        )
    template_id = await domain.create_template(
        ctx.conn, org, name=args.name, description=args.description, days=days
    )
    return await domain.template_out(ctx.conn, org, template_id)


class UpdateArgs(TemplateId):
    name: Name | None = None
    description: str | None = None


@agent_tool(
    router=ROUTER,
    action="update",
    summary="Rename or redescribe.",
    side_effects="write",
    audit=Audit("program_template", "program_template.updated"),
    feature_gate=GATE,
)
async def update_template(ctx: ToolContext, args: UpdateArgs) -> dict[str, Any]:
    org = ctx.caller.org_id
    await domain.update_template(
        ctx.conn, org, args.template_id, name=args.name, description=args.description
    )
    return await domain.template_out(ctx.conn, org, args.template_id)


class SetDaysArgs(TemplateId):
    days: Days


async def _set_days_preview(ctx: ToolContext, args: SetDaysArgs) -> Confirmation:
    old = await domain.list_days(ctx.conn, ctx.caller.org_id, args.template_id)
    old_titles = {d.day_offset: d.title for d in old}
    new_titles = {d.day_offset: d.title for d in args.days}
    changes = [
        {"field": f"day {o}", "old": old_titles.get(o), "new": new_titles.get(o)}
        for o in sorted(old_titles.keys() | new_titles.keys())
        if old_titles.get(o) != new_titles.get(o)
    ]
    return Confirmation(
        affected_count=len(args.days),
        consequences=["replaces_all_days"] if old else [],
        changes=changes,
    )


@agent_tool(
    router=ROUTER,
    action="set_days",
    summary="Replace all days.",
    side_effects="write",
    confirm="always",
    preview=_set_days_preview,
    target=EntityTarget("program_template", "template_id"),
    audit=Audit("program_template", "program_template.days_set"),
    inverse=Inverse(
        ROUTER,
        "set_days",
        lambda out: {
            "templateId": out["id"],
            "days": [_day_input(d) for d in out["previousDays"]],
        },
    ),
    feature_gate=GATE,
)
async def set_days(ctx: ToolContext, args: SetDaysArgs) -> dict[str, Any]:
    org = ctx.caller.org_id
    await domain.get_template(ctx.conn, org, args.template_id)
    previous = await domain.set_days(ctx.conn, org, args.template_id, _days(args.days))
    out = await domain.template_out(ctx.conn, org, args.template_id)
    return {**out, "previousDays": [domain.day_out(d) for d in previous]}


class AddDayArgs(TemplateId):
    day: TemplateDay


@agent_tool(
    router=ROUTER,
    action="add_day",
    summary="Add a day (its offset must be free).",
    side_effects="write",
    audit=Audit("program_template", "program_template.day_added"),
    inverse=Inverse(
        ROUTER,
        "remove_day",
        lambda out: {"templateId": out["id"], "dayOffset": out["day"]["dayOffset"]},
    ),
    feature_gate=GATE,
)
async def add_day(ctx: ToolContext, args: AddDayArgs) -> dict[str, Any]:
    org = ctx.caller.org_id
    day = _days([args.day])[0]
    await domain.add_day(ctx.conn, org, args.template_id, day)
    return {
        **await domain.template_out(ctx.conn, org, args.template_id),
        "day": domain.day_out(day),
    }


class RemoveDayArgs(TemplateId):
    day_offset: int = Field(ge=0, le=365)


@agent_tool(
    router=ROUTER,
    action="remove_day",
    summary="Remove a day.",
    side_effects="write",
    audit=Audit("program_template", "program_template.day_removed"),
    inverse=Inverse(
        ROUTER, "add_day", lambda out: {"templateId": out["id"], "day": _day_input(out["day"])}
    ),
    feature_gate=GATE,
)
async def remove_day(ctx: ToolContext, args: RemoveDayArgs) -> dict[str, Any]:
    org = ctx.caller.org_id
    removed = await domain.remove_day(ctx.conn, org, args.template_id, args.day_offset)
    out = await domain.template_out(ctx.conn, org, args.template_id)
    return {**out, "day": domain.day_out(removed)}


class DuplicateArgs(TemplateId):
    name: Name


@agent_tool(
    router=ROUTER,
    action="duplicate",
    summary="Copy a template under a new name.",
    side_effects="write",
    audit=Audit("program_template", "program_template.created"),
    inverse=_DELETE,
    feature_gate=GATE,
)
async def duplicate_template(ctx: ToolContext, args: DuplicateArgs) -> dict[str, Any]:
    org = ctx.caller.org_id
    source = await domain.get_template(ctx.conn, org, args.template_id)
    days = await domain.list_days(ctx.conn, org, args.template_id)
    new_id = await domain.create_template(
        ctx.conn, org, name=args.name, description=source["description"], days=days
    )
    return await domain.template_out(ctx.conn, org, new_id)


@agent_tool(
    router=ROUTER,
    action="delete",
    summary="Delete a template (workouts it wrote stay).",
    side_effects="write",
    confirm="destructive",
    target=EntityTarget("program_template", "template_id"),
    consequences=("template_deleted",),
    audit=Audit("program_template", "program_template.deleted"),
    feature_gate=GATE,
)
async def delete_template(ctx: ToolContext, args: TemplateId) -> dict[str, Any]:
    await domain.delete_template(ctx.conn, ctx.caller.org_id, args.template_id)
    return {"id": str(args.template_id), "deleted": True}


class ApplyArgs(TemplateId):
    program_id: UUID
    starts_on: date


async def _apply_preview(ctx: ToolContext, args: ApplyArgs) -> Confirmation:
    org = ctx.caller.org_id
    plan = await domain.plan_application(
        ctx.conn, org, args.template_id, args.program_id, args.starts_on
    )
    template = await domain.template_name(ctx.conn, org, args.template_id)
    program = (await programs.get_program(ctx.conn, org, args.program_id))["name"]
    changes = [
        {
            "field": p.on.isoformat(),
            "old": " / ".join(w["title"] for w in p.replaces),
            "new": p.day.title,
        }
        for p in plan
        if p.replaces
    ]
    return Confirmation(
        target=f"{template} → {program}",
        affected_count=len(plan),
        consequences=["writes_draft_workouts"]
        + (["replaces_existing_workouts"] if changes else []),
        changes=changes or None,
    )


@agent_tool(
    router=ROUTER,
    action="apply",
    summary="Write the template's workouts into a program from startsOn (replaces those days').",
    side_effects="write",
    confirm="always",
    preview=_apply_preview,
    audit=Audit("program_template", "program_template.applied"),
    inverse=id_inverse(ROUTER, "unapply", key="applicationId"),
    feature_gate=GATE,
)
async def apply_template(ctx: ToolContext, args: ApplyArgs) -> dict[str, Any]:
    return await domain.apply_template(
        ctx.conn,
        ctx.caller.org_id,
        args.template_id,
        args.program_id,
        args.starts_on,
        user_id=ctx.caller.user_id,
    )


class UnapplyArgs(Args):
    application_id: UUID


async def _unapply_preview(ctx: ToolContext, args: UnapplyArgs) -> Confirmation:
    org = ctx.caller.org_id
    application = await domain.get_application(ctx.conn, org, args.application_id)
    return Confirmation(
        target=f"{application['template_name']} → {application['program_name']}",
        affected_count=await domain.live_written_count(ctx.conn, org, application),
        consequences=["removes_applied_workouts"]
        + (["restores_replaced_workouts"] if application["replaced_workout_ids"] else []),
    )


@agent_tool(
    router=ROUTER,
    action="unapply",
    summary="Undo an apply: remove its workouts, restore those it replaced.",
    side_effects="write",
    confirm="destructive",
    preview=_unapply_preview,
    audit=Audit("program_template", "program_template.unapplied"),
    feature_gate=GATE,
)
async def unapply_template(ctx: ToolContext, args: UnapplyArgs) -> dict[str, Any]:
    return await domain.undo_application(ctx.conn, ctx.caller.org_id, args.application_id)
