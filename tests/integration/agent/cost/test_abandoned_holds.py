"""A call's bound is held until its usage is recorded, and the sweep charges the holds of runs
that are gone: once, as an estimate, never a live run's, never a call the run recorded.

The quick route's usage waits for the loop's reply (issue 22 item 6), its bound held by prepare's
transaction on every tier; a process killed while the loop's call streams leaves that hold (and
on a metered tier the loop call's own), which the sweep charges once the run's lease is stale.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

import psycopg
import pytest
from psycopg.rows import dict_row

from spotter.agent import events as ev
from spotter.agent.approvals import sweep
from spotter.agent.cost import model_policy
from spotter.agent.cost.budget import HOLD_TTL
from spotter.agent.cost.holds import reserve
from spotter.agent.cost.pricing import CallTokens, cost_usd_micros
from spotter.agent.cost.usage import CallUsage, RunUsage
from spotter.agent.run_lease import LEASE_TTL, acquire_lease
from spotter.auth import Caller
from spotter.config import Settings
from spotter.db import Database
from spotter.providers.fake import Reply, ScriptedModel, Text
from tests.support.agent import conversation_id_of, deps_for, run_turn
from tests.support.callers import caller_for
from tests.support.send_child import ROUTE_USAGE, kill_send_at
from tests.support.world import Org, create_org

ROUTE_MODEL = model_policy(Settings(environment="test"))["spotterQuickRoute"].model


@pytest.fixture
def unmetered_org(clean_db: str) -> Org:
    return create_org(clean_db, name="Box E", tier="enterprise")


@pytest.fixture
async def pools(app_url: str) -> AsyncIterator[list[Database]]:
    opened = [await Database.open(app_url, max_size=1) for _ in range(4)]
    yield opened
    await asyncio.gather(*(p.close() for p in opened))


def _day_row(url: str, org: Org) -> dict[str, int]:
    with psycopg.connect(url, row_factory=dict_row) as conn:
        row = conn.execute(
            "SELECT coalesce(sum(cost_usd_micros), 0)::bigint AS cost,"
            " coalesce(sum(estimated_usd_micros), 0)::bigint AS estimated,"
            " coalesce(sum(input_tokens), 0)::bigint AS input_tokens"
            " FROM ai_usage_daily WHERE organization_id = %s",
            (org.id,),
        ).fetchone()
    assert row is not None
    return {k: int(v) for k, v in row.items()}


def _holds(url: str, org: Org) -> list[dict[str, Any]]:
    with psycopg.connect(url, row_factory=dict_row) as conn:
        return conn.execute(
            "SELECT run_id, user_id, amount_usd_micros FROM ai_budget_holds"
            " WHERE organization_id = %s ORDER BY held_at",
            (org.id,),
        ).fetchall()


def _lapse(url: str, org: Org) -> None:
    """The lease's TTL passes for the org's holds and conversations: a run still alive would
    have refreshed its lease meanwhile."""
    lapsed = (LEASE_TTL + LEASE_TTL / 60, org.id)
    with psycopg.connect(url) as conn:
        conn.execute(
            "UPDATE ai_budget_holds SET held_at = held_at - %s WHERE organization_id = %s", lapsed
        )
        conn.execute(
            "UPDATE ai_conversations SET live_run_claimed_at = live_run_claimed_at - %s"
            " WHERE organization_id = %s",
            lapsed,
        )


async def _conversation(db: Database, caller: Caller) -> UUID:
    first = await run_turn(deps_for(db, ScriptedModel([Reply([Text("Hi.")])])), caller, "hi")
    return UUID(conversation_id_of(first))


async def test_a_run_killed_mid_stream_after_the_route_has_the_routes_bound_charged_once(
    db: Database, unmetered_org: Org, clean_db: str, app_url: str
) -> None:
    owner = await caller_for(db, unmetered_org, "owner")
    conversation = await _conversation(db, owner)
    before = _day_row(clean_db, unmetered_org)
    seen = await kill_send_at(app_url, unmetered_org, conversation, "routed", "text_delta")
    assert "error" not in seen, seen
    [route] = _holds(clean_db, unmetered_org)
    assert route["user_id"] == owner.user_id
    assert _day_row(clean_db, unmetered_org) == before, "the route's usage waited for the reply"

    _lapse(clean_db, unmetered_org)
    assert (await sweep(db)).holds_charged == 1
    bound = route["amount_usd_micros"]
    after = _day_row(clean_db, unmetered_org)
    assert after == {
        "cost": before["cost"] + bound,
        "estimated": before["estimated"] + bound,
        "input_tokens": before["input_tokens"],  # never reported: an estimate has no tokens
    }
    assert bound >= cost_usd_micros(
        ROUTE_MODEL, CallTokens(ROUTE_USAGE.input_tokens, ROUTE_USAGE.output_tokens)
    ), "never less than the route cost"
    assert (await sweep(db)).holds_charged == 0 and _day_row(clean_db, unmetered_org) == after


async def test_a_metered_run_killed_mid_stream_has_the_loop_calls_hold_charged_once(
    db: Database, org: Org, clean_db: str, app_url: str
) -> None:
    owner = await caller_for(db, org, "owner")
    conversation = await _conversation(db, owner)
    before = _day_row(clean_db, org)
    await kill_send_at(app_url, org, conversation, "routed", "text_delta")
    # the route's usage was recorded exactly by the loop call's hold, which the run left
    recorded = _day_row(clean_db, org)
    assert recorded["input_tokens"] == before["input_tokens"] + ROUTE_USAGE.input_tokens
    assert recorded["estimated"] == 0
    [loop] = _holds(clean_db, org)

    _lapse(clean_db, org)
    assert (await sweep(db)).holds_charged == 1
    after = _day_row(clean_db, org)
    bound = loop["amount_usd_micros"]
    assert after["cost"] == recorded["cost"] + bound and after["estimated"] == bound
    assert (await sweep(db)).holds_charged == 0 and _day_row(clean_db, org) == after


async def test_a_run_that_ends_records_exact_usage_once_and_leaves_the_sweep_nothing(
    db: Database, unmetered_org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, unmetered_org, "owner")
    routed = Reply([Text("LOOP")], usage=ROUTE_USAGE)
    model = ScriptedModel([Reply([Text("Sure.")])], lanes={"quick_route": [routed]})
    events = await run_turn(deps_for(db, model), owner, "hi")
    done = events[-1]
    assert isinstance(done, ev.Done)
    assert _holds(clean_db, unmetered_org) == []
    _lapse(clean_db, unmetered_org)
    assert (await sweep(db)).holds_charged == 0
    row = _day_row(clean_db, unmetered_org)
    assert row["cost"] == done.usage.cost_usd_micros and row["estimated"] == 0
    assert row["input_tokens"] == done.usage.input_tokens


async def _held_call(db: Database, org: Org, run_id: UUID) -> RunUsage:
    """A run's ended call with its hold of 1,000 µ$, its usage (5 µ$) not yet recorded."""
    user = org["owner"].user_id
    hold = await reserve(db, org.id, "growth", datetime.now(UTC), run_id, user, 1_000)
    assert hold is not None
    usage = RunUsage()
    usage.add(CallUsage(ROUTE_MODEL, CallTokens(input_tokens=10), 5), hold)
    usage.ended_holds.append(hold)
    return usage


