"""forms — waivers, intake and health forms with versions; reads of their submissions.

Thin over `domain.forms` (which applies the compliance org-type gate, the publish lint, the
family-wide archive and the `form_has_submissions` delete guard). Members sign in the member
app: there is deliberately no signing action and no signing link.
"""

from __future__ import annotations

from typing import Annotated, Any
from uuid import UUID

from pydantic import Field

from spotter.domain import forms as domain
from spotter.domain.form_compliance import FormKind, withhold_health_answers
from spotter.domain.form_fields import FieldType
from spotter.tools.args import Args, Name
from spotter.tools.cards import Confirmation
from spotter.tools.context import ToolContext
from spotter.tools.entities import entity_namer
from spotter.tools.range_args import DateRange, range_bounds
from spotter.tools.router import Router
from spotter.tools.spec import MANAGERS, STAFF, EntityTarget, Identified, Inverse, Output

forms = Router(
    "forms",
    "Forms (waiver, intake, health) members sign in the member app. Edits go to the form's"
    " draft; members sign the published version.",
    roles=MANAGERS,
    forms_only=True,
)
# Looking forms and submissions up: any staff (changing forms is owner/admin).
staff = forms.group(roles=STAFF)
# Losing or hiding what members sign: confirmed as destructive, on a card naming the form.
destructive = forms.group(confirm="destructive", target=EntityTarget("form", "form_id"))

# The domain checks the key's shape (lower_snake_case) when a field is written.
Key = Annotated[str, Field(min_length=1, max_length=40)]
Options = Annotated[list[Annotated[str, Field(min_length=1, max_length=100)]], Field(max_length=30)]


@entity_namer("form")
async def _form_namer(ctx: ToolContext, form_id: UUID) -> str:
    return str((await domain.get_form(ctx.scope, form_id))["name"])


class FormField(Args):
    key: Key
    label: str = Field(min_length=1, max_length=200)
    type: FieldType
    required: bool = False
    options: Options | None = None
    help: str | None = Field(default=None, max_length=300)
    # health data (owners and admins read the answers); unset: decided by the field's words
    health: bool | None = None


class FormId(Args):
    form_id: UUID


class ListArgs(Args):
    kind: FormKind | None = None
    include_archived: bool = False


@staff.read("list", "List forms with versions and submission counts.")
async def list_forms(ctx: ToolContext, args: ListArgs) -> dict[str, Any]:
    rows = await domain.list_forms(
        ctx.scope, kind=args.kind, include_archived=args.include_archived
    )
    return {"forms": [domain.form_out(r) for r in rows]}


class GetArgs(FormId):
    version: int | None = Field(default=None, ge=1)


@staff.read("get", "A form and one version (default: draft, else published).")
async def get_form(ctx: ToolContext, args: GetArgs) -> dict[str, Any]:
    form = await domain.get_form(ctx.scope, args.form_id)
    version = await domain.get_version(ctx.scope, args.form_id, args.version)
    return {**domain.form_out(form), "shown": domain.version_out(version)}


@staff.read("versions", "A form's version history.")
async def list_versions(ctx: ToolContext, args: FormId) -> dict[str, Any]:
    rows = await domain.list_versions(ctx.scope, args.form_id)
    return {
        "versions": [
            {
                "version": r["version"],
                "status": r["status"],
                "title": r["title"],
                "publishedAt": r["published_at"].isoformat() if r["published_at"] else None,
                "submissions": int(r["submissions"]),
            }
            for r in rows
        ]
    }


@staff.read("lint", "Check the draft for publishing problems.")
async def lint_form(ctx: ToolContext, args: FormId) -> dict[str, Any]:
    return await domain.lint_draft(ctx.scope, args.form_id)


class CreateArgs(Args):
    kind: FormKind
    name: Name
    title: str | None = Field(default=None, max_length=200)
    body: str = Field(default="", max_length=20000)
    required: bool = False
    fields: list[FormField] = Field(default=[], max_length=60)


def _delete_args(out: Identified) -> FormId:
    return FormId(form_id=out.id)


def _identified(form: dict[str, Any]) -> Identified:
    return Identified.model_validate(domain.form_out(form))


