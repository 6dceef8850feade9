"""Our own cost per turn: server-side time with a zero-latency model, and SQL round trips.

    .venv/bin/python bench/turn_overhead.py [--turns 40]

Runs the real orchestrator against PostgreSQL (DATABASE_URL, else a throwaway embedded server)
with the scripted fake model answering instantly through the real `anthropic` SDK. A round trip
is one network exchange of a pooled connection (an `AsyncConnection.wait` that touches the
socket: a statement, BEGIN, COMMIT, SAVEPOINT...). It also checks that a turn only appends
history: no statement updates or deletes ai_messages.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import re
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
from bench_support import seed_owner
from psycopg import AsyncConnection, AsyncCursor

from spotter.agent.run import SendMessage, send_message
from spotter.agent.state import AgentDeps
from spotter.auth import resolve_caller
from spotter.auth.clerk import SessionClaims
from spotter.config import Settings
from spotter.db import Database
from spotter.db.migrate import migrate
from spotter.db.server import ensure_database, start_server
from spotter.providers.fake import Reply, ScriptedModel, Text, ToolUse, tool_reply

_REWRITE = re.compile(r"\b(UPDATE|DELETE\s+FROM)\s+ai_messages\b", re.IGNORECASE)


class Counter:
    def __init__(self) -> None:
        self.round_trips = 0
        self.rewrites = 0

    def install(self) -> Callable[[], None]:
        wait, execute = AsyncConnection.wait, AsyncCursor.execute
        counter = self

        def counted(gen: Any) -> Any:
            # only an exchange that touches the socket counts (COMMIT on an idle connection,
            # which the pool does on every return, is answered locally)
            sent, touched = None, False
            while True:
                try:
                    state = gen.send(sent)
                except StopIteration as stop:
                    return stop.value
                if not touched:
                    counter.round_trips += 1
                    touched = True
                sent = yield state

        async def counting_wait(conn: Any, gen: Any, *args: Any, **kw: Any) -> Any:
            return await wait(conn, counted(gen), *args, **kw)

        async def watching_execute(cur: Any, query: Any, *args: Any, **kw: Any) -> Any:
            if _REWRITE.search(str(query)):
                counter.rewrites += 1
            return await execute(cur, query, *args, **kw)

        AsyncConnection.wait = counting_wait  # type: ignore[method-assign]
        AsyncCursor.execute = watching_execute  # type: ignore[method-assign]

        def uninstall() -> None:
            AsyncConnection.wait = wait  # type: ignore[method-assign]
            AsyncCursor.execute = execute  # type: ignore[method-assign]

        return uninstall


def _seed(owner_url: str) -> tuple[str, str]:
    with psycopg.connect(owner_url) as conn:
        _, clerk_org, clerk_user = seed_owner(conn)
    return clerk_org, clerk_user


def _three_reads() -> Reply:
    calls = [ToolUse("programs", {"action": "list", "args": {}}) for _ in range(3)]
    return tool_reply(*calls)


async def _measure(
    deps: AgentDeps, model: ScriptedModel, caller: Any, steps: list[Reply], turns: int
) -> dict[str, float]:
    counter = Counter()
    times, trips = [], []
    conversation_id = None
    for i in range(turns + 1):
        model.script.extend(steps)
        counter.round_trips = 0
        uninstall = counter.install()
        started = time.perf_counter()
        request = SendMessage(text=f"turn {i}", pathname="/", conversation_id=conversation_id)
        events = [event async for event in send_message(deps, caller, request)]
        elapsed = time.perf_counter() - started
        uninstall()
        done = events[-1]
        errors = [e for e in events if e.type == "error"]
        if done.type != "done" or errors:
            raise RuntimeError(f"the turn failed: {errors}")
        conversation_id = uuid.UUID(done.conversation_id)
        if i:  # the first turn creates the conversation and warms caches
            times.append(elapsed * 1000)
            trips.append(counter.round_trips)
    return {
        "p50_ms": statistics.median(times),
        "mean_ms": statistics.fmean(times),
        "round_trips": statistics.median(trips),
        "rewrites": counter.rewrites,
    }


async def main(turns: int) -> None:
    server = os.environ.get("DATABASE_URL")
    with tempfile.TemporaryDirectory(prefix="spotter-bench-pg-") as tmp:
        if server is None:
            server = start_server(Path(tmp) / "pgdata", throwaway=True)
        owner_url = ensure_database(server, "spotter_bench", recreate=True)
        await migrate(owner_url)
        clerk_org, clerk_user = _seed(owner_url)
        db = await Database.open(owner_url, max_size=8)
        try:
            caller = await resolve_caller(
                db, SessionClaims(clerk_user, clerk_org, None, None), "en"
            )
            # side calls (title, compaction: a plain-string system; the quick router: one
            # block, the loop has two) answer from a side lane; the router's answer declines
            model = ScriptedModel(
                lane_of=lambda body: None if len(body["system"]) == 2 else "side",
                lane_default=lambda lane, body: Reply([Text("Side answer")]),
            )
            deps = AgentDeps(db=db, client=model.client(), settings=Settings(environment="test"))
            plain = await _measure(deps, model, caller, [Reply([Text("Sure.")])], turns)
            reads = await _measure(
                deps, model, caller, [_three_reads(), Reply([Text("Done.")])], turns
            )
        finally:
            await db.close()
    machine = platform.processor() or platform.machine()
    print(
        f"machine: {machine}, {os.cpu_count()} CPUs, Python {platform.python_version()};"
        f" {turns} turns each, after one warm-up"
    )
    for name, r in (("plain-text turn", plain), ("3-read-tool turn", reads)):
        print(
            f"{name:18} p50 {r['p50_ms']:6.2f} ms  mean {r['mean_ms']:6.2f} ms"
            f"  SQL round trips {r['round_trips']:.0f}  history rewrites {r['rewrites']:.0f}"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=40)
    asyncio.run(main(parser.parse_args().turns))