async def _record(db: Database, org: Org, usage: RunUsage) -> None:
    async with db.org_tx(org.id) as conn:
        settlement = await usage.queue_settle(conn, org.id, org["owner"].user_id, datetime.now(UTC))
    usage.mark_settled(settlement)


async def test_a_stalled_run_records_nothing_for_a_call_whose_hold_the_sweep_charged(
    db: Database, org: Org, clean_db: str
) -> None:
    usage = await _held_call(db, org, uuid.uuid4())
    _lapse(clean_db, org)
    assert (await sweep(db)).holds_charged == 1
    await _record(db, org, usage)  # the run was only stalled: its record comes after
    assert _day_row(clean_db, org) == {"cost": 1_000, "estimated": 1_000, "input_tokens": 0}


async def test_a_call_the_run_recorded_is_never_charged_by_the_sweep(
    db: Database, org: Org, clean_db: str
) -> None:
    usage = await _held_call(db, org, uuid.uuid4())
    await _record(db, org, usage)
    _lapse(clean_db, org)
    assert (await sweep(db)).holds_charged == 0
    assert _day_row(clean_db, org) == {"cost": 5, "estimated": 0, "input_tokens": 10}


async def test_concurrent_sweeps_charge_each_hold_once(
    db: Database, org: Org, clean_db: str, pools: list[Database]
) -> None:
    for _ in range(3):
        await _held_call(db, org, uuid.uuid4())
    _lapse(clean_db, org)
    reports = await asyncio.gather(*(sweep(p) for p in pools))
    assert sum(r.holds_charged for r in reports) == 3
    assert _day_row(clean_db, org) == {"cost": 3_000, "estimated": 3_000, "input_tokens": 0}