@forms.write(
    "create",
    "Create a form as a draft.",
    inverse=Inverse("delete", Identified, _delete_args),
)
async def create_form(ctx: ToolContext, args: CreateArgs) -> Identified:
    form = await domain.create_form(
        ctx.scope,
        kind=args.kind,
        name=args.name,
        title=args.title,
        body=args.body,
        fields=[f.model_dump(exclude_none=True) for f in args.fields],
        required=args.required,
        created_by=ctx.caller.user_id,
    )
    return _identified(form)


class UpdateArgs(FormId):
    name: Name | None = None
    required: bool | None = None
    title: str | None = Field(default=None, min_length=1, max_length=200)
    body: str | None = Field(default=None, max_length=20000)


@forms.write("update", "Rename, (un)require, or edit the draft's title/body.")
async def update_form(ctx: ToolContext, args: UpdateArgs) -> dict[str, Any]:
    form = await domain.update_form(
        ctx.scope,
        args.form_id,
        name=args.name,
        required=args.required,
        title=args.title,
        body=args.body,
    )
    return domain.form_out(form)


class FieldRef(FormId):
    key: Key


class AddFieldArgs(FormId):
    field: FormField
    position: int | None = Field(default=None, ge=0)


class FieldAdded(Output):
    form_id: UUID
    key: str


class FieldRemoved(Output):
    form_id: UUID
    field: FormField
    position: int


class FieldMoved(Output):
    form_id: UUID
    key: str
    previous_position: int


def _draft_out(form_id: UUID, draft: dict[str, Any]) -> dict[str, Any]:
    return {"formId": str(form_id), "draftVersion": draft["version"], "fields": draft["fields"]}


def _readd(out: FieldRemoved) -> AddFieldArgs:
    return AddFieldArgs(form_id=out.form_id, field=out.field, position=out.position)


@forms.write(
    "add_field",
    "Add a field to the draft.",
    inverse=Inverse(
        "remove_field", FieldAdded, lambda out: FieldRef(form_id=out.form_id, key=out.key)
    ),
)
async def add_field(ctx: ToolContext, args: AddFieldArgs) -> FieldAdded:
    draft = await domain.add_field(
        ctx.scope, args.form_id, args.field.model_dump(exclude_none=True), position=args.position
    )
    return FieldAdded.model_validate({**_draft_out(args.form_id, draft), "key": args.field.key})


class UpdateFieldArgs(FormId):
    field: FormField


@forms.write("update_field", "Replace a draft field, found by its key.")
async def update_field(ctx: ToolContext, args: UpdateFieldArgs) -> dict[str, Any]:
    field = args.field.model_dump(exclude_none=True)
    draft = await domain.replace_field(ctx.scope, args.form_id, field)
    return _draft_out(args.form_id, draft)


@forms.write(
    "remove_field",
    "Remove a field from the draft.",
    inverse=Inverse("add_field", FieldRemoved, _readd),
)
async def remove_field(ctx: ToolContext, args: FieldRef) -> FieldRemoved:
    before = await domain.get_version(ctx.scope, args.form_id)
    position = next((i for i, f in enumerate(before["fields"]) if f["key"] == args.key), None)
    draft = await domain.remove_field(ctx.scope, args.form_id, args.key)
    removed = before["fields"][position] if position is not None else None
    return FieldRemoved.model_validate(
        {**_draft_out(args.form_id, draft), "field": removed, "position": position}
    )


class MoveFieldArgs(FieldRef):
    position: int = Field(ge=0)


def _move_back(out: FieldMoved) -> MoveFieldArgs:
    return MoveFieldArgs(form_id=out.form_id, key=out.key, position=out.previous_position)


@forms.write(
    "move_field",
    "Move a draft field to a position (0 = first).",
    inverse=Inverse("move_field", FieldMoved, _move_back),
)
async def move_field(ctx: ToolContext, args: MoveFieldArgs) -> FieldMoved:
    before = await domain.get_version(ctx.scope, args.form_id)
    previous = next((i for i, f in enumerate(before["fields"]) if f["key"] == args.key), 0)
    draft = await domain.move_field(ctx.scope, args.form_id, args.key, args.position)
    return FieldMoved.model_validate(
        {**_draft_out(args.form_id, draft), "key": args.key, "previousPosition": previous}
    )


async def _publish_preview(ctx: ToolContext, args: FormId) -> Confirmation:
    form = await domain.get_form(ctx.scope, args.form_id)
    report = await domain.lint_draft(ctx.scope, args.form_id)
    consequences = ["members_sign_this_version"]
    if form["published_version"] is not None:
        consequences.append("previous_version_superseded")
    if report["problems"]:
        consequences.append("publish_will_fail_lint")
    status = await domain.unsigned_members(ctx.scope, args.form_id) if form["required"] else None
    return Confirmation(
        affected_count=status["activeMembers"] if status else None,
        consequences=consequences,
        changes=[{"field": "version", "old": form["published_version"], "new": report["version"]}],
    )


