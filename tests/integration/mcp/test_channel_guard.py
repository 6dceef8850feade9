"""The channel guard: source text and score slots on workouts.set_sections / workouts.upsert
are accepted from MCP and refused from the agent."""

from __future__ import annotations

from typing import Any

import psycopg
from fastapi import FastAPI

from spotter.db import Database
from spotter.tools.invoke import invoke_tool
from tests.integration.mcp.conftest import answer, connect, payload, rows, token_for
from tests.support.callers import caller_for
from tests.support.hitl import add_program
from tests.support.tokens import TokenFactory
from tests.support.world import Org

MCP_ONLY = "Source text and score slots require the MCP channel."
SECTION = {"format": "for_time", "movements": [{"name": "Run", "distance": "400m"}]}
SCORES = [{"type": "time", "label": "Finish"}]


def _parts(**section: Any) -> list[dict[str, Any]]:
    return [{"name": "Conditioning", "sections": [SECTION | section]}]


def _day_grain(url: str, org: Org) -> None:
    with psycopg.connect(url) as conn:
        conn.execute(
            "UPDATE organizations SET day_grain_programming = true WHERE id = %s", (org.id,)
        )


async def test_mcp_set_sections_stores_source_text_and_score_slots(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org
) -> None:
    # replacing a workout's parts always confirms (issue 26 item 1): approved in the client
    async with connect(mcp_app, token_for(tokens, org, "coach"), elicit=answer(True)) as client:
        created = payload(await client.call_tool("workouts_create", {"title": "Run test"}))
        workout_id = created["output"]["id"]
        result = await client.call_tool("workouts_set_sections", {
            "workoutId": workout_id, "parts": _parts(scores=SCORES),
            "sourceText": "For time: 400m run", "scores": SCORES,
        })  # fmt: skip
        got = payload(await client.call_tool("workouts_get", {"workoutId": workout_id}))
    assert not result.is_error, payload(result)
    workout = got["output"]
    assert workout["sourceText"] == "For time: 400m run"
    assert workout["scores"] == SCORES
    assert workout["parts"][0]["sections"][0]["scores"] == SCORES


async def test_mcp_upsert_stores_the_coachs_source_text(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    _day_grain(clean_db, org)
    program = add_program(clean_db, org, "Main")
    async with connect(mcp_app, token_for(tokens, org, "coach"), elicit=answer(True)) as client:
        result = await client.call_tool("workouts_upsert", {
            "programId": str(program), "date": "2026-12-02", "title": "Tuesday",
            "parts": _parts(), "sourceText": "400m run for time", "scores": SCORES,
        })  # fmt: skip
    assert not result.is_error, payload(result)
    assert rows(clean_db, "SELECT source_text, scores FROM workouts") == [
        ("400m run for time", SCORES)
    ]


async def test_agent_upsert_with_source_text_or_scores_is_refused(
    db: Database, org: Org, clean_db: str
) -> None:
    _day_grain(clean_db, org)
    program = add_program(clean_db, org, "Main")
    coach = await caller_for(db, org, "coach")
    base = {"programId": str(program), "date": "2026-12-02", "title": "Tuesday", "parts": _parts()}
    for extra in ({"sourceText": "400m run"}, {"scores": SCORES}, {"parts": _parts(scores=SCORES)}):
        outcome = await invoke_tool(
            db, coach, "workouts", {"action": "upsert", "args": base | extra}
        )
        assert outcome.error is not None
        assert (outcome.error.code, outcome.error.message) == ("invalid_args", MCP_ONLY)
    assert rows(clean_db, "SELECT count(*) FROM workouts") == [(0,)]
