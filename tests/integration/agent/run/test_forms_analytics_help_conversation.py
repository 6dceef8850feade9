"""Forms, analytics and help through the orchestrator with the scripted model: publishing asks
for confirmation with the server's card, reports and help run as reads the model reads, and a
delete that must fail is never put in front of a person."""

from __future__ import annotations

import json

from spotter.agent import events as ev
from spotter.agent.run import resolve as resolution
from spotter.db import Database
from spotter.domain import forms
from spotter.providers.fake import Reply, ScriptedModel, Text, ToolUse
from tests.support.agent import conversation_id_of, deps_for, run_turn, stored_executions
from tests.support.callers import caller_for
from tests.support.forms import TERMS, WAIVER_FIELDS, published_waiver, scope_of, sign
from tests.support.hitl import audit_count, collect, of_type, suspend
from tests.support.world import Org


async def test_publishing_a_form_waits_for_approval_then_runs_once(
    db: Database, org: Org, clean_db: str
) -> None:
    async with scope_of(db, org) as scope:
        form = await forms.create_form(
            scope, kind="waiver", name="Liability waiver", body=TERMS, fields=WAIVER_FIELDS
        )
    owner = await caller_for(db, org, "owner")
    model = ScriptedModel([Reply([Text("Published: members sign version 1.")])])
    publish = ToolUse("forms", {"action": "publish", "args": {"formId": str(form["id"])}}, id="t1")
    conversation, suspended = await suspend(db, owner, model, publish)
    [card] = of_type(suspended, ev.ConfirmationPending)
    assert card.confirmation.target == "Liability waiver"
    assert "members_sign_this_version" in card.confirmation.consequences
    events = await collect(resolution.confirm(deps_for(db, model), owner, conversation, "t1", True))
    [completed] = of_type(events, ev.ToolCompleted)
    assert completed.ok and completed.output["publishedVersion"] == 1
    assert audit_count(clean_db, "form.published") == 1


async def test_reports_and_help_are_reads_the_model_answers_from(
    db: Database, org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, org, "owner")
    model = ScriptedModel(
        [
            Reply(
                [
                    ToolUse("analytics", {"action": "attendance", "args": {}}, id="a1"),
                    ToolUse("help", {"action": "ask", "args": {"question": "waitlist"}}, id="h1"),
                ]
            ),
            Reply([Text("Nobody checked in yet; the waitlist fills freed spots in order.")]),
        ]
    )
    events = await run_turn(
        deps_for(db, model), owner, "how was attendance? how do waitlists work?"
    )
    assert not of_type(events, ev.ConfirmationPending)
    rows = {r["tool_use_id"]: r for r in stored_executions(clean_db, conversation_id_of(events))}
    assert {k: r["status"] for k, r in rows.items()} == {"a1": "succeeded", "h1": "succeeded"}
    results = model.requests[-1]["messages"][-1]["content"]
    texts = {block["tool_use_id"]: json.loads(block["content"]) for block in results}
    assert texts["a1"]["totals"]["checkIns"] == 0 and "period" in texts["a1"]
    assert texts["h1"]["articles"][0]["slug"] == "bookings-and-waitlist"


async def test_a_delete_of_a_signed_form_fails_without_asking_anyone(
    db: Database, org: Org, clean_db: str
) -> None:
    form_id = await published_waiver(db, org)
    await sign(db, org, form_id, org["member"].membership_id)
    owner = await caller_for(db, org, "owner")
    model = ScriptedModel([Reply([Text("It has a signature; I can archive it instead.")])])
    delete = ToolUse("forms", {"action": "delete", "args": {"formId": str(form_id)}}, id="t1")
    _, events = await suspend(db, owner, model, delete)
    assert not of_type(events, ev.ConfirmationPending)
    [completed] = of_type(events, ev.ToolCompleted)
    assert (completed.ok, completed.error["code"]) == (False, "form_has_submissions")
