"""T0 on the leads page: the open lead and the shown board are read before the model's turn."""

from __future__ import annotations

import json

from spotter.db import Database
from spotter.providers.fake import Reply, ScriptedModel, Text
from tests.support.agent import conversation_id_of, deps_for, kinds, run_turn, stored_executions
from tests.support.callers import caller_for
from tests.support.crm import make_crm
from tests.support.world import Org, create_org


async def test_the_selected_lead_and_its_board_are_seeded_for_this_lead(
    db: Database, clean_db: str, org: Org
) -> None:
    w = await make_crm(db, clean_db, org)
    model = ScriptedModel([Reply([Text("Noa is new.")])])
    coach = await caller_for(db, org, "coach")
    selection = {"leads:pipeline": {"pipelineId": w.pipeline, "pipelineName": "Trials"},
                 "leads:lead": {"leadId": w.lead}}  # fmt: skip
    events = await run_turn(
        deps_for(db, model), coach, "what do we know about this lead?",
        pathname=f"/dashboard/leads/{w.pipeline}", selection=selection,
    )  # fmt: skip
    rows = stored_executions(clean_db, conversation_id_of(events))
    assert [(r["router"], r["action"], r["status"]) for r in rows] == [
        ("leads", "get", "succeeded"), ("leads", "list", "succeeded"),
    ]  # fmt: skip
    lead_result = model.requests[0]["messages"][-1]["content"][0]["content"]
    assert json.loads(lead_result)["name"] == "Noa Bar"


async def test_an_org_without_lead_management_gets_no_lead_seed(
    db: Database, clean_db: str
) -> None:
    starter = create_org(clean_db, name="Starter box", tier="starter")
    model = ScriptedModel([Reply([Text("Leads need the Growth plan.")])])
    owner = await caller_for(db, starter, "owner")
    events = await run_turn(
        deps_for(db, model), owner, "show this pipeline",
        pathname="/dashboard/leads/0b0c7a52-52a1-4f7e-9a55-2f4b1d7f3a10",
    )  # fmt: skip
    assert "tool_started" not in kinds(events)
    assert len(model.requests[0]["messages"]) == 1
