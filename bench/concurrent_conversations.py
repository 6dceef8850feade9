"""Many conversations at once: throughput, time to first event / to `done`, pool wait, errors,
and whether every stored conversation is valid afterwards.

    .venv/bin/python bench/concurrent_conversations.py [--conversations 50 200] [--turns 2]
        [--pool 10] [--event-delay 0.03] [--orgs 1]

The real orchestrator, one process (as one `uvicorn` serves the dev API), against a throwaway
embedded Postgres, with the scripted model streaming through the real `anthropic` SDK at a
realistic pace (`--event-delay` seconds between stream events: ~30 text chunks, about 1 s a
call). Each conversation sends `--turns` messages, one after the other; all conversations start
together. It also samples the event loop's lag (a 10 ms ticker): lag near the wait times means
the process is CPU-bound; pool wait near them means connections are the bottleneck.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
from bench_support import bench_server, seed_owner

from spotter.agent.run import SendMessage, send_message
from spotter.agent.state import AgentDeps
from spotter.auth import resolve_caller
from spotter.auth.clerk import SessionClaims
from spotter.config import Settings
from spotter.db import Database
from spotter.db.migrate import migrate
from spotter.db.server import LOCAL_APP_PASSWORD, app_login_url, ensure_database
from spotter.providers.fake import Reply, ScriptedModel, Text, _Endless

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.support.history import stored_history_violations

ANSWER = (
    "Tomorrow's 07:00 WOD has 14 of 16 spots booked; the 18:00 class is full with a waitlist "
    "of three. Coach Dana leads both. I can move Saar Cohen to the 07:00 class if you want. "
) * 2


def pacing_model(event_delay: float) -> ScriptedModel:
    def answer(body: dict[str, Any]) -> Reply:
        if not (isinstance(body["system"], list) and len(body["system"]) == 2):
            return Reply([Text("LOOP")])  # side calls (router, title): quick, the router declines
        return Reply([Text(ANSWER)], delay_s=event_delay)

    return _Endless(answer)


@dataclass
class Samples:
    first_event: list[float] = field(default_factory=list)
    first_text: list[float] = field(default_factory=list)
    done: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    loop_lag: list[float] = field(default_factory=list)


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def _conversation(deps: AgentDeps, caller: Any, turns: int, samples: Samples) -> None:
    conversation_id: uuid.UUID | None = None
    for i in range(turns):
        started = time.perf_counter()
        first = text = None
        request = SendMessage(
            f"how full is tomorrow, turn {i}?", "/schedule", None, conversation_id
        )
        async for event in send_message(deps, caller, request):
            now = time.perf_counter() - started
            first = now if first is None else first
            if event.type == "text_delta" and text is None:
                text = now
            if event.type == "error":
                samples.errors.append(event.code)
            if event.type == "done" and event.conversation_id:
                conversation_id = uuid.UUID(event.conversation_id)
        samples.first_event.append(first or 0.0)
        samples.first_text.append(text or 0.0)
        samples.done.append(time.perf_counter() - started)


async def _ticker(samples: Samples, stop: asyncio.Event) -> None:
    while not stop.is_set():
        before = time.perf_counter()
        await asyncio.sleep(0.01)
        samples.loop_lag.append(time.perf_counter() - before - 0.01)


async def run(
    owner_url: str, n: int, turns: int, pool: int, event_delay: float, orgs: int
) -> dict[str, Any]:
    with psycopg.connect(owner_url) as conn:
        owners = [seed_owner(conn)[1:] for _ in range(orgs)]
    db = await Database.open(app_login_url(owner_url), max_size=pool)
    try:
        callers = [
            await resolve_caller(db, SessionClaims(user, org, None, None), "en")
            for org, user in owners
        ]
        deps = AgentDeps(db=db, client=pacing_model(event_delay).client(), settings=Settings())
        samples, stop = Samples(), asyncio.Event()
        ticker = asyncio.create_task(_ticker(samples, stop))
        cpu0, started = time.process_time(), time.perf_counter()
        await asyncio.gather(
            *(_conversation(deps, callers[i % orgs], turns, samples) for i in range(n))
        )
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu0
        stop.set()
        await ticker
        stats = db._pool.get_stats()  # psycopg_pool's own counters (bench only)
    finally:
        await db.close()
    invalid = stored_history_violations(owner_url)
    sends = n * turns
    return {
        "conversations": n,
        "sends": sends,
        "wall_s": wall,
        "sends_per_s": sends / wall,
        "cpu_share": cpu / wall,
        "first_event_p50": pct(samples.first_event, 0.5),
        "first_event_p95": pct(samples.first_event, 0.95),
        "first_text_p50": pct(samples.first_text, 0.5),
        "first_text_p95": pct(samples.first_text, 0.95),
        "done_p50": pct(samples.done, 0.5),
        "done_p95": pct(samples.done, 0.95),
        "pool_waits": stats.get("requests_queued", 0),
        "pool_wait_ms_per_checkout": stats.get("requests_wait_ms", 0)
        / max(1, stats.get("requests_num", 1)),
        "loop_lag_p95_ms": pct(samples.loop_lag, 0.95) * 1000,
        "loop_lag_max_ms": max(samples.loop_lag, default=0.0) * 1000,
        "errors": len(samples.errors),
        "invalid_conversations": len(invalid),
    }


async def main(sizes: list[int], turns: int, pool: int, event_delay: float, orgs: int) -> None:
    with bench_server() as server:
        owner_url = ensure_database(server, "spotter_bench_concurrent", recreate=True)
        await migrate(owner_url, app_password=LOCAL_APP_PASSWORD)
        machine = platform.processor() or platform.machine()
        print(
            f"machine: {machine}, {os.cpu_count()} CPUs, Python {platform.python_version()};"
            f" pool {pool}, {turns} sends per conversation, {event_delay * 1000:.0f} ms/event,"
            f" {orgs} org(s)"
        )
        for n in sizes:
            result = await run(owner_url, n, turns, pool, event_delay, orgs)
            print(
                f"{n:>4} conversations: {result['sends_per_s']:.1f} sends/s;"
                f" first event p50 {result['first_event_p50']:.2f} s p95"
                f" {result['first_event_p95']:.2f} s; first text p50"
                f" {result['first_text_p50']:.2f} s p95 {result['first_text_p95']:.2f} s;"
                f" done p50 {result['done_p50']:.2f} s p95 {result['done_p95']:.2f} s;"
                f" pool: {result['pool_waits']} waits,"
                f" {result['pool_wait_ms_per_checkout']:.0f} ms/checkout;"
                f" loop lag p95 {result['loop_lag_p95_ms']:.0f} ms"
                f" (max {result['loop_lag_max_ms']:.0f}); CPU {result['cpu_share']:.0%};"
                f" errors {result['errors']}; invalid conversations"
                f" {result['invalid_conversations']}"
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--conversations", type=int, nargs="+", default=[50, 200])
    parser.add_argument("--turns", type=int, default=2)
    parser.add_argument("--pool", type=int, default=Settings().db_pool_max_size)
    parser.add_argument("--event-delay", type=float, default=0.03)
    parser.add_argument("--orgs", type=int, default=1, help="conversations spread over N orgs")
    args = parser.parse_args()
    asyncio.run(main(args.conversations, args.turns, args.pool, args.event_delay, args.orgs))
