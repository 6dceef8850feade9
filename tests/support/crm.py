"""A small CRM per org for tool tests: two pipelines, two leads, two inbox threads, a task.

Written through the domain functions on the app role, so the rows obey the tools' rules.
`sample_args` gives every CRM action valid-shaped arguments naming this world's rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any
from uuid import UUID

import psycopg

from spotter.db import Database
from spotter.db.scope import OrgScope
from spotter.domain import lead_pipelines, leads, tasks
from tests.support.world import Org, add_person


@dataclass(frozen=True)
class CrmWorld:
    pipeline: str  # "Trials", the default: New, Contacted, Trial
    stages: list[str]
    pipeline2: str  # "Corporate": Enquiry, Proposal
    stages2: list[str]
    lead: str  # Noa Bar, open, tagged "trial", in New
    lead2: str  # Tal Gal, open, in Contacted
    lead_thread: str
    member_thread: str
    member: str  # the member on member_thread (has an email)
    staff: str  # the coach's membership id
    task: str


async def make_crm(db: Database, owner_url: str, org: Org) -> CrmWorld:
    member = add_person(owner_url, org, "Maya Cohen")
    with psycopg.connect(owner_url) as conn:
        conn.execute(
            "UPDATE users SET email = %s WHERE id = %s",
            (f"maya.{org.clerk_org_id}@example.com", member.user_id),
        )
    actor = org["owner"].user_id
    async with db.org_tx(org.id) as conn:
        scope = OrgScope(conn, org.id)
        trials = await lead_pipelines.create_pipeline(
            scope, name="Trials", stages=["New", "Contacted", "Trial"], make_default=True
        )
        corporate = await lead_pipelines.create_pipeline(
            scope, name="Corporate", stages=["Enquiry", "Proposal"], make_default=False
        )
        stages = [s["id"] for s in trials["stages"]]
        lead = await leads.create_lead(
            scope, actor, pipeline_id=None, stage_id=None, owner_user_id=None, tags=["trial"],
            contact={"first_name": "Noa", "last_name": "Bar", "email": f"noa.{org.clerk_org_id}@example.com",
                     "phone": None, "source": "website"},
        )  # fmt: skip
        lead2 = await leads.create_lead(
            scope, actor, pipeline_id=None, stage_id=UUID(stages[1]), owner_user_id=None, tags=[],
            contact={"first_name": "Tal", "last_name": "Gal", "email": None, "phone": "+972-50-1",
                     "source": "walk-in"},
        )  # fmt: skip
        threads = []
        for lead_id, membership_id, subject in (
            (lead["id"], None, "Trial class question"),
            (None, member.membership_id, "Freezing my membership"),
        ):
            cur = await conn.execute(
                "INSERT INTO inbox_threads (organization_id, lead_id, membership_id, subject)"
                " VALUES (%s, %s, %s, %s) RETURNING id",
                (org.id, lead_id, membership_id, subject),
            )
            row = await cur.fetchone()
            assert row is not None
            await conn.execute(
                "INSERT INTO inbox_messages (organization_id, thread_id, direction, body)"
                " VALUES (%s, %s, 'inbound', 'Hello?')",
                (org.id, row["id"]),
            )
            threads.append(str(row["id"]))
        task = await tasks.create_task(
            scope, actor, date(2026, 12, 1), title="Call Noa", notes=None, due_on=None,
            assignee_user_id=None, lead_id=UUID(lead["id"]), membership_id=None,
        )  # fmt: skip
    return CrmWorld(
        pipeline=trials["id"], stages=stages, pipeline2=corporate["id"],
        stages2=[s["id"] for s in corporate["stages"]], lead=lead["id"], lead2=lead2["id"],
        lead_thread=threads[0], member_thread=threads[1], member=str(member.membership_id),
        staff=str(org["coach"].membership_id), task=task["id"],
    )  # fmt: skip


def sample_args(w: CrmWorld) -> dict[str, dict[str, Any]]:
    """`router.action` -> arguments that name `w`'s rows (and would succeed in `w`'s org)."""
    return {
        "leads.list": {"pipelineId": w.pipeline},
        "leads.get": {"leadId": w.lead},
        "leads.list_pipelines": {},
        "leads.list_tags": {},
        "leads.create": {"firstName": "Dan", "email": "dan@example.com", "stageId": w.stages[0]},
        "leads.update": {"leadId": w.lead, "phone": "+972-52-2"},
        "leads.move": {"leadId": w.lead, "stageId": w.stages[2]},
        "leads.assign": {"leadId": w.lead, "ownerId": w.staff},
        "leads.set_status": {"leadId": w.lead, "status": "lost", "reason": "too far"},
        "leads.archive": {"leadId": w.lead},
        "leads.restore": {"leadId": w.lead},
        "leads.add_note": {"leadId": w.lead, "body": "Prefers mornings."},
        "leads.tag": {"leadId": w.lead, "tags": ["hot"]},
        "leads.untag": {"leadId": w.lead, "tags": ["trial"]},
        "leads.convert": {"leadId": w.lead},
        "leads.bulk_update": {"leadIds": [w.lead, w.lead2], "ownerId": w.staff},
        "leads.bulk_tag": {"leadIds": [w.lead, w.lead2], "add": ["vip"]},
        "leads.bulk_move": {"leadIds": [w.lead, w.lead2], "stageId": w.stages2[0]},
        "leads.bulk_email": {
            "leadIds": [w.lead, w.lead2],
            "subject": "Open day",
            "body": "Come on Friday.",
        },
        "leads.create_pipeline": {"name": "Kids", "stages": ["Enquiry", "Trial"]},
        "leads.update_pipeline": {"pipelineId": w.pipeline2, "name": "B2B"},
        "leads.archive_pipeline": {"pipelineId": w.pipeline2},
        "leads.create_stage": {"pipelineId": w.pipeline, "name": "Won back", "position": 1},
        "leads.rename_stage": {"stageId": w.stages[0], "name": "Fresh"},
        "leads.reorder_stages": {"pipelineId": w.pipeline, "stageIds": w.stages[::-1]},
        "leads.delete_stage": {"stageId": w.stages[0], "moveToStageId": w.stages[1]},
        "leads.rename_tag": {"tag": "trial", "newTag": "trialist"},
        "leads.delete_tag": {"tag": "trial"},
        "inbox.list": {},
        "inbox.read": {"threadId": w.lead_thread},
        "inbox.assign": {"threadId": w.lead_thread, "assigneeId": w.staff},
        "inbox.tag": {"threadId": w.lead_thread, "add": ["urgent"]},
        "inbox.close": {"threadId": w.lead_thread},
        "inbox.reopen": {"threadId": w.lead_thread},
        "inbox.reply": {"threadId": w.member_thread, "body": "Yes, from Monday."},
        "tasks.list": {},
        "tasks.create": {"title": "Email Tal", "leadId": w.lead2, "dueOn": "2026-12-04"},
        "tasks.update": {"taskId": w.task, "dueOn": "2026-12-05", "assigneeId": w.staff},
        "tasks.complete": {"taskId": w.task},
        "tasks.delete": {"taskId": w.task},
    }


def call(name: str, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    router, action = name.split(".")
    return router, {"action": action, "args": args}
