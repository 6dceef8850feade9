"""ai_usage_daily: SQL increments, so concurrent runs of one person lose nothing."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import psycopg

from spotter.agent.cost.pricing import CallTokens
from spotter.agent.cost.usage import CallUsage, RunUsage
from spotter.db import Database
from tests.support.world import Org


async def test_concurrent_runs_lose_no_tokens_or_cost(
    db: Database, org: Org, clean_db: str
) -> None:
    user_id = org["coach"].user_id
    now = datetime(2026, 11, 30, 23, 59, tzinfo=UTC)

    async def one_run(i: int) -> None:
        usage = RunUsage()
        usage.add(CallUsage("claude-haiku-4-5", CallTokens(input_tokens=i, output_tokens=1), 7))
        usage.add(CallUsage("claude-sonnet-5-5", CallTokens(cache_write_1h_tokens=2), 11))
        async with db.org_tx(org.id) as conn:
            await usage.record_pending(conn, org.id, user_id, now)

    await asyncio.gather(*(one_run(i) for i in range(1, 21)))
    with psycopg.connect(clean_db) as conn:
        row = conn.execute(
            "SELECT day, input_tokens, output_tokens, cache_write_1h_tokens, cost_usd_micros, turns"
            " FROM ai_usage_daily WHERE organization_id = %s AND user_id = %s",
            (org.id, user_id),
        ).fetchone()
    assert row == (now.date(), sum(range(1, 21)), 20, 40, 20 * 18, 20)
