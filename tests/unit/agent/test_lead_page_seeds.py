"""Which leads reads a page implies: the selected lead first, then the pipeline board."""

from __future__ import annotations

import uuid
from datetime import date

from spotter.agent.run.lead_page_seeds import lead_seed_inputs
from spotter.agent.run.seeding import seed_inputs

PIPELINE = str(uuid.uuid4())
LEAD = str(uuid.uuid4())
GET = ("leads", {"action": "get", "args": {"leadId": LEAD}})
BOARD = ("leads", {"action": "list", "args": {"pipelineId": PIPELINE}})


def test_the_keyed_selections_seed_the_lead_then_the_board() -> None:
    selection = {"leads:pipeline": {"pipelineId": PIPELINE, "pipelineName": "Trials"},
                 "leads:lead": {"leadId": LEAD}}  # fmt: skip
    assert lead_seed_inputs("/dashboard/leads", selection) == [GET, BOARD]


def test_flat_selection_keys_work_too() -> None:
    assert lead_seed_inputs("/dashboard", {"pipelineId": PIPELINE}) == [BOARD]


def test_a_pipeline_pathname_seeds_its_board() -> None:
    assert lead_seed_inputs(f"/dashboard/leads/{PIPELINE}/", None) == [BOARD]


def test_a_pipeline_and_lead_pathname_seeds_both() -> None:
    assert lead_seed_inputs(f"/dashboard/leads/{PIPELINE}/{LEAD}", None) == [GET, BOARD]


def test_the_selection_wins_over_the_path() -> None:
    other = str(uuid.uuid4())
    seeds = lead_seed_inputs(
        f"/dashboard/leads/{other}", {"leads:pipeline": {"pipelineId": PIPELINE}}
    )
    assert seeds == [BOARD]


def test_other_pages_and_non_ids_seed_nothing() -> None:
    assert lead_seed_inputs("/dashboard/leadsx/" + PIPELINE, None) == []
    assert lead_seed_inputs("/dashboard/leads/new", None) == []


def test_lead_seeds_come_before_the_schedule_and_count_towards_the_limit() -> None:
    seeds = seed_inputs(
        "/schedule", {"leads:lead": {"leadId": LEAD}, "pipelineId": PIPELINE}, date(2026, 12, 1)
    )
    assert seeds == [GET, BOARD]
