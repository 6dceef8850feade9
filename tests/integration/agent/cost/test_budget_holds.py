"""Budgets that hold under concurrency, and usage recorded by the run's next write after each call.

Every tallied model call is reserved first (the room the cap leaves, counting the holds of calls
in flight, must pay its least useful bound; it holds up to its full bound and its output is
clamped to what it holds), then settled to its actual usage in `ai_usage_daily`.
"""

from __future__ import annotations

import asyncio
import json
import math
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest

from spotter.agent import events as ev
from spotter.agent.cost.budget import HOLD_TTL, MIN_OUTPUT_TOKENS, CallBound, daily_budget_micros
from spotter.agent.cost.holds import reserve
from spotter.agent.cost.model_policy import LOOP_MAX_TOKENS, LOOP_MODEL, model_policy
from spotter.agent.cost.pricing import OFFLINE_DEMO_MODEL, CallTokens, cost_usd_micros, rates_for
from spotter.agent.cost.usage import CallUsage, RunUsage
from spotter.agent.run import metering, quick_lane, send
from spotter.auth import Caller
from spotter.config import Settings
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
    bound = CallBound(LOOP_MODEL, 10_000, 1_000).full_micros
    assert bound == -(-(10_000 * rates.cache_write_5m + 1_000 * rates.output) // 1_000_000)
    assert bound >= (10_000 * rates.input + 1_000 * rates.output) // 1_000_000


def test_the_least_bound_caps_the_output_at_the_useful_floor() -> None:
    rates = rates_for(LOOP_MODEL)
    call = CallBound(LOOP_MODEL, 10_000, LOOP_MAX_TOKENS)
    floor = 10_000 * rates.cache_write_5m + MIN_OUTPUT_TOKENS * rates.output
    assert call.least_micros == -(-floor // 1_000_000) < call.full_micros
    # a call that asks for less than the floor is never clamped: its least bound is its bound
    small = CallBound(LOOP_MODEL, 10_000, 1_024)
    assert small.least_micros == small.full_micros


def test_a_clamped_call_costs_at_most_its_hold_even_if_it_writes_every_token() -> None:
    call = CallBound(LOOP_MODEL, 12_345, LOOP_MAX_TOKENS)
    for held in (call.least_micros, call.least_micros + 7_777, call.full_micros - 1):
        output = call.output_tokens_for(held)
        assert MIN_OUTPUT_TOKENS <= output < LOOP_MAX_TOKENS
        worst = CallTokens(cache_write_5m_tokens=12_345, output_tokens=output)
        assert cost_usd_micros(LOOP_MODEL, worst) <= held
        # and one more token would not have fit
        over = CallTokens(cache_write_5m_tokens=12_345, output_tokens=output + 1)
        assert cost_usd_micros(LOOP_MODEL, over) > held - 1
    assert call.output_tokens_for(call.full_micros) == LOOP_MAX_TOKENS


def test_a_free_model_s_call_is_never_clamped() -> None:
    """The offline demo model bills nothing: whatever it holds pays every token it may write
    (it divided by its zero output rate before)."""
    call = CallBound(OFFLINE_DEMO_MODEL, 12_345, LOOP_MAX_TOKENS)
    assert call.full_micros == call.least_micros == 0
    assert call.output_tokens_for(0) == LOOP_MAX_TOKENS


async def test_concurrent_reservations_see_each_other(
    db: Database, org: Org, clean_db: str, pools: list[Database]
) -> None:
    _spend(clean_db, org, CAP - 1_500)  # room for one hold of 1,000, not two
    now, user = datetime.now(UTC), org["owner"].user_id
    won = await asyncio.gather(
        *(reserve(p, org.id, "growth", now, uuid.uuid4(), user, 1_000) for p in pools)
    )
    assert sum(h is not None for h in won) == 1


async def test_a_hold_left_by_a_dead_process_stops_counting_after_its_ttl(
    db: Database, org: Org, clean_db: str
) -> None:
    _spend(clean_db, org, CAP - 1_500)
    now, user = datetime.now(UTC), org["owner"].user_id
    assert await reserve(db, org.id, "growth", now, uuid.uuid4(), user, 1_000) is not None
    assert await reserve(db, org.id, "growth", now, uuid.uuid4(), user, 1_000) is None
    with psycopg.connect(clean_db) as conn:
        conn.execute("UPDATE ai_budget_holds SET held_at = held_at - %s", (HOLD_TTL,))
    assert await reserve(db, org.id, "growth", now, uuid.uuid4(), user, 1_000) is not None


async def test_at_cap_minus_one_micro_no_concurrent_send_calls_the_model(
    db: Database, org: Org, owner: Caller, clean_db: str, pools: list[Database]
) -> None:
    _spend(clean_db, org, CAP - 1)
    model = ScriptedModel([Reply([Text("never")]) for _ in pools])
    outcomes = await asyncio.gather(*(run_turn(deps_for(p, model), owner, "go") for p in pools))
    assert all(_codes(o) == ["agent_budget_exceeded"] for o in outcomes)
    assert model.requests == [], "no call fits in one micro-dollar"
    assert _spent(clean_db, org) == CAP - 1 and _holds(clean_db) == 0


def _worst_case(body: dict[str, object]) -> Reply:
    """A model that writes every token it may and bills its whole input as a cache write: the
    most a request can cost (its body at chars / 4 is what the bound counts)."""
    sent = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    max_tokens = body["max_tokens"]
    assert isinstance(max_tokens, int)
    usage = FakeUsage(
        input_tokens=0, cache_write_5m_tokens=len(sent) // 4, output_tokens=max_tokens
    )
    return Reply([Text("spent it all")], usage=usage, delay_s=0.01)


# over the quick route's 280 characters, so the loop's call is the send's only tallied call
LONG_TEXT = "please summarize how the week went for the gym, " * 7


async def _full_bound(db: Database, owner: Caller) -> int:
    """One loop call's full bound for LONG_TEXT in a new conversation (a dry run's body)."""
    probe = ScriptedModel([Reply([Text("probe")])])
    await run_turn(deps_for(db, probe), owner, LONG_TEXT)
    [raw] = probe.raw_requests
    return CallBound(LOOP_MODEL, math.ceil(len(raw) / 4), LOOP_MAX_TOKENS).full_micros


async def test_budget_to_the_last_cent_a_call_is_clamped_to_what_is_left(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    full = await _full_bound(db, owner)
    left = full * 2 // 3  # less than one full call's bound, more than its least
    _spend(clean_db, org, CAP - _spent(clean_db, org) - left)
    model = ScriptedModel([_worst_case])
    events = await run_turn(deps_for(db, model), owner, LONG_TEXT)
    assert not _codes(events), "answered, not refused below a full call's bound"
    [body] = model.requests
    assert MIN_OUTPUT_TOKENS <= body["max_tokens"] < LOOP_MAX_TOKENS
    assert _spent(clean_db, org) <= CAP, "even writing every token it was allowed"
    assert CAP - _spent(clean_db, org) < full - left, "the clamp spends what was left"
    assert _holds(clean_db) == 0


async def test_budget_to_the_last_cent_below_the_least_bound_the_call_is_refused(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    full = await _full_bound(db, owner)
    least = CallBound(LOOP_MODEL, 0, LOOP_MAX_TOKENS).least_micros  # the output part alone
    assert least < full
    _spend(clean_db, org, CAP - _spent(clean_db, org) - least + 1)
    model = ScriptedModel([Reply([Text("never")])])
    events = await run_turn(deps_for(db, model), owner, LONG_TEXT)
    assert _codes(events) == ["agent_budget_exceeded"]
    assert model.requests == [], "a call that could not write a useful answer never starts"


async def test_n_concurrent_sends_with_room_for_k_calls_run_between_k_and_the_cap_never_over(
    db: Database, org: Org, owner: Caller, clean_db: str, pools: list[Database]
) -> None:
    """Issue 30 item 13: N concurrent sends on a cap whose room pays k calls' full bounds and
    half of another: k run at their full bound, one more clamped to what is left (the old rule
    refused it), the rest are refused, and spend never passes the cap even when every call
    writes all it may."""
    k = 3
    full = await _full_bound(db, owner)
    least = CallBound(LOOP_MODEL, 0, LOOP_MAX_TOKENS).least_micros
    _spend(clean_db, org, CAP - _spent(clean_db, org) - (k * full + full // 2))
    model = ScriptedModel([_worst_case for _ in pools])
    outcomes = await asyncio.gather(
        *(run_turn(deps_for(p, model), owner, LONG_TEXT) for p in pools)
    )
    ran = [o for o in outcomes if not _codes(o)]
    assert len(ran) == k + 1, "k full calls and one clamped to the rest"
    assert sorted(b["max_tokens"] for b in model.requests)[1:] == [LOOP_MAX_TOKENS] * k
    assert all(_codes(o) == ["agent_budget_exceeded"] for o in outcomes if o not in ran)
    assert _spent(clean_db, org) <= CAP, "never over"
    assert CAP - _spent(clean_db, org) < least, "nothing a useful call could use is left"
    assert _holds(clean_db) == 0, "settled"


async def test_a_call_cancelled_while_its_hold_is_taken_still_drops_the_hold(
    db: Database, org: Org, owner: Caller, clean_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The quick route's time budget runs out after its hold committed but before the run read
    it back (as on a loaded machine): the hold is still dropped with the run's next write. (The
    route holds for itself when prepare took no hold for it: a send whose tail needed results
    first.)"""
    monkeypatch.setattr(send, "route_bound", lambda *_: None)
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


def _route_cost(tokens: CallTokens) -> int:
    return cost_usd_micros(
        model_policy(Settings(environment="test"))["spotterQuickRoute"].model, tokens
    )


async def test_each_call_is_recorded_by_the_runs_next_write_and_never_twice(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    """(Was `..._recorded_as_it_completes_...`: a call's usage may now wait past the next
    call's start while its bound stays held — the quick route's, `test_abandoned_holds` — so the
    rule is the run's next write, whichever it is: here the loop's hold records the route, the
    reply that calls a tool records the first loop call.)"""
    seen: list[int] = []

    def second_call(body: dict[str, object]) -> Reply:
        seen.append(_spent(clean_db, org))  # the route and the first call are in ai_usage_daily
        return Reply([Text("done")], usage=FakeUsage(input_tokens=300, output_tokens=30))

    listing = ToolUse("programs", {"action": "list", "args": {}}, id="toolu_list")
    route = Reply([Text("LOOP")], usage=FakeUsage(input_tokens=1_000, output_tokens=2))
    model = ScriptedModel([tool_reply(listing), second_call], lanes={"quick_route": [route]})
    events = await run_turn(deps_for(db, model), owner, "list them")
    done = events[-1]
    assert isinstance(done, ev.Done) and not _codes(events)
    first_cost = 100 * 2 + 20 * 10  # FakeUsage() at claude-sonnet-5-5's rates
    route_cost = _route_cost(CallTokens(input_tokens=1_000, output_tokens=2))
    assert seen == [route_cost + first_cost] and route_cost > 0
    assert _spent(clean_db, org) == done.usage.cost_usd_micros
    with psycopg.connect(clean_db) as conn:
        turns = conn.execute("SELECT turns FROM ai_usage_daily").fetchone()
    assert turns == (1,), "one run, one turn"


@pytest.mark.parametrize(
    "cut",
    [
        Reply([Text("LOOP")], usage=FakeUsage(input_tokens=1_000), stall_after=2),
        Reply([Text("LOOP")], usage=FakeUsage(input_tokens=1_000), fail_after=2),
    ],
    ids=["past_its_time_budget", "failed_mid_stream"],
)
async def test_a_quick_route_cut_short_still_counts_the_tokens_its_stream_reported(
    db: Database, org: Org, owner: Caller, clean_db: str, monkeypatch: pytest.MonkeyPatch,
    cut: Reply,
) -> None:  # fmt: skip
    """The provider bills a call's input once it has started answering (message_start reports
    it): a route the lane gives up on still costs that, recorded with the run's usage."""
    monkeypatch.setattr(quick_lane, "ROUTE_BUDGET_SECONDS", 1.0)
    answer = Reply([Text("done")], usage=FakeUsage(input_tokens=300, output_tokens=30))
    model = ScriptedModel([answer], lanes={"quick_route": [cut]})
    events = await run_turn(deps_for(db, model), owner, "go")
    done = events[-1]
    assert isinstance(done, ev.Done) and not _codes(events), "the loop answered instead"
    route_cost = _route_cost(CallTokens(input_tokens=1_000, output_tokens=1))
    answer_cost = 300 * 2 + 30 * 10  # at claude-sonnet-5-5's rates
    assert route_cost > 0
    assert _spent(clean_db, org) == route_cost + answer_cost == done.usage.cost_usd_micros
    assert _holds(clean_db) == 0, "the route's hold went with its usage"


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
