"""`make test` leaves no Postgres running (fix31 item 5): the embedded server a session starts
(`tests/conftest.py`'s `pg_server_url`, `db.server.throwaway_server`) is stopped when the
session ends — after its tests ran (one of them failing), and on Ctrl-C. Each case runs a small
pytest session of its own on the suite's fixtures, under a temporary directory of its own, and
looks for a postgres process serving a data directory under it afterwards."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.servers import servers_under, watched_tmpdir

ROOT = Path(__file__).resolve().parents[2]
CHILD = """
import os
import time

import psycopg


def test_reaches_the_server(pg_server_url):
    with psycopg.connect(pg_server_url) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)
    print("SERVER-READY", flush=True)
    if os.environ["CHILD_MODE"] == "interrupt":
        time.sleep(120)  # the parent presses Ctrl-C


def test_fails():
    assert os.environ["CHILD_MODE"] != "fail"
"""


@pytest.fixture
def session_dir() -> Iterator[Path]:
    """Where the child session's temporary files (its server's data) go (`watched_tmpdir`)."""
    with watched_tmpdir("spotter-leak-check-") as directory:
        (directory / "test_child.py").write_text(CHILD)
        yield directory


def _child(directory: Path, mode: str) -> subprocess.Popen[str]:
    env = {**os.environ, "TMPDIR": str(directory), "CHILD_MODE": mode}
    env.pop("DATABASE_URL", None)  # the embedded server, as `make test` starts it
    env.pop("PYTEST_XDIST_WORKER", None)
    command = [sys.executable, "-m", "pytest", "-p", "tests.conftest", "-p", "no:cacheprovider"]
    command += ["-p", "no:xdist", "-s", "-q", str(directory / "test_child.py")]
    return subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def test_the_sessions_server_is_stopped_when_it_ends_after_a_failure(session_dir: Path) -> None:
    child = _child(session_dir, "fail")  # one test passes, one fails
    out, _ = child.communicate(timeout=120)
    assert "SERVER-READY" in out and "1 failed, 1 passed" in out, out
    assert servers_under(session_dir) == []


def test_the_sessions_server_is_stopped_on_ctrl_c(session_dir: Path) -> None:
    child = _child(session_dir, "interrupt")
    assert child.stdout is not None
    seen = []
    for line in child.stdout:  # until the test holds the server
        seen.append(line)
        if "SERVER-READY" in line:
            break
    assert servers_under(session_dir), "".join(seen)
    child.send_signal(signal.SIGINT)
    out, _ = child.communicate(timeout=60)
    assert child.returncode == 2, "".join(seen) + out  # pytest's "interrupted"
    assert servers_under(session_dir) == []
