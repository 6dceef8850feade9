"""The leads, inbox and tasks routers through the runner, table-driven over every action:
happy path, role denial, tier gate, foreign ids, bad args, previews and inverses."""

from __future__ import annotations

from datetime import date
from typing import Any

import psycopg
import pytest

from spotter.agent.prompting.context import org_block
from spotter.db import Database
from spotter.db.scope import OrgScope
from spotter.domain import inbox, lead_pipelines, leads, tasks
from spotter.tools.catalog import load_catalog
from spotter.tools.errors import DomainError
from spotter.tools.invoke import invoke_tool, preview_tool
from tests.support.callers import caller_for
from tests.support.crm import CrmWorld, call, make_crm, sample_args
from tests.support.world import Org, create_org

CATALOG = load_catalog()
CRM = sorted(n for n, s in CATALOG.specs.items() if s.router in ("leads", "inbox", "tasks"))
GATED = [n for n in CRM if CATALOG.specs[n].feature_gate == "lead_management"]
MANAGER_ONLY = [n for n in CRM if "coach" not in CATALOG.specs[n].roles]
CONFIRMED = [n for n in CRM if CATALOG.specs[n].confirm != "never"]
UNDOABLE = [n for n in CRM if CATALOG.specs[n].inverse is not None]
# what must have happened before the sample call can succeed
PRECONDITION = {"leads.restore": "leads.archive", "inbox.reopen": "inbox.close"}
# reads that filter (a foreign id finds nothing) and calls that name no id
NO_TARGET = {"leads.list", "leads.list_pipelines", "leads.list_tags", "leads.create_pipeline",
             "leads.rename_tag", "leads.delete_tag", "inbox.list", "tasks.list"}  # fmt: skip


@pytest.fixture
async def world(db: Database, clean_db: str, org: Org) -> CrmWorld:
    return await make_crm(db, clean_db, org)


async def _run(db: Database, org: Org, role: str, name: str, args: dict[str, Any]) -> Any:
    return await invoke_tool(db, await caller_for(db, org, role), *call(name, args))


def test_the_table_covers_every_crm_action_and_the_spec_counts() -> None:
    routers = [n.split(".")[0] for n in CRM]
    assert (routers.count("leads"), routers.count("inbox"), routers.count("tasks")) == (28, 7, 5)
    blank = CrmWorld("p", ["s"] * 3, "q", ["t"] * 2, "l", "m", "t1", "t2", "x", "c", "k")
    assert set(CRM) == set(sample_args(blank))


def test_every_leads_and_inbox_action_reapplies_the_tier_gate() -> None:
    assert sorted(GATED) == [n for n in CRM if not n.startswith("tasks.")]


@pytest.mark.parametrize("name", CRM)
async def test_the_owner_can_run_every_action(
    db: Database, org: Org, world: CrmWorld, name: str
) -> None:
    samples = sample_args(world)
    if name in PRECONDITION:
        assert (await _run(db, org, "owner", PRECONDITION[name], samples[name])).ok
    outcome = await _run(db, org, "owner", name, samples[name])
    assert outcome.ok, outcome.error
    assert (outcome.audit_log_id is not None) == (CATALOG.specs[name].side_effects == "write")


@pytest.mark.parametrize("name", MANAGER_ONLY)
async def test_a_coach_is_refused_owner_admin_actions(
    db: Database, org: Org, world: CrmWorld, name: str
) -> None:
    outcome = await _run(db, org, "coach", name, sample_args(world)[name])
    assert outcome.error is not None and outcome.error.code == "forbidden"


@pytest.mark.parametrize("name", ["leads.convert", "leads.bulk_email", "leads.delete_stage"])
async def test_an_admin_may_run_owner_admin_actions(
    db: Database, org: Org, world: CrmWorld, name: str
) -> None:
    assert (await _run(db, org, "admin", name, sample_args(world)[name])).ok


@pytest.mark.parametrize("name", CRM)
async def test_a_member_is_refused_every_action(
    db: Database, org: Org, world: CrmWorld, name: str
) -> None:
    outcome = await _run(db, org, "member", name, sample_args(world)[name])
    assert outcome.error is not None and outcome.error.code == "forbidden"


@pytest.mark.parametrize("name", GATED)
async def test_an_org_without_lead_management_is_refused(
    db: Database, clean_db: str, org: Org, world: CrmWorld, name: str
) -> None:
    starter = create_org(clean_db, name="Starter box", tier="starter")
    outcome = await _run(db, starter, "owner", name, sample_args(world)[name])
    assert outcome.error is not None and outcome.error.code == "feature_unavailable"


async def test_a_feature_flag_opens_the_gate_for_a_starter_org(db: Database, clean_db: str) -> None:
    starter = create_org(clean_db, name="Starter box", tier="starter")
    with psycopg.connect(clean_db) as conn:
        conn.execute(
            "UPDATE organizations SET feature_flags = '{\"lead_management\": true}' WHERE id = %s",
            (starter.id,),
        )
    assert (await _run(db, starter, "owner", "leads.list_pipelines", {})).ok


