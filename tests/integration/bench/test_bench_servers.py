"""A benchmark leaves no Postgres running (fix32 item 2): without DATABASE_URL each starts an
embedded server of its own (`bench_support.bench_server`, i.e. `db.server.throwaway_server`),
stopped and deleted when the run ends. Before, the scripts removed the server's temporary
directory first and the library's exit hook, finding no list of handles there, left it
running (`pgrep -f spotter-bench-pg-` after `bench/turn_overhead.py`)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from tests.support.bench import BENCH
from tests.support.servers import servers_under, watched_tmpdir


def test_a_benchmark_run_leaves_no_server_behind() -> None:
    with watched_tmpdir("spotter-bench-leak-") as tmp:
        env = {**os.environ, "TMPDIR": str(tmp)}
        env.pop("DATABASE_URL", None)  # its own embedded server, as a run by hand starts it
        run = subprocess.run(
            [sys.executable, str(BENCH / "turn_overhead.py"), "--turns", "1", "--runs", "1"],
            env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
        assert "end to end" in run.stdout  # it measured, on a server under `tmp`
        assert servers_under(tmp) == []
        assert not list(tmp.glob("spotter-bench-pg-*"))  # its data deleted too


def test_every_benchmark_gets_its_server_from_bench_server() -> None:
    """No script starts an embedded server by hand (`start_server`, the library's
    `get_server`): each goes through `bench_server` (proxy_load: `throwaway_server`)."""
    by_hand = {
        script.name
        for script in BENCH.glob("*.py")
        if re.search(r"\b(start_server|get_server)\(", script.read_text(encoding="utf-8"))
    }
    assert by_hand == set()
