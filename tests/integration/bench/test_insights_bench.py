"""bench/insights.py never rots: a tiny run reports every kind's cost, the board's, the cached
answer's, and the demo gym's counts."""

from __future__ import annotations

from spotter.domain.insights import INSIGHT_KINDS
from tests.support.bench import bench_module

insights = bench_module("insights")


async def test_a_tiny_run_reports_every_kind_and_the_cache(clean_db: str) -> None:
    report = await insights.measure(clean_db, rounds=2)
    assert list(report["per_kind_ms"]) == list(INSIGHT_KINDS)
    assert report["statements_per_board"] == len(INSIGHT_KINDS)
    assert report["board_ms"] > report["cached_ms"] >= 0
    assert all(report["counts"][kind] > 0 for kind in INSIGHT_KINDS)
    assert "whole board" in insights.render(report)
