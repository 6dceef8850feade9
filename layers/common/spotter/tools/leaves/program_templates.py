"""program_templates — reusable day sequences applied to programs (tier feature gated)."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any
from uuid import UUID

from pydantic import Field, model_validator

from spotter.domain import program_templates as domain
from spotter.domain import programs
from spotter.tools.args import Args, Name
from spotter.tools.cards import Confirmation
from spotter.tools.context import ToolContext
from spotter.tools.entities import entity_namer
from spotter.tools.router import Router
from spotter.tools.spec import Audit, EntityTarget, Identified, Inverse

GATE = "program_templates"

program_templates = Router(
    "program_templates",
    "Program templates: reusable days (offset from day 0 -> workout) applied to programs.",
    feature_gate=GATE,
)


@entity_namer("program_template")
async def _template_namer(ctx: ToolContext, template_id: UUID) -> str:
    return await domain.template_name(ctx.scope, template_id)


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


class DaysSet(Identified):
    previous_days: list[TemplateDay]


class DayChanged(Identified):
    day: TemplateDay


class TemplateId(Args):
    template_id: UUID


class ListArgs(Args):
    query: str | None = None


@program_templates.read("list", "List templates.")
async def list_templates(ctx: ToolContext, args: ListArgs) -> dict[str, Any]:
    return {"templates": await domain.list_templates(ctx.scope, args.query)}


@program_templates.read("get", "A template with its days.")
async def get_template(ctx: ToolContext, args: TemplateId) -> dict[str, Any]:
    return await domain.template_out(ctx.scope, args.template_id)


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


_DELETE = Inverse("delete", Identified, lambda out: TemplateId(template_id=out.id))


@program_templates.write(
    "create", "Create a template from days, or from a program's workouts in span.", inverse=_DELETE
)
async def create_template(ctx: ToolContext, args: CreateArgs) -> Identified:
    days = _days(args.days)
    if args.from_program_id is not None and args.span is not None:
        days = await domain.days_from_program(
            ctx.scope, args.from_program_id, args.span.starts_on, args.span.ends_on
        )
    template_id = await domain.create_template(
        ctx.scope, name=args.name, description=args.description, days=days
    )
    return Identified.model_validate(await domain.template_out(ctx.scope, template_id))


class UpdateArgs(TemplateId):
    name: Name | None = None
    description: str | None = None


@program_templates.write("update", "Rename or redescribe.")
async def update_template(ctx: ToolContext, args: UpdateArgs) -> dict[str, Any]:
    await domain.update_template(
        ctx.scope, args.template_id, name=args.name, description=args.description
    )
    return await domain.template_out(ctx.scope, args.template_id)


class SetDaysArgs(TemplateId):
    days: Days


async def _set_days_preview(ctx: ToolContext, args: SetDaysArgs) -> Confirmation:
    old = await domain.list_days(ctx.scope, args.template_id)
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


@program_templates.write(
    "set_days",
    "Replace all days.",
    confirm="always",
    preview=_set_days_preview,
    target=EntityTarget("program_template", "template_id"),
    inverse=Inverse(
        "set_days", DaysSet, lambda out: SetDaysArgs(template_id=out.id, days=out.previous_days)
    ),
)
async def set_days(ctx: ToolContext, args: SetDaysArgs) -> DaysSet:
    await domain.get_template(ctx.scope, args.template_id)
    previous = await domain.set_days(ctx.scope, args.template_id, _days(args.days))
    out = await domain.template_out(ctx.scope, args.template_id)
    return DaysSet.model_validate({**out, "previousDays": [domain.day_out(d) for d in previous]})


class AddDayArgs(TemplateId):
    day: TemplateDay


@program_templates.write(
    "add_day",
    "Add a day (its offset must be free).",
    inverse=Inverse(
        "remove_day",
        DayChanged,
        lambda out: RemoveDayArgs(template_id=out.id, day_offset=out.day.day_offset),
    ),
)
async def add_day(ctx: ToolContext, args: AddDayArgs) -> DayChanged:
    day = _days([args.day])[0]
    await domain.add_day(ctx.scope, args.template_id, day)
    return DayChanged.model_validate(
        {
            **await domain.template_out(ctx.scope, args.template_id),
            "day": domain.day_out(day),
        }
    )


class RemoveDayArgs(TemplateId):
    day_offset: int = Field(ge=0, le=365)


@program_templates.write(
    "remove_day",
    "Remove a day.",
    inverse=Inverse("add_day", DayChanged, lambda out: AddDayArgs(template_id=out.id, day=out.day)),
)
async def remove_day(ctx: ToolContext, args: RemoveDayArgs) -> DayChanged:
    removed = await domain.remove_day(ctx.scope, args.template_id, args.day_offset)
    out = await domain.template_out(ctx.scope, args.template_id)
    return DayChanged.model_validate({**out, "day": domain.day_out(removed)})


class DuplicateArgs(TemplateId):
    name: Name


@program_templates.write(
    "duplicate",
    "Copy a template under a new name.",
    audit=Audit("program_template", "program_template.created"),
    inverse=_DELETE,
)
async def duplicate_template(ctx: ToolContext, args: DuplicateArgs) -> Identified:
    source = await domain.get_template(ctx.scope, args.template_id)
    days = await domain.list_days(ctx.scope, args.template_id)
    new_id = await domain.create_template(
        ctx.scope, name=args.name, description=source["description"], days=days
    )
    return Identified.model_validate(await domain.template_out(ctx.scope, new_id))


@program_templates.write(
    "delete",
    "Delete a template (workouts it wrote stay).",
    confirm="destructive",
    target=EntityTarget("program_template", "template_id"),
    consequences=("template_deleted",),
)
async def delete_template(ctx: ToolContext, args: TemplateId) -> dict[str, Any]:
    await domain.delete_template(ctx.scope, args.template_id)
    return {"id": str(args.template_id), "deleted": True}


class ApplyArgs(TemplateId):
    program_id: UUID
    starts_on: date


async def _apply_preview(ctx: ToolContext, args: ApplyArgs) -> Confirmation:
    plan = await domain.plan_application(
        ctx.scope, args.template_id, args.program_id, args.starts_on
    )
    template = await domain.template_name(ctx.scope, args.template_id)
    program = (await programs.get_program(ctx.scope, args.program_id))["name"]
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


@program_templates.write(
    "apply",
    "Write the template's workouts into a program from startsOn (replaces those days').",
    confirm="always",
    preview=_apply_preview,
    inverse=Inverse("unapply", Identified, lambda out: UnapplyArgs(application_id=out.id)),
)
async def apply_template(ctx: ToolContext, args: ApplyArgs) -> Identified:
    return Identified.model_validate(
        await domain.apply_template(
            ctx.scope,
            args.template_id,
            args.program_id,
            args.starts_on,
            user_id=ctx.caller.user_id,
        )
    )


class UnapplyArgs(Args):
    application_id: UUID


async def _unapply_preview(ctx: ToolContext, args: UnapplyArgs) -> Confirmation:
    application = await domain.get_application(ctx.scope, args.application_id)
    return Confirmation(
        target=f"{application['template_name']} → {application['program_name']}",
        affected_count=await domain.live_written_count(ctx.scope, application),
        consequences=["removes_applied_workouts"]
        + (["restores_replaced_workouts"] if application["replaced_workout_ids"] else []),
    )


@program_templates.write(
    "unapply",
    "Undo an apply: remove its workouts, restore those it replaced.",
    confirm="destructive",
    preview=_unapply_preview,
)
async def unapply_template(ctx: ToolContext, args: UnapplyArgs) -> dict[str, Any]:
    return await domain.undo_application(ctx.scope, args.application_id)
