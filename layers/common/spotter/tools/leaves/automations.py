"""automations — email automations: trigger, delay, template; activate, test send."""

from __future__ import annotations

from typing import Annotated, Any
from uuid import UUID

from pydantic import Field

from spotter.domain import automations as domain
from spotter.tools.args import Args, Name
from spotter.tools.cards import Confirmation
from spotter.tools.context import ToolContext
from spotter.tools.entities import entity_namer
from spotter.tools.outbound import Body, Subject, outbound_card
from spotter.tools.router import Router
from spotter.tools.spec import (
    MANAGERS,
    Audit,
    EntityTarget,
    Identified,
    Inverse,
    NameTarget,
    Output,
)

automations = Router(
    "automations",
    "Email automations (automationId): on a member trigger, after delayHours, send a template"
    " with {{first_name}} {{full_name}} {{gym_name}} {{plan_name}}.",
    roles=MANAGERS,
    feature_gate="email_automations",
)
# Actions on one existing automation: the card names it.
existing = automations.group(target=EntityTarget("automation", "automation_id"))
# Switching one on or off, and test-sending it, are confirmed.
confirmed = existing.group(confirm="always")
Delay = Annotated[int, Field(ge=0, le=8760)]


@entity_namer("automation")
async def _automation_name(ctx: ToolContext, automation_id: UUID) -> str | None:
    return str((await domain.get(ctx.scope, automation_id))["name"])


class AutomationArgs(Args):
    automation_id: UUID


class ListArgs(Args):
    status: domain.Status | None = None


@automations.read("list", "List automations.")
async def list_automations(ctx: ToolContext, args: ListArgs) -> dict[str, Any]:
    return {"automations": await domain.list_automations(ctx.scope, status=args.status)}


@automations.read("get", "One automation with its templates.")
async def get_automation(ctx: ToolContext, args: AutomationArgs) -> dict[str, Any]:
    return domain.automation_out(await domain.get(ctx.scope, args.automation_id))


class CreateArgs(Args):
    name: Name
    trigger: domain.Trigger
    delay_hours: Delay = 0
    subject: Subject
    body: Body


@automations.write(
    "create",
    "Create a draft automation.",
    target=NameTarget(("name",)),
    inverse=Inverse("delete", Identified, lambda out: AutomationArgs(automation_id=out.id)),
)
async def create(ctx: ToolContext, args: CreateArgs) -> Identified:
    row = await domain.create(
        ctx.scope,
        name=args.name,
        trigger=args.trigger,
        delay_hours=args.delay_hours,
        subject=args.subject,
        body=args.body,
        created_by=ctx.caller.user_id,
    )
    return Identified.model_validate(row)


class UpdateArgs(AutomationArgs):
    name: Name | None = None
    trigger: domain.Trigger | None = None
    delay_hours: Delay | None = None
    subject: Subject | None = None
    body: Body | None = None

    def changes(self) -> dict[str, Any]:
        given = {
            "name": self.name,
            "trigger": self.trigger,
            "delay_hours": self.delay_hours,
            "subject_template": self.subject,
            "body_template": self.body,
        }
        return {k: v for k, v in given.items() if v is not None}


class Updated(Output):
    id: UUID
    previous: dict[str, Any]


def _restore_previous(out: Updated) -> UpdateArgs:
    return UpdateArgs.model_validate({"automationId": out.id, **out.previous})


@existing.write(
    "update",
    "Change an automation's name, trigger, delay or template.",
    inverse=Inverse("update", Updated, _restore_previous),
)
async def update(ctx: ToolContext, args: UpdateArgs) -> Updated:
    return Updated.model_validate(
        await domain.update(ctx.scope, args.automation_id, args.changes())
    )


async def _delete_preview(ctx: ToolContext, args: AutomationArgs) -> Confirmation:
    row = await domain.get(ctx.scope, args.automation_id)
    live = ["active_automation_stops"] if row["status"] == "active" else []
    return Confirmation(affected_count=1, consequences=["automation_deleted", *live])


@existing.write("delete", "Delete an automation.", confirm="destructive", preview=_delete_preview)
async def delete(ctx: ToolContext, args: AutomationArgs) -> dict[str, Any]:
    return await domain.delete(ctx.scope, args.automation_id)


class StatusChange(Output):
    id: UUID


async def _activate_preview(ctx: ToolContext, args: AutomationArgs) -> Confirmation:
    row = await domain.check_status_change(ctx.scope, args.automation_id, "active")
    return Confirmation(
        consequences=["automation_emails_members"],
        changes=[{"field": "status", "old": row["status"], "new": "active"}],
    )


async def _deactivate_preview(ctx: ToolContext, args: AutomationArgs) -> Confirmation:
    row = await domain.check_status_change(ctx.scope, args.automation_id, "inactive")
    return Confirmation(
        consequences=["automation_stops"],
        changes=[{"field": "status", "old": row["status"], "new": "inactive"}],
    )


@confirmed.write(
    "activate",
    "Activate: it starts emailing members.",
    preview=_activate_preview,
    inverse=Inverse("deactivate", StatusChange, lambda out: AutomationArgs(automation_id=out.id)),
)
async def activate(ctx: ToolContext, args: AutomationArgs) -> StatusChange:
    return StatusChange.model_validate(
        await domain.set_status(ctx.scope, args.automation_id, "active")
    )


@confirmed.write(
    "deactivate",
    "Deactivate: it stops emailing.",
    preview=_deactivate_preview,
    inverse=Inverse("activate", StatusChange, lambda out: AutomationArgs(automation_id=out.id)),
)
async def deactivate(ctx: ToolContext, args: AutomationArgs) -> StatusChange:
    return StatusChange.model_validate(
        await domain.set_status(ctx.scope, args.automation_id, "inactive")
    )


async def _test_send_preview(ctx: ToolContext, args: AutomationArgs) -> Confirmation:
    email = await domain.sample_email(ctx.scope, args.automation_id, ctx.caller.user_id,
                                    gym=ctx.caller.org_name)  # fmt: skip
    return outbound_card([email.to_name or email.to_address], subject=email.subject,
                         body=email.body, consequences=["test_email_to_you"])  # fmt: skip


@confirmed.write(
    "test_send",
    "Email yourself a sample of the automation.",
    external_effects=True,
    preview=_test_send_preview,
    audit=Audit("automation", "automation.test_sent"),
)
async def test_send(ctx: ToolContext, args: AutomationArgs) -> dict[str, Any]:
    return await domain.send_test(
        ctx.scope,
        args.automation_id,
        user_id=ctx.caller.user_id,
        gym=ctx.caller.org_name,
        link=ctx.outbox_link,
    )