@forms.write(
    "publish",
    "Lint and publish the draft; members sign it from now on.",
    confirm="always",
    preview=_publish_preview,
    target=EntityTarget("form", "form_id"),
)
async def publish_form(ctx: ToolContext, args: FormId) -> dict[str, Any]:
    form = await domain.publish(ctx.scope, args.form_id, published_by=ctx.caller.user_id)
    return domain.form_out(form)


@destructive.write(
    "discard_draft",
    "Drop the draft's unpublished edits.",
    consequences=("draft_edits_lost",),
)
async def discard_draft(ctx: ToolContext, args: FormId) -> dict[str, Any]:
    return domain.form_out(await domain.discard_draft(ctx.scope, args.form_id))


class DuplicateArgs(FormId):
    name: Name


@forms.write(
    "duplicate",
    "Copy a form into a new draft form.",
    inverse=Inverse("delete", Identified, _delete_args),
)
async def duplicate_form(ctx: ToolContext, args: DuplicateArgs) -> Identified:
    form = await domain.duplicate(
        ctx.scope, args.form_id, name=args.name, created_by=ctx.caller.user_id
    )
    return _identified(form)


async def _archive_preview(ctx: ToolContext, args: FormId) -> Confirmation:
    impact = await domain.archive_impact(ctx.scope, args.form_id)
    form = impact["form"]
    consequences = ["all_versions_archived", "members_can_no_longer_sign"]
    if form["required"]:
        consequences.append("required_form_no_longer_asked")
    return Confirmation(affected_count=impact["versions"], consequences=consequences)


@destructive.write(
    "archive",
    "Archive a form and all its versions.",
    preview=_archive_preview,
    inverse=Inverse("restore", Identified, _delete_args),
)
async def archive_form(ctx: ToolContext, args: FormId) -> Identified:
    return _identified(await domain.set_archived(ctx.scope, args.form_id, True))


@forms.write(
    "restore",
    "Restore an archived form.",
    inverse=Inverse("archive", Identified, _delete_args),
)
async def restore_form(ctx: ToolContext, args: FormId) -> Identified:
    return _identified(await domain.set_archived(ctx.scope, args.form_id, False))


async def _delete_preview(ctx: ToolContext, args: FormId) -> Confirmation:
    form = await domain.get_form(ctx.scope, args.form_id)
    domain.require_no_submissions(form)  # nobody is asked to approve a delete that must fail
    return Confirmation(consequences=["permanent", "all_versions_deleted"])


@destructive.write(
    "delete",
    "Delete a form without submissions (else archive it).",
    preview=_delete_preview,
)
async def delete_form(ctx: ToolContext, args: FormId) -> dict[str, Any]:
    return await domain.delete_form(ctx.scope, args.form_id)


class SubmissionsArgs(Args):
    form_id: UUID | None = None
    member_id: UUID | None = None
    range: DateRange | None = None
    limit: int = Field(default=50, ge=1, le=200)


@staff.read("submissions", "List signed submissions (newest first).")
async def list_submissions(ctx: ToolContext, args: SubmissionsArgs) -> dict[str, Any]:
    since, until = range_bounds(ctx, args.range)
    rows = await domain.list_submissions(
        ctx.scope,
        form_id=args.form_id,
        membership_id=args.member_id,
        since=since,
        until=until,
        limit=args.limit,
    )
    return {"submissions": [domain.submission_out(r) for r in rows]}


class SubmissionId(Args):
    submission_id: UUID


@staff.read("submission", "One submission with its answers.")
async def get_submission(ctx: ToolContext, args: SubmissionId) -> dict[str, Any]:
    row = await domain.get_submission(ctx.scope, args.submission_id)
    out = domain.submission_out(row, with_answers=True)
    return dict(withhold_health_answers(out, ctx.caller.role))


@staff.read("unsigned", "Active members who haven't signed the published version.")
async def unsigned(ctx: ToolContext, args: FormId) -> dict[str, Any]:
    status = await domain.unsigned_members(ctx.scope, args.form_id)
    return {**status, "form": domain.form_out(status["form"])}