async def test_a_dead_runs_hold_past_its_ttl_is_still_charged_once(
    db: Database, org: Org, clean_db: str
) -> None:
    """Past `HOLD_TTL` the budget no longer counts a hold; the sweep (late, say after an outage)
    still charges it, once: the call was made, and it is counted as a hold or as spend, never
    both at once."""
    await _held_call(db, org, uuid.uuid4())
    with psycopg.connect(clean_db) as conn:
        conn.execute("UPDATE ai_budget_holds SET held_at = held_at - %s", (HOLD_TTL,))
    reports = [await sweep(db), await sweep(db)]
    assert [r.holds_charged for r in reports] == [1, 0]
    assert _day_row(clean_db, org) == {"cost": 1_000, "estimated": 1_000, "input_tokens": 0}


async def test_a_live_runs_holds_are_never_charged(db: Database, org: Org, clean_db: str) -> None:
    owner = await caller_for(db, org, "owner")
    conversation = await _conversation(db, owner)
    live, young = uuid.uuid4(), uuid.uuid4()
    await _held_call(db, org, live)
    _lapse(clean_db, org)
    async with db.org_tx(org.id) as conn:
        await acquire_lease(conn, owner, conversation, live)  # its lease is fresh: it is alive
    await _held_call(db, org, young)  # taken a moment ago, by a run not yet in a conversation
    before = _day_row(clean_db, org)
    assert (await sweep(db)).holds_charged == 0
    assert len(_holds(clean_db, org)) == 2 and _day_row(clean_db, org) == before


@pytest.mark.parametrize("tier", ["growth", "enterprise"])
async def test_the_routes_cost_counts_at_every_moment_of_the_turn(
    db: Database, clean_db: str, tier: str
) -> None:
    """What a concurrent run's budget reads (spend + live holds) never lacks what the quick
    route spent: its hold counts until the transaction that records its usage drops it."""
    org = create_org(clean_db, name="Box R", tier=tier)
    owner = await caller_for(db, org, "owner")
    counted: list[int] = []

    def route_counted(body: dict[str, Any]) -> Reply:
        counted.append(_counted_for_the_route(clean_db, org))  # while the route's call runs
        return Reply([Text("LOOP")], usage=ROUTE_USAGE)

    def loop(body: dict[str, Any]) -> Reply:
        counted.append(_counted_for_the_route(clean_db, org))  # while the loop's call runs
        return Reply([Text("Sure.")])

    model = ScriptedModel([loop], lanes={"quick_route": [route_counted]})
    events = await run_turn(deps_for(db, model), owner, "hi")
    assert isinstance(events[-1], ev.Done)
    counted.append(_counted_for_the_route(clean_db, org))  # after the turn
    spent = cost_usd_micros(
        ROUTE_MODEL, CallTokens(ROUTE_USAGE.input_tokens, ROUTE_USAGE.output_tokens)
    )
    assert len(counted) == 3 and min(counted) >= spent > 0, counted


def _counted_for_the_route(url: str, org: Org) -> int:
    """What the budget counts of the route: its hold (the one the transaction that wrote the
    user turn took) while it is there, plus everything recorded (the turn is the org's first:
    no other spend)."""
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT (SELECT coalesce(sum(h.amount_usd_micros), 0) FROM ai_budget_holds h"
            "         WHERE h.organization_id = %(org)s AND h.xmin = (SELECT m.xmin FROM"
            "           ai_messages m WHERE m.organization_id = %(org)s AND m.role = 'user'))"
            "     + (SELECT coalesce(sum(d.cost_usd_micros), 0) FROM ai_usage_daily d"
            "         WHERE d.organization_id = %(org)s)",
            {"org": org.id},
        ).fetchone()
    assert row is not None
    return int(row[0])
