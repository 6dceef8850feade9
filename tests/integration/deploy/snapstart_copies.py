"""Run one function's SnapStart hooks as Lambda would, in this process, and report as JSON.

    python snapstart_copies.py reads|sweep|streaming|mcp

The before-snapshot hooks run here; then two forked children stand for two instances restored
from that snapshot: each first puts `random` back to the snapshot's state (a fork reseeds it, a
restore would not), runs the after-restore hooks and reports what it generated and whether its
pool is open. Postgres counts the connections of DATABASE_URL's application_name at each step.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg

FUNCTIONS = Path(__file__).resolve().parents[3] / "functions"


def connections() -> int:
    name = os.environ["PROBE_APPLICATION_NAME"]
    with psycopg.connect(os.environ["PROBE_URL"]) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", (name,)
        ).fetchone()
    assert row is not None
    return int(row[0])


def plain_handler(function: str) -> tuple[Callable[[], None], Callable[[], None], Any]:
    """The entry module registers its hooks with `snapshot_restore_py`; run them as the runtime
    does (`get_before_snapshot`, `get_after_restore`)."""
    import snapshot_restore_py as hooks

    sys.path.insert(0, str(FUNCTIONS / function))
    import app  # type: ignore[import-not-found]

    def run(registry: list[Any]) -> None:
        for func, args, kwargs in registry:
            func(*args, **kwargs)

    return (
        lambda: run(hooks.get_before_snapshot()),
        lambda: run(hooks.get_after_restore()),
        lambda: app.handler.db is not None,
    )


async def _post(app: Any, path: str) -> int:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": path, "headers": [], "query_string": b""}
    await app(scope, receive, send)
    return int(sent[0]["status"])


def web_adapter_app(kind: str) -> tuple[Callable[[], None], Callable[[], None], Any]:
    """The streaming or MCP app, POSTed the adapter's two hook paths as the adapter would."""
    if kind == "streaming":
        from spotter.aws.api import create_app
    else:
        from spotter.aws.mcp import create_app

    app = create_app()
    loop = asyncio.new_event_loop()
    before = os.environ["AWS_LWA_SNAPSTART_BEFORE_CHECKPOINT_PATH"]
    after = os.environ["AWS_LWA_SNAPSTART_AFTER_RESTORE_PATH"]

    def call(path: str) -> None:
        assert loop.run_until_complete(_post(app, path)) == 200, path

    return (
        lambda: call(before),
        lambda: call(after),
        lambda: getattr(app.app.state, "db", None) is not None,
    )


def main(kind: str) -> None:
    web = kind in ("streaming", "mcp")
    before, after, pool_open = web_adapter_app(kind) if web else plain_handler(kind)
    before()
    snapshot = {"pool": pool_open(), "connections": connections()}
    state = random.getstate()
    restored = []
    for _ in range(2):
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            random.setstate(state)
            after()
            report = {
                "uuid": str(uuid.uuid4()),
                "random": random.getrandbits(64),
                "pool": pool_open(),
                "connections": connections(),
            }
            os.write(write_end, json.dumps(report).encode())
            os._exit(0)
        os.close(write_end)
        with os.fdopen(read_end, "rb") as reader:
            data = reader.read()
        os.waitpid(pid, 0)
        restored.append(json.loads(data))
    print(json.dumps({"snapshot": snapshot, "restored": restored}))


if __name__ == "__main__":
    main(sys.argv[1])
