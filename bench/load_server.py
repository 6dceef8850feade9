"""One instance of bench/proxy_load.py: the whole HTTP app (`create_app`) in its own process with
its own small pool, as a Lambda instance has one, reaching Postgres through the benchmark's
PgBouncer as the app role (APP_DATABASE_URL). Not run by hand.

    python bench/load_server.py --port P --pool N --event-delay S [--profile FILE]

The model is a scripted one speaking the Messages streaming protocol to the real `anthropic`
SDK in-process (no network): "publish <session id>" asks for `class_sessions.publish` (always
confirmed) and answers its result with text; "hold <seconds>" thinks silently for most of that
long, then answers a word; anything else gets the answer text; all streamed at `--event-delay`
seconds per event. GET /bench/pool-stats answers its pool's counters (psycopg_pool's).
`--profile FILE`: the process's CPU time by function (cProfile on `time.process_time`, from
after the warm-up), written to FILE as pstats on POST /bench/profile-dump.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import re
import time
from pathlib import Path
from typing import Any

import uvicorn

from spotter.agent.run.quick_lane import router_system
from spotter.agent.state import AgentDeps
from spotter.config import get_settings
from spotter.db import Database
from spotter.db.server import app_pool_url
from spotter.http.app import create_app
from spotter.providers.email import email_sender_for
from spotter.providers.fake import (
    FakeUsage,
    Reply,
    ScriptedModel,
    Text,
    Thinking,
    ToolUse,
    _Endless,
    tool_reply,
)
from spotter.tools import prebuilt
from spotter.tools.registry import registry_for

ANSWER = (
    "Tomorrow's 07:00 WOD has 14 of 16 spots booked; the 18:00 class is full with a waitlist "
    "of three. Coach Dana leads both. I can move Saar Cohen to the 07:00 class if you want. "
) * 2
_PUBLISH = re.compile(r"publish ([0-9a-f-]{36})")
_HOLD = re.compile(r"hold (\d+(?:\.\d+)?)")
_THOUGHT = "Weighing what to say. " * 6  # eight chunks of thinking: no event reaches a client
_WARM_SECONDS = 600.0
_EVENTS_PER_HELD_REPLY = 19  # message_start … message_stop around the thinking and one word


def _texts(message: dict[str, Any]) -> str:
    content = message["content"]
    if isinstance(content, str):
        return content
    return " ".join(b.get("text", "") for b in content if b.get("type") == "text")


def _tools_called(message: dict[str, Any]) -> list[str]:
    content = message["content"]
    if isinstance(content, str):
        return []
    return [b["name"] for b in content if b.get("type") == "tool_use"]


def _said(message: dict[str, Any]) -> bool:
    """A user's own message (a tool_result turn may carry a note of Spotter's as text)."""
    content = message["content"]
    results = not isinstance(content, str) and any(b.get("type") == "tool_result" for b in content)
    return message["role"] == "user" and not results and bool(_texts(message).strip())


def _this_turn(messages: list[dict[str, Any]]) -> tuple[str, list[str]]:
    """What the user said last, and the tools called since (a page seed's read included)."""
    for at in range(len(messages) - 1, -1, -1):
        message = messages[at]
        if _said(message):
            called = [t for m in messages[at + 1 :] for t in _tools_called(m)]
            return _texts(message), called
    return "", []


def bench_model(event_delay: float) -> ScriptedModel:
    def answer(body: dict[str, Any]) -> Reply:
        if not (isinstance(body["system"], list) and len(body["system"]) == 2):
            # side calls (the quick router, the title): quick; the router declines
            return Reply([Text("LOOP")], usage=FakeUsage(input_tokens=0, output_tokens=0))
        said, called = _this_turn(body["messages"])
        if "class_sessions" in called:  # the confirmed publish ran: answer
            return Reply([Text(ANSWER)], delay_s=event_delay)
        if found := _PUBLISH.search(said):
            args = {"sessionIds": [found.group(1)]}
            call = ToolUse("class_sessions", {"action": "publish", "args": args})
            return tool_reply(call, text="Publishing it.", delay_s=event_delay)
        if found := _HOLD.search(said):
            # silent thinking, then a word: the run is live and says nothing for most of it
            pause = float(found.group(1)) / _EVENTS_PER_HELD_REPLY
            return Reply([Thinking(_THOUGHT), Text("Held.")], delay_s=pause)
        return Reply([Text(ANSWER)], delay_s=event_delay)

    return _Endless(answer)


async def _warm(db: Database, size: int) -> None:
    """Every connection of the pool opened before serving, as warm instances have theirs."""
    gate, all_held = asyncio.Event(), asyncio.Event()
    held = 0

    async def hold() -> None:
        nonlocal held
        # checked out, nothing sent (bench only); the pool opens one connection at a time
        async with db._pool.connection(timeout=_WARM_SECONDS):
            held += 1
            if held == size:
                all_held.set()
            await gate.wait()

    holders = [asyncio.create_task(hold()) for _ in range(size)]
    await all_held.wait()
    gate.set()
    await asyncio.gather(*holders)
    db._pool.pop_stats()  # the counters start after the warm-up


def _warm_tools() -> None:
    """The tool catalog and every surface's definitions built before serving, as a warm
    instance has them (a cold one pays them once: bench/cold_start.py measures that), so the
    first requests of the run do not stall the process's event loop building them."""
    for surface in prebuilt.surfaces():
        registry = registry_for(*surface)
        for built in (registry.definitions_json, registry.quick_definitions_json):
            assert built
        if registry.quick_specs:
            router_system(registry)


async def serve(port: int, pool: int, event_delay: float, profile: Path | None = None) -> None:
    settings = get_settings()
    db = await Database.open(app_pool_url(settings), max_size=pool)
    await _warm(db, pool)
    _warm_tools()
    app = create_app(settings, db=db, mcp=False)
    app.state.agent_deps = AgentDeps(
        db=db,
        client=bench_model(event_delay).client(),
        settings=settings,
        email_sender=email_sender_for(settings),
    )

    async def pool_stats() -> dict[str, int]:
        """psycopg_pool's own counters (for the benchmark's report)."""
        return db._pool.get_stats()

    app.add_api_route("/bench/pool-stats", pool_stats, methods=["GET"])
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            host="127.0.0.1",
            port=port,
            log_level="warning",
            access_log=False,
            # longer than the driver's pauses between a conversation's requests: uvicorn's 5 s
            # default closed idle connections as the driver reused them (a ReadError now and
            # then, the keep-alive race, not the app's)
            timeout_keep_alive=75,
        )
    )
    if profile is not None:
        # process time: what the thread pool spends lands in whatever the event loop was
        # doing meanwhile (a poll, a blocking send)
        profiler = cProfile.Profile(time.process_time)

        async def dump_profile() -> dict[str, str]:
            """Stop profiling and write the profile (the benchmark asks before it stops the
            process: uvicorn ends a stopped process by re-raising the signal, so no `finally`
            of ours would run)."""
            profiler.disable()
            profiler.dump_stats(str(profile))
            return {"profile": str(profile)}

        app.add_api_route("/bench/profile-dump", dump_profile, methods=["POST"])
        profiler.enable()
    try:
        await server.serve()
    finally:
        await db.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pool", type=int, required=True)
    parser.add_argument("--event-delay", type=float, default=0.03)
    parser.add_argument("--profile", type=Path, default=None)
    args = parser.parse_args()
    asyncio.run(serve(args.port, args.pool, args.event_delay, args.profile))
