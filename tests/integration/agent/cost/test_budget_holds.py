"""Budgets that hold under concurrency, and usage recorded as each call completes.

Every tallied model call is reserved first (its upper-bound cost must fit under the cap, counting
the holds of calls in flight), then settled to its actual usage in `ai_usage_daily`.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest

from spotter.agent import events as ev
from spotter.agent.cost.budget import HOLD_TTL, daily_budget_micros
from spotter.agent.cost.holds import reserve, upper_bound_micros
from spotter.agent.cost.model_policy import LOOP_MAX_TOKENS, LOOP_MODEL
from spotter.agent.cost.pricing import CallTokens, rates_for
from spotter.agent.cost.usage import CallUsage, RunUsage
from spotter.agent.run import metering, quick_lane
from spotter.auth import Caller
from spotter.db import Database
from spotter.providers.fake import (
    FakeUsage,
    ProviderError,
    Reply,
    ScriptedModel,
    Text,
    ToolUse,
    tool_reply,
)
from tests.support.agent import deps_for, run_turn
from tests.support.callers import caller_for
from tests.support.hitl import of_type
from tests.support.world import Org

CAP = daily_budget_micros("growth")
OUTPUT_BOUND = LOOP_MAX_TOKENS * rates_for(LOOP_MODEL).output // 1_000_000


@pytest.fixture
async def owner(db: Database, org: Org) -> Caller:
    return await caller_for(db, org, "owner")


@pytest.fixture
async def pools(app_url: str) -> AsyncIterator[list[Database]]:
    opened = [await Database.open(app_url, max_size=1) for _ in range(8)]
    yield opened
    await asyncio.gather(*(p.close() for p in opened))


def _spend(url: str, org: Org, micros: int) -> None:
    with psycopg.connect(url) as conn:
        conn.execute(
            "INSERT INTO ai_usage_daily (organization_id, user_id, day, cost_usd_micros)"
            " VALUES (%s, %s, current_date, %s)",
            (org.id, org["coach"].user_id, micros),
        )


def _spent(url: str, org: Org) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT coalesce(sum(cost_usd_micros), 0) FROM ai_usage_daily"
            " WHERE organization_id = %s",
            (org.id,),
        ).fetchone()
    assert row is not None
    return int(row[0])


def _holds(url: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT count(*) FROM ai_budget_holds").fetchone()
    assert row is not None
    return int(row[0])


def _codes(events: list[ev.AgentEvent]) -> list[str]:
    return [e.code for e in of_type(events, ev.Error)]


def test_the_upper_bound_covers_max_output_and_cache_written_input() -> None:
    rates = rates_for(LOOP_MODEL)
    bound = upper_bound_micros(LOOP_MODEL, 10_000, 1_000)
    assert bound == -(-(10_000 * rates.cache_write_5m + 1_000 * rates.output) // 1_000_000)
    assert bound >= (10_000 * rates.input + 1_000 * rates.output) // 1_000_000


async def test_concurrent_reservations_see_each_other(
    db: Database, org: Org, clean_db: str, pools: list[Database]
) -> None:
    _spend(clean_db, org, CAP - 1_500)  # room for one hold of 1,000, not two
    now = datetime.now(UTC)
    won = await asyncio.gather(
        *(reserve(p, org.id, "growth", now, uuid.uuid4(), 1_000) for p in pools)
    )
    assert sum(h is not None for h in won) == 1


async def test_a_hold_left_by_a_dead_process_stops_counting_after_its_ttl(
    db: Database, org: Org, clean_db: str
) -> None:
    _spend(clean_db, org, CAP - 1_500)
    now = datetime.now(UTC)
    assert await reserve(db, org.id, "growth", now, uuid.uuid4(), 1_000) is not None
    assert await reserve(db, org.id, "growth", now, uuid.uuid4(), 1_000) is None
    with psycopg.connect(clean_db) as conn:
        conn.execute("UPDATE ai_budget_holds SET held_at = held_at - %s", (HOLD_TTL,))
    assert await reserve(db, org.id, "growth", now, uuid.uuid4(), 1_000) is not None


async def test_at_cap_minus_one_micro_no_concurrent_send_calls_the_model(
    db: Database, org: Org, owner: Caller, clean_db: str, pools: list[Database]
) -> None:
    _spend(clean_db, org, CAP - 1)
    model = ScriptedModel([Reply([Text("never")]) for _ in pools])
    outcomes = await asyncio.gather(*(run_turn(deps_for(p, model), owner, "go") for p in pools))
    assert all(_codes(o) == ["agent_budget_exceeded"] for o in outcomes)
    assert model.requests == [], "no call fits in one micro-dollar"
    assert _spent(clean_db, org) == CAP - 1 and _holds(clean_db) == 0


async def test_with_room_for_one_call_eight_concurrent_sends_start_one(
    db: Database, org: Org, owner: Caller, clean_db: str, pools: list[Database]
) -> None:
    # room for one call's bound (its output part alone is OUTPUT_BOUND), never for two
    _spend(clean_db, org, CAP - OUTPUT_BOUND * 19 // 10)
    before = _spent(clean_db, org)
    model = ScriptedModel([Reply([Text("the one")], delay_s=0.02) for _ in pools])
    outcomes = await asyncio.gather(*(run_turn(deps_for(p, model), owner, "go") for p in pools))
    started = [o for o in outcomes if not _codes(o)]
    assert len(started) == 1 and len(model.requests) == 1
    assert all(_codes(o) == ["agent_budget_exceeded"] for o in outcomes if o not in started)
    done = started[0][-1]
    assert isinstance(done, ev.Done)
    assert _spent(clean_db, org) == before + done.usage.cost_usd_micros <= CAP
    assert _holds(clean_db) == 0, "settled"


async def test_a_call_cancelled_while_its_hold_is_taken_still_drops_the_hold(
    db: Database, org: Org, owner: Caller, clean_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The quick route's time budget runs out after its hold committed but before the run read
    it back (as on a loaded machine): the hold is still dropped with the run's next write."""
    taking = metering.queue_reserve

    class ReadLate:
        def __init__(self, cursor: Any) -> None:
            self.cursor = cursor

        async def fetchone(self) -> Any:
            await asyncio.sleep(0.3)  # committed; read back late
            return await self.cursor.fetchone()

    async def slow_to_read(*args: Any, **kwargs: Any) -> Any:
        return ReadLate(await taking(*args, **kwargs))

    monkeypatch.setattr(metering, "queue_reserve", slow_to_read)
    monkeypatch.setattr(quick_lane, "ROUTE_BUDGET_SECONDS", 0.1)
    events = await run_turn(deps_for(db, ScriptedModel([Reply([Text("ok")])])), owner, "go")
    assert isinstance(events[-1], ev.Done) and not _codes(events)
    assert _holds(clean_db) == 0, "every hold the run took was dropped"