@pytest.mark.parametrize("flag", ["1", '"true"', '"false"', "{}"])
async def test_a_flag_that_is_not_json_true_keeps_the_gate_closed_everywhere(
    db: Database, clean_db: str, flag: str
) -> None:
    """The runner, the prompt's org block and read.org read a flag by one rule."""
    starter = create_org(clean_db, name="Starter box", tier="starter")
    with psycopg.connect(clean_db) as conn:
        conn.execute(
            "UPDATE organizations SET feature_flags = jsonb_build_object('lead_management', %s::jsonb)"
            " WHERE id = %s",
            (flag, starter.id),
        )
    owner = await caller_for(db, starter, "owner")
    outcome = await invoke_tool(db, owner, *call("leads.list_pipelines", {}))
    assert outcome.error is not None and outcome.error.code == "feature_unavailable"
    assert "lead_management" not in org_block(owner)
    read = await invoke_tool(db, owner, *call("read.org", {}))
    assert read.ok and "lead_management" not in read.output["features"]


async def test_tasks_are_not_behind_the_gate(db: Database, clean_db: str) -> None:
    starter = create_org(clean_db, name="Starter box", tier="starter")
    assert (await _run(db, starter, "coach", "tasks.create", {"title": "Mop the floor"})).ok


@pytest.mark.parametrize("name", [n for n in CRM if n not in NO_TARGET])
async def test_another_orgs_ids_are_not_found(
    db: Database, clean_db: str, org: Org, other_org: Org, world: CrmWorld, name: str
) -> None:
    theirs = await make_crm(db, clean_db, other_org)
    outcome = await _run(db, org, "owner", name, sample_args(theirs)[name])
    assert outcome.error is not None and outcome.error.code == "not_found", outcome.error


@pytest.mark.parametrize("name", CRM)
async def test_unknown_arguments_are_invalid(
    db: Database, org: Org, world: CrmWorld, name: str
) -> None:
    outcome = await _run(db, org, "owner", name, {**sample_args(world)[name], "bogus": 1})
    assert outcome.error is not None and outcome.error.code == "invalid_args"


@pytest.mark.parametrize("name", CONFIRMED)
async def test_every_confirmable_action_previews_a_card(
    db: Database, org: Org, world: CrmWorld, name: str
) -> None:
    owner = await caller_for(db, org, "owner")
    args = sample_args(world)[name]
    card = await preview_tool(db, owner, *call(name, args))
    assert card.target is not None or card.affected_count is not None
    assert card.consequences
    assert {a["field"] for a in card.arguments} >= set(args)


async def _snapshot(db: Database, org: Org, w: CrmWorld) -> dict[str, Any]:
    """What an undo must restore, without the timeline (an undo adds to it)."""
    async with db.org_tx(org.id) as conn:
        scope = OrgScope(conn, org.id)
        found = await leads.list_leads(scope, statuses=("open", "won", "lost", "converted"))
        details = [await leads.get_lead(scope, lead_id) for lead_id in (w.lead, w.lead2)]
        return {
            "leads": found,
            "details": [
                {k: v for k, v in d.items() if k not in ("activity", "notes")} for d in details
            ],
            "pipelines": await lead_pipelines.list_pipelines(scope, include_archived=False),
            "threads": await inbox.list_threads(scope, status=None),
            "tasks": await tasks.list_tasks(scope, date(2026, 12, 1), status=None),
        }


@pytest.mark.parametrize("name", UNDOABLE)
async def test_every_inverse_undoes_its_action(
    db: Database, org: Org, world: CrmWorld, name: str
) -> None:
    samples = sample_args(world)
    if name in PRECONDITION:
        assert (await _run(db, org, "owner", PRECONDITION[name], samples[name])).ok
    before = await _snapshot(db, org, world)
    done = await _run(db, org, "owner", name, samples[name])
    assert done.ok, done.error
    assert await _snapshot(db, org, world) != before
    inverse = CATALOG.specs[name].inverse
    assert inverse is not None
    undone = await _run(
        db, org, "owner", f"{inverse.router}.{inverse.action}", inverse.build_input(done.output)
    )
    assert undone.ok, undone.error
    assert await _snapshot(db, org, world) == before


async def test_a_preview_refuses_archiving_the_default_pipeline(
    db: Database, org: Org, world: CrmWorld
) -> None:
    owner = await caller_for(db, org, "owner")
    with pytest.raises(DomainError) as info:
        await preview_tool(
            db, owner, *call("leads.archive_pipeline", {"pipelineId": world.pipeline})
        )
    assert info.value.details["reason"] == "pipeline_is_default"
