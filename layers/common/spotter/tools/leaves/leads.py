"""leads — the CRM: leads across pipeline stages, notes, tags, conversion; pipeline admin.

Every action re-applies the `lead_management` tier gate (the router's default). Staff work leads;
converting, bulk changes and pipeline / stage / tag administration are owner/admin.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import AfterValidator, Field

from spotter.domain import lead_pipelines as pipelines
from spotter.domain import leads as domain
from spotter.domain import outbox
from spotter.domain.errors import not_found
from spotter.domain.names import member_name
from spotter.domain.staff import staff_user_id
from spotter.tools.args import Args, NoArgs
from spotter.tools.cards import Confirmation
from spotter.tools.context import ToolContext
from spotter.tools.entities import entity_namer
from spotter.tools.outbound import Body, Subject, outbound_card
from spotter.tools.router import Router
from spotter.tools.spec import (
    MANAGERS,
    STAFF,
    EntityTarget,
    Identified,
    Inverse,
    NameTarget,
)

leads = Router(
    "leads",
    "CRM leads in pipelines of ordered stages. ownerId: a staff memberId.",
    roles=STAFF,
    feature_gate="lead_management",
)
# Converting, bulk changes and pipeline / stage / tag administration.
managers = leads.group(roles=MANAGERS)

Text = Annotated[str, Field(min_length=1, max_length=80)]
Tags = Annotated[list[Annotated[str, Field(min_length=1, max_length=40)]], Field(max_length=20)]
LeadIds = Annotated[list[UUID], Field(min_length=1, max_length=domain.MAX_BULK)]
LiveStatus = Literal["open", "won", "lost"]
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def _email(value: str) -> str:
    if not _EMAIL.match(value.strip()):
        raise ValueError("not an email address")
    return value.strip()


# checked by a validator, not a schema pattern: the model never reads a regex
Email = Annotated[str, Field(max_length=254), AfterValidator(_email)]


@entity_namer("lead")
async def _lead_name(ctx: ToolContext, lead_id: UUID) -> str:
    return await domain.lead_name(ctx.scope, lead_id)


@entity_namer("lead_pipeline")
async def _pipeline_name(ctx: ToolContext, pipeline_id: UUID) -> str:
    return str((await pipelines.get_pipeline(ctx.scope, pipeline_id))["name"])


@entity_namer("lead_stage")
async def _stage_label(ctx: ToolContext, stage_id: UUID) -> str:
    stage = await pipelines.get_stage(ctx.scope, stage_id)
    return f"{stage['pipeline_name']} · {stage['name']}"


async def _owner(ctx: ToolContext, owner_id: UUID | None) -> UUID | None:
    return None if owner_id is None else await staff_user_id(ctx.scope, owner_id)


class LeadArgs(Args):
    lead_id: UUID


# ---- reads ----------------------------------------------------------------------------------


class ListArgs(Args):
    pipeline_id: UUID | None = None
    stage_id: UUID | None = None
    status: list[Literal["open", "won", "lost", "converted", "archived"]] | None = None
    owner_id: UUID | None = None
    tag: str | None = None
    query: str | None = None
    limit: Annotated[int, Field(ge=1, le=100)] = 50


@leads.read("list", "Find leads (default open/won/lost); query matches name/email/phone.")
async def list_leads(ctx: ToolContext, args: ListArgs) -> dict[str, Any]:
    return await domain.list_leads(
        ctx.scope,
        pipeline_id=args.pipeline_id,
        stage_id=args.stage_id,
        statuses=tuple(args.status) if args.status else domain.LIVE,
        owner_user_id=await _owner(ctx, args.owner_id),
        tag=args.tag,
        query=args.query,
        limit=args.limit,
    )


@leads.read("get", "A lead with its notes and activity.")
async def get_lead(ctx: ToolContext, args: LeadArgs) -> dict[str, Any]:
    return await domain.get_lead(ctx.scope, args.lead_id)


class PipelinesArgs(Args):
    include_archived: bool = False


@leads.read("list_pipelines", "Pipelines with their stages and open-lead counts.")
async def list_pipelines(ctx: ToolContext, args: PipelinesArgs) -> dict[str, Any]:
    found = await pipelines.list_pipelines(ctx.scope, include_archived=args.include_archived)
    return {"pipelines": found}


@leads.read("list_tags", "Tags in use, with lead counts.")
async def list_tags(ctx: ToolContext, args: NoArgs) -> dict[str, Any]:
    return {"tags": await domain.list_tags(ctx.scope)}


# ---- one lead -------------------------------------------------------------------------------


class Contact(Args):
    first_name: Text | None = None
    last_name: Text | None = None
    email: Email | None = None
    phone: Annotated[str, Field(min_length=3, max_length=40)] | None = None
    source: Annotated[str, Field(min_length=1, max_length=60)] | None = None

    def fields(self) -> dict[str, str]:
        return {k: v for k, v in self.model_dump(exclude_none=True).items() if k != "lead_id"}


class CreateArgs(Contact):
    first_name: Text
    pipeline_id: UUID | None = None
    stage_id: UUID | None = None
    owner_id: UUID | None = None
    tags: Tags = Field(default_factory=list)


_ARCHIVE = Inverse("archive", Identified, lambda out: LeadArgs(lead_id=out.id))
_RESTORE = Inverse("restore", Identified, lambda out: LeadArgs(lead_id=out.id))


@leads.write(
    "create",
    "Add a lead (email or phone; default pipeline's first stage).",
    inverse=_ARCHIVE,
    target=NameTarget(("first_name", "last_name")),
)
async def create_lead(ctx: ToolContext, args: CreateArgs) -> Identified:
    contact = args.fields()
    for key in ("pipeline_id", "stage_id", "owner_id", "tags"):
        contact.pop(key, None)
    row = await domain.create_lead(
        ctx.scope,
        ctx.caller.user_id,
        contact=dict(contact),
        pipeline_id=args.pipeline_id,
        stage_id=args.stage_id,
        owner_user_id=await _owner(ctx, args.owner_id),
        tags=args.tags,
    )
    return Identified.model_validate(row)


class UpdateArgs(Contact):
    lead_id: UUID


@leads.write("update", "Change a lead's contact fields or source.")
async def update_lead(ctx: ToolContext, args: UpdateArgs) -> dict[str, Any]:
    return await domain.update_lead(ctx.scope, ctx.caller.user_id, args.lead_id, args.fields())


class MoveArgs(Args):
    lead_id: UUID
    stage_id: UUID


class Moved(Identified):
    previous_stage_id: UUID


@leads.write(
    "move",
    "Move a lead to a stage (any pipeline).",
    inverse=Inverse(
        "move", Moved, lambda out: MoveArgs(lead_id=out.id, stage_id=out.previous_stage_id)
    ),
)
async def move_lead(ctx: ToolContext, args: MoveArgs) -> Moved:
    row = await domain.move_lead(ctx.scope, ctx.caller.user_id, args.lead_id, args.stage_id)
    return Moved.model_validate(row)


class AssignArgs(Args):
    lead_id: UUID
    owner_id: UUID | None = None


class Assigned(Identified):
    previous_owner_id: UUID | None = None


@leads.write(
    "assign",
    "Set a lead's owner (omit ownerId to unassign).",
    inverse=Inverse(
        "assign", Assigned, lambda out: AssignArgs(lead_id=out.id, owner_id=out.previous_owner_id)
    ),
)
async def assign_lead(ctx: ToolContext, args: AssignArgs) -> Assigned:
    owner = await _owner(ctx, args.owner_id)
    row = await domain.assign_lead(ctx.scope, ctx.caller.user_id, args.lead_id, owner)
    return Assigned.model_validate(row)


class StatusArgs(Args):
    lead_id: UUID
    status: LiveStatus
    reason: Annotated[str, Field(max_length=200)] | None = None


class StatusSet(Identified):
    previous_status: LiveStatus


@leads.write(
    "set_status",
    "Mark a lead open, won or lost (reason optional).",
    inverse=Inverse(
        "set_status",
        StatusSet,
        lambda out: StatusArgs(lead_id=out.id, status=out.previous_status),
    ),
)
async def set_status(ctx: ToolContext, args: StatusArgs) -> StatusSet:
    row = await domain.set_status(
        ctx.scope, ctx.caller.user_id, args.lead_id, args.status, args.reason
    )
    return StatusSet.model_validate(row)


@leads.write("archive", "Archive a lead (restore brings it back).", inverse=_RESTORE)
async def archive_lead(ctx: ToolContext, args: LeadArgs) -> Identified:
    return Identified.model_validate(
        await domain.archive_lead(ctx.scope, ctx.caller.user_id, args.lead_id)
    )


@leads.write("restore", "Restore an archived lead.", inverse=_ARCHIVE)
async def restore_lead(ctx: ToolContext, args: LeadArgs) -> Identified:
    return Identified.model_validate(
        await domain.restore_lead(ctx.scope, ctx.caller.user_id, args.lead_id)
    )


class NoteArgs(Args):
    lead_id: UUID
    body: Annotated[str, Field(min_length=1, max_length=4000)]


@leads.write("add_note", "Add a note to a lead.")
async def add_note(ctx: ToolContext, args: NoteArgs) -> dict[str, Any]:
    return await domain.add_note(ctx.scope, ctx.caller.user_id, args.lead_id, args.body)


class TagArgs(Args):
    lead_id: UUID
    tags: Annotated[list[Annotated[str, Field(min_length=1, max_length=40)]], Field(min_length=1)]


class Tagged(Identified):
    added: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)


@leads.write(
    "tag",
    "Add tags to a lead.",
    inverse=Inverse("untag", Tagged, lambda out: TagArgs(lead_id=out.id, tags=out.added)),
)
async def tag_lead(ctx: ToolContext, args: TagArgs) -> Tagged:
    return Tagged.model_validate(
        await domain.tag_lead(ctx.scope, ctx.caller.user_id, args.lead_id, args.tags)
    )


@leads.write(
    "untag",
    "Remove tags from a lead.",
    inverse=Inverse("tag", Tagged, lambda out: TagArgs(lead_id=out.id, tags=out.removed)),
)
async def untag_lead(ctx: ToolContext, args: TagArgs) -> Tagged:
    return Tagged.model_validate(
        await domain.untag_lead(ctx.scope, ctx.caller.user_id, args.lead_id, args.tags)
    )


# Converting and bulk changes are always confirmed.
confirmed_by_managers = managers.group(confirm="always")


async def _convert_preview(ctx: ToolContext, args: LeadArgs) -> Confirmation:
    plan = await domain.convert_preview(ctx.scope, args.lead_id)
    linked = plan["existing"] is not None
    return Confirmation(
        target=plan["name"],
        affected_count=1,
        consequences=["lead_converted"]
        + (["linked_to_existing_member"] if linked else ["member_invited"]),
    )


@confirmed_by_managers.write(
    "convert",
    "Convert a lead into a member (invited; or the member with that email).",
    preview=_convert_preview,
)
async def convert_lead(ctx: ToolContext, args: LeadArgs) -> dict[str, Any]:
    return await domain.convert_lead(ctx.scope, ctx.caller.user_id, args.lead_id)


# ---- bulk (owner/admin, always confirmed) -----------------------------------------------------


class BulkUpdateArgs(Args):
    lead_ids: LeadIds
    owner_id: UUID | None = None
    source: Annotated[str, Field(min_length=1, max_length=60)] | None = None
    status: LiveStatus | None = None


def _changes(**values: Any) -> list[dict[str, Any]]:
    return [{"field": k, "to": v} for k, v in values.items() if v is not None]


async def _bulk_update_preview(ctx: ToolContext, args: BulkUpdateArgs) -> Confirmation:
    count = await domain.bulk_preview_count(ctx.scope, args.lead_ids)
    owner = None
    if args.owner_id is not None:
        await staff_user_id(ctx.scope, args.owner_id)
        owner = await member_name(ctx.scope, args.owner_id)
    return Confirmation(
        affected_count=count,
        changes=_changes(owner=owner, source=args.source, status=args.status),
        consequences=["leads_updated"],
    )


@confirmed_by_managers.write(
    "bulk_update", "Set owner, source and/or status on many leads.", preview=_bulk_update_preview
)
async def bulk_update(ctx: ToolContext, args: BulkUpdateArgs) -> dict[str, Any]:
    return await domain.bulk_update(
        ctx.scope,
        ctx.caller.user_id,
        args.lead_ids,
        owner_user_id=await _owner(ctx, args.owner_id),
        source=args.source,
        status=args.status,
    )


class BulkTagArgs(Args):
    lead_ids: LeadIds
    add: Tags = Field(default_factory=list)
    remove: Tags = Field(default_factory=list)


async def _bulk_tag_preview(ctx: ToolContext, args: BulkTagArgs) -> Confirmation:
    count = await domain.bulk_preview_count(ctx.scope, args.lead_ids)
    return Confirmation(
        affected_count=count,
        changes=_changes(
            add=domain.normalize_tags(args.add) or None,
            remove=domain.normalize_tags(args.remove) or None,
        ),
        consequences=["leads_retagged"],
    )


@confirmed_by_managers.write(
    "bulk_tag", "Add and/or remove tags on many leads.", preview=_bulk_tag_preview
)
async def bulk_tag(ctx: ToolContext, args: BulkTagArgs) -> dict[str, Any]:
    return await domain.bulk_tag(
        ctx.scope, ctx.caller.user_id, args.lead_ids, add=args.add, remove=args.remove
    )


class BulkMoveArgs(Args):
    lead_ids: LeadIds
    stage_id: UUID


async def _bulk_move_preview(ctx: ToolContext, args: BulkMoveArgs) -> Confirmation:
    target = await _stage_label(ctx, args.stage_id)
    count = await domain.bulk_preview_count(ctx.scope, args.lead_ids)
    return Confirmation(target=target, affected_count=count, consequences=["leads_moved"])


@confirmed_by_managers.write(
    "bulk_move", "Move many leads to one stage.", preview=_bulk_move_preview
)
async def bulk_move(ctx: ToolContext, args: BulkMoveArgs) -> dict[str, Any]:
    return await domain.bulk_move(ctx.scope, ctx.caller.user_id, args.lead_ids, args.stage_id)


class BulkEmailArgs(Args):
    lead_ids: LeadIds
    subject: Subject
    body: Body


async def _bulk_email_preview(ctx: ToolContext, args: BulkEmailArgs) -> Confirmation:
    found = await domain.email_recipients(ctx.scope, args.lead_ids)
    return outbound_card(
        [domain.full_name(r) for r in found["recipients"]],
        subject=args.subject,
        body=args.body,
        consequences=["leads_without_email_skipped"] if found["skipped"] else [],
    )


@confirmed_by_managers.write(
    "bulk_email",
    "Email many leads (same subject and body).",
    preview=_bulk_email_preview,
    external_effects=True,
)
async def bulk_email(ctx: ToolContext, args: BulkEmailArgs) -> dict[str, Any]:
    found = await domain.email_recipients(ctx.scope, args.lead_ids)
    recipients = [
        outbox.Recipient(r["email"], domain.full_name(r), "lead", r["id"])
        for r in found["recipients"]
    ]
    queued = await outbox.enqueue(
        ctx.scope,
        recipients=recipients,
        subject=args.subject,
        body=args.body,
        source="leads.bulk_email",
        link=ctx.outbox_link,
    )
    await domain.log_emailed(
        ctx.scope, ctx.caller.user_id, [r["id"] for r in found["recipients"]], args.subject
    )
    return outbox.call_output(queued, skipped=found["skipped"])


# ---- pipeline, stage and tag administration (owner/admin) ------------------------------------

pipeline_admin = managers.group(resource="lead_pipeline")
stage_admin = managers.group(resource="lead_stage")
tag_admin = managers.group(resource="lead_tag")


class PipelineArgs(Args):
    pipeline_id: UUID


class CreatePipelineArgs(Args):
    name: Text
    stages: Annotated[list[Text], Field(min_length=1, max_length=pipelines.MAX_STAGES)]
    make_default: bool = False


@pipeline_admin.write(
    "create_pipeline",
    "Create a pipeline with its stages in order.",
    target=NameTarget(("name",)),
    inverse=Inverse("archive_pipeline", Identified, lambda out: PipelineArgs(pipeline_id=out.id)),
)
async def create_pipeline(ctx: ToolContext, args: CreatePipelineArgs) -> Identified:
    made = await pipelines.create_pipeline(
        ctx.scope, name=args.name, stages=args.stages, make_default=args.make_default
    )
    return Identified.model_validate(made)


class UpdatePipelineArgs(Args):
    pipeline_id: UUID
    name: Text | None = None
    make_default: bool = False


class Renamed(Identified):
    previous_name: str


@pipeline_admin.write(
    "update_pipeline",
    "Rename a pipeline and/or make it the default.",
    inverse=Inverse(
        "update_pipeline",
        Renamed,
        lambda out: UpdatePipelineArgs(pipeline_id=out.id, name=out.previous_name),
    ),
)
async def update_pipeline(ctx: ToolContext, args: UpdatePipelineArgs) -> Renamed:
    updated = await pipelines.update_pipeline(
        ctx.scope, args.pipeline_id, name=args.name, make_default=args.make_default
    )
    return Renamed.model_validate(updated)


async def _archive_pipeline_preview(ctx: ToolContext, args: PipelineArgs) -> Confirmation:
    await pipelines.check_archivable(ctx.scope, args.pipeline_id)
    return Confirmation(consequences=["pipeline_hidden"])


@pipeline_admin.write(
    "archive_pipeline",
    "Archive a pipeline without open leads.",
    confirm="destructive",
    preview=_archive_pipeline_preview,
    target=EntityTarget("lead_pipeline", "pipeline_id"),
)
async def archive_pipeline(ctx: ToolContext, args: PipelineArgs) -> dict[str, Any]:
    return await pipelines.archive_pipeline(ctx.scope, args.pipeline_id)


class StageArgs(Args):
    stage_id: UUID
    move_to_stage_id: UUID | None = None


class CreateStageArgs(Args):
    pipeline_id: UUID
    name: Text
    position: Annotated[int, Field(ge=0)] | None = None


@stage_admin.write(
    "create_stage",
    "Add a stage to a pipeline (position 0-based; default last).",
    target=NameTarget(("name",)),
    inverse=Inverse("delete_stage", Identified, lambda out: StageArgs(stage_id=out.id)),
)
async def create_stage(ctx: ToolContext, args: CreateStageArgs) -> Identified:
    made = await pipelines.create_stage(
        ctx.scope, args.pipeline_id, name=args.name, position=args.position
    )
    return Identified.model_validate(made)


class RenameStageArgs(Args):
    stage_id: UUID
    name: Text


@stage_admin.write(
    "rename_stage",
    "Rename a stage.",
    inverse=Inverse(
        "rename_stage",
        Renamed,
        lambda out: RenameStageArgs(stage_id=out.id, name=out.previous_name),
    ),
)
async def rename_stage(ctx: ToolContext, args: RenameStageArgs) -> Renamed:
    return Renamed.model_validate(
        await pipelines.rename_stage(ctx.scope, args.stage_id, name=args.name)
    )


class ReorderArgs(Args):
    pipeline_id: UUID
    stage_ids: Annotated[list[UUID], Field(min_length=1, max_length=pipelines.MAX_STAGES)]


class Reordered(Identified):
    previous_order: list[UUID]


@pipeline_admin.write(
    "reorder_stages",
    "Reorder a pipeline's stages (list every stageId).",
    inverse=Inverse(
        "reorder_stages",
        Reordered,
        lambda out: ReorderArgs(pipeline_id=out.id, stage_ids=out.previous_order),
    ),
)
async def reorder_stages(ctx: ToolContext, args: ReorderArgs) -> Reordered:
    return Reordered.model_validate(
        await pipelines.reorder_stages(ctx.scope, args.pipeline_id, args.stage_ids)
    )


async def _delete_stage_preview(ctx: ToolContext, args: StageArgs) -> Confirmation:
    _, holding = await pipelines.check_stage_deletable(
        ctx.scope, args.stage_id, args.move_to_stage_id
    )
    moved_to = await _stage_label(ctx, args.move_to_stage_id) if args.move_to_stage_id else None
    return Confirmation(
        affected_count=holding,
        changes=_changes(leads_move_to=moved_to) or None,
        consequences=["stage_deleted"] + (["leads_moved"] if holding else []),
    )


@stage_admin.write(
    "delete_stage",
    "Delete a stage; its leads go to moveToStageId.",
    confirm="destructive",
    preview=_delete_stage_preview,
    target=EntityTarget("lead_stage", "stage_id"),
)
async def delete_stage(ctx: ToolContext, args: StageArgs) -> dict[str, Any]:
    return await pipelines.delete_stage(
        ctx.scope, args.stage_id, move_to_stage_id=args.move_to_stage_id
    )


class RenameTagArgs(Args):
    tag: Annotated[str, Field(min_length=1, max_length=40)]
    new_tag: Annotated[str, Field(min_length=1, max_length=40)]


@tag_admin.write("rename_tag", "Rename a tag on every lead (merges into an existing tag).")
async def rename_tag(ctx: ToolContext, args: RenameTagArgs) -> dict[str, Any]:
    return await domain.rename_tag(ctx.scope, args.tag, args.new_tag)


class DeleteTagArgs(Args):
    tag: Annotated[str, Field(min_length=1, max_length=40)]


async def _delete_tag_preview(ctx: ToolContext, args: DeleteTagArgs) -> Confirmation:
    count = await domain.count_tagged(ctx.scope, args.tag)
    if not count:
        raise not_found("tag")
    return Confirmation(affected_count=count, consequences=["tag_removed_from_leads"])


@tag_admin.write(
    "delete_tag",
    "Remove a tag from every lead.",
    confirm="destructive",
    preview=_delete_tag_preview,
    target=NameTarget(("tag",)),
)
async def delete_tag(ctx: ToolContext, args: DeleteTagArgs) -> dict[str, Any]:
    return await domain.delete_tag(ctx.scope, args.tag)
