"""Looking for Postgres servers left running: the checks that a test session
(`integration/test_test_servers.py`) and a benchmark (`integration/bench/test_bench_servers.py`)
stop the embedded server they start."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil


def servers_under(directory: Path) -> list[psutil.Process]:
    """The postgres processes serving a data directory under `directory`."""
    found = []
    for proc in psutil.process_iter(attrs=["name", "cmdline"]):
        cmdline = " ".join(proc.info["cmdline"] or [])
        if proc.info["name"] == "postgres" and str(directory) in cmdline:
            found.append(proc)
    return found


@contextmanager
def watched_tmpdir(prefix: str) -> Iterator[Path]:
    """A directory for a child process's temporary files (TMPDIR: its server's data goes
    there); afterwards any server still running there is killed, so a failing check leaves
    nothing behind either."""
    directory = Path(tempfile.mkdtemp(prefix=prefix))
    directory.chmod(0o755)  # the server runs as its own user (root starts it as another)
    try:
        yield directory
    finally:
        for proc in servers_under(directory):
            proc.kill()
        shutil.rmtree(directory, ignore_errors=True)
