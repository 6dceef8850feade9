"""What the dashboard's insights cost: each kind's one statement on the seeded demo gym, the
whole board (every kind, as an owner's first request after the cache expires), and a cached
answer.

    DATABASE_URL=<owner url of a migrated database> .venv/bin/python bench/insights.py [--rounds N]

It seeds the demo gym there first (idempotent; `make dev` has done it for its own database).
Figures are medians in milliseconds on this machine; report them with the machine named.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from psycopg import AsyncConnection
from psycopg.rows import dict_row

from spotter.db.scope import OrgScope
from spotter.domain.insights import INSIGHT_KINDS, Insight, Thresholds, compute_insights
from spotter.domain.insights.cache import InsightCache
from spotter.seed.demo import DEMO_CLERK_ORG_ID, DEMO_TIMEZONE, seed_demo


def _ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 2)


async def measure(owner_url: str, rounds: int) -> dict[str, Any]:
    await seed_demo(owner_url)
    tz, limits, now = ZoneInfo(DEMO_TIMEZONE), Thresholds(), datetime.now(UTC)
    per_kind: dict[str, list[float]] = {kind: [] for kind in INSIGHT_KINDS}
    board: list[float] = []
    async with await AsyncConnection.connect(owner_url, row_factory=dict_row) as conn:
        cur = await conn.execute(
            "SELECT id FROM organizations WHERE clerk_org_id = %s", (DEMO_CLERK_ORG_ID,)
        )
        row = await cur.fetchone()
        assert row is not None
        scope = OrgScope(conn, row["id"])
        async with conn.transaction():
            await conn.execute("SELECT set_config('app.org_id', %s, true)", (str(row["id"]),))
            for _ in range(rounds):
                for kind in INSIGHT_KINDS:
                    started = time.perf_counter()
                    await compute_insights(scope, (kind,), now=now, tz=tz, limits=limits)
                    per_kind[kind].append(time.perf_counter() - started)
                started = time.perf_counter()
                found = await compute_insights(scope, INSIGHT_KINDS, now=now, tz=tz, limits=limits)
                board.append(time.perf_counter() - started)
    cache, cached = InsightCache(), []

    async def computed() -> list[Insight]:
        return found

    await cache.get(scope.org_id, now, computed)
    for _ in range(rounds):
        started = time.perf_counter()
        await cache.get(scope.org_id, now, computed)
        cached.append(time.perf_counter() - started)
    return {
        "rounds": rounds,
        "statements_per_board": len(INSIGHT_KINDS),
        "per_kind_ms": {kind: _ms(samples) for kind, samples in per_kind.items()},
        "board_ms": _ms(board),
        "cached_ms": _ms(cached),
        "counts": {insight.kind: insight.count for insight in found},
    }


def render(report: dict[str, Any]) -> str:
    lines = [f"insights on the demo gym, median of {report['rounds']} rounds (ms)"]
    lines += [f"  {kind:<28} {ms:>8}" for kind, ms in report["per_kind_ms"].items()]
    lines.append(
        f"  whole board ({report['statements_per_board']} statements) {report['board_ms']:>8}"
    )
    lines.append(f"  cached answer                {report['cached_ms']:>8}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=50)
    args = parser.parse_args()
    url = os.environ.get("DATABASE_URL")
    if not url:
        raise SystemExit("set DATABASE_URL to the owner URL of a migrated database")
    print(render(asyncio.run(measure(url, args.rounds))))


if __name__ == "__main__":
    main()
