"""bench/proxy_load.py never rots: a tiny run of the production shape (two instances through
PgBouncer) reports every figure, with no error, valid conversations, every probe transaction
as the app role, and each follower poll one statement."""

from __future__ import annotations

import argparse
import os
import pstats
from pathlib import Path

import pytest

from tests.support.bench import bench_module

proxy_load = bench_module("proxy_load")


async def test_a_tiny_run_reports_the_production_shape(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # its own server: pg_stat_statements must be loaded at start, which DATABASE_URL's may not be
    monkeypatch.delenv("DATABASE_URL", raising=False)
    args = argparse.Namespace(
        conversations=4, followers=2, servers=2, pool=4, server_pool=3, server_lifetime=2,
        event_delay=0.0, orgs=2, hold=1.0, direct=False, plain=False, profile=tmp_path,
    )  # fmt: skip
    report = await proxy_load.run(args)
    assert report["errors"] == 0, report["error_kinds"]
    assert report["invalid_conversations"] == 0
    assert report["turns"] == 4 * 3, "two sends and a confirm per conversation"
    assert report["send"]["count"] == 8 and report["confirm"]["count"] == 4
    assert report["active_followers"] == report["idle_followers"] == 2
    assert report["statements"]["polls"] > 0 and report["statements_per_turn"] > 0
    assert report["probe"]["transactions"] == report["probe"]["as_app_role"] > 0
    assert report["probe"]["foreign_rows"] == 0
    assert 0 < report["backends_most"] <= 3, "no more backends than the proxy's pool"
    per_turn = report["cpu_ms_per_turn"]
    assert per_turn["server"] == pytest.approx(
        per_turn["instances"] + per_turn["postgres"] + per_turn["pgbouncer"]
    )
    assert per_turn["instances"] > 0 and per_turn["driver"] > 0
    rendered = proxy_load.render(report)
    assert "statements per turn" in rendered and "CPU per turn" in rendered
    profiles = sorted(os.listdir(tmp_path))
    assert profiles == ["instance-0.pstats", "instance-1.pstats"], "each instance's profile"
    assert pstats.Stats(str(tmp_path / profiles[0])).total_tt > 0