async def test_a_failed_call_releases_its_hold_and_records_nothing(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    model = ScriptedModel([ProviderError(500)])
    events = await run_turn(deps_for(db, model), owner, "go")
    assert _codes(events) == ["provider_unavailable"]
    assert _holds(clean_db) == 0 and _spent(clean_db, org) == 0


async def test_each_call_is_recorded_as_it_completes_and_never_twice(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    seen: list[int] = []

    def second_call(body: dict[str, object]) -> Reply:
        seen.append(_spent(clean_db, org))  # the first call is already in ai_usage_daily
        return Reply([Text("done")], usage=FakeUsage(input_tokens=300, output_tokens=30))

    listing = ToolUse("programs", {"action": "list", "args": {}}, id="toolu_list")
    model = ScriptedModel([tool_reply(listing), second_call])
    events = await run_turn(deps_for(db, model), owner, "list them")
    done = events[-1]
    assert isinstance(done, ev.Done) and not _codes(events)
    first_cost = 100 * 2 + 20 * 10  # FakeUsage() at claude-sonnet-5-5's rates
    assert seen == [first_cost]
    assert _spent(clean_db, org) == done.usage.cost_usd_micros
    with psycopg.connect(clean_db) as conn:
        turns = conn.execute("SELECT turns FROM ai_usage_daily").fetchone()
    assert turns == (1,), "one run, one turn"


async def test_record_pending_adds_only_what_was_not_recorded(
    db: Database, org: Org, clean_db: str
) -> None:
    usage = RunUsage()
    now = datetime.now(UTC)
    usage.add(CallUsage("claude-haiku-4-5", CallTokens(input_tokens=10), 5))
    for _ in range(2):
        async with db.org_tx(org.id) as conn:
            mark = await usage.record_pending(conn, org.id, org["owner"].user_id, now)
        usage.mark_recorded(mark)
    usage.add(CallUsage("claude-haiku-4-5", CallTokens(input_tokens=20), 7))
    async with db.org_tx(org.id) as conn:
        usage.mark_recorded(await usage.record_pending(conn, org.id, org["owner"].user_id, now))
    with psycopg.connect(clean_db) as conn:
        row = conn.execute(
            "SELECT input_tokens, cost_usd_micros, turns FROM ai_usage_daily"
        ).fetchone()
    assert row == (30, 12, 1)
