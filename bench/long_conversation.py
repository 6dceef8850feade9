"""A 60-run conversation: input tokens sent, cache-read share and cost per run, with replay
slimming and compaction on versus off.

    .venv/bin/python bench/long_conversation.py [--runs 60]

Runs the real orchestrator (ambient RAG, title, T1 router, compaction gate, loop) against
PostgreSQL (DATABASE_URL, else a throwaway embedded server) with the scripted fake model. Every
other run reads the exercise library (a ~7k-char tool result), the rest answer in text.

How the fake's usage stays honest: each reply's usage is computed from the request it answers.
The request is cut into the parts the provider renders in order (each tool, each system block,
each message's blocks), each part costs ceil(bytes/4) tokens of its compact JSON without cache
markers, and `PromptCache` plays the provider's prompt cache: a block carrying `cache_control`
is a breakpoint; a request reads the longest previously written prefix found within 20 blocks
before one of its breakpoints, writes everything from there to its last breakpoint (only if that
prefix reaches the model's minimum cacheable length: 1,024 tokens for Sonnet, 4,096 for Haiku),
and pays the rest as fresh input. Prefixes are compared by a hash chain over the parts, so a
single changed byte anywhere misses from that block on. Runs follow each other within the
5-minute TTL, so entries do not expire. "Off" replays rows unslimmed and never compacts
(the two functions are swapped out in this process only).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import math
import uuid
from dataclasses import dataclass, field
from typing import Any

import psycopg
from bench_support import bench_server, seed_owner

import spotter.agent.run.compaction_gate as compaction_gate
import spotter.agent.transcript.replay as replay
from spotter.agent.cost.pricing import CallTokens, cost_usd_micros
from spotter.agent.run import SendMessage, send_message
from spotter.agent.state import AgentDeps
from spotter.auth import resolve_caller
from spotter.auth.clerk import SessionClaims
from spotter.config import Settings
from spotter.db import Database
from spotter.db.migrate import migrate
from spotter.db.server import LOCAL_APP_PASSWORD, app_login_url, ensure_database
from spotter.providers.fake import FakeUsage, Reply, ScriptedModel, Text, ToolUse, tool_reply

LOOKBACK_BLOCKS = 20
OUTPUT_TOKENS = 120
MOVEMENTS = [
    "Back Squat", "Front Squat", "Deadlift", "Clean", "Snatch", "Thruster", "Pull-up",
    "Push Press", "Wall Ball", "Box Jump", "Burpee", "Kettlebell Swing", "Double Under",
    "Toes-to-Bar", "Handstand Push-up", "Row", "Ring Dip", "Lunge", "Bench Press", "Muscle-up",
]  # fmt: skip


def _tokens(part: Any) -> int:
    raw = json.dumps(part, separators=(",", ":"), ensure_ascii=False, sort_keys=True)
    return math.ceil(len(raw.encode()) / 4)


def _parts(body: dict[str, Any]) -> list[tuple[Any, bool]]:
    """(part without markers, is a breakpoint) in the provider's render order."""
    out: list[tuple[Any, bool]] = [
        (tool, "cache_control" in tool) for tool in body.get("tools", [])
    ]
    system = body.get("system", [])
    blocks = [{"type": "text", "text": system}] if isinstance(system, str) else system
    out += [(_bare(b), "cache_control" in b) for b in blocks]
    for message in body["messages"]:
        content = message["content"]
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        out += [({"role": message["role"], **_bare(b)}, "cache_control" in b) for b in content]
    return out


def _bare(block: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in block.items() if k != "cache_control"}


@dataclass
class PromptCache:
    entries: set[str] = field(default_factory=set)

    def usage(self, body: dict[str, Any]) -> FakeUsage:
        parts = _parts(body)
        minimum = 4_096 if "haiku" in body["model"] else 1_024
        chain, cumulative, hashes = hashlib.sha256(), [0], []
        for part, _ in parts:
            chain.update(json.dumps(part, sort_keys=True).encode())
            hashes.append(chain.copy().hexdigest())
            cumulative.append(cumulative[-1] + _tokens(part))
        breakpoints = [i for i, (_, marked) in enumerate(parts) if marked]
        breakpoints = [i for i in breakpoints if cumulative[i + 1] >= minimum]
        read_upto = 0  # parts [0, read_upto) come from the cache
        for b in reversed(breakpoints):
            hit = next(
                (
                    j
                    for j in range(b, max(-1, b - LOOKBACK_BLOCKS), -1)
                    if hashes[j] in self.entries
                ),
                None,
            )
            if hit is not None:
                read_upto = hit + 1
                break
        write_upto = breakpoints[-1] + 1 if breakpoints else 0
        for b in breakpoints:
            self.entries.add(hashes[b])
        read = cumulative[read_upto]
        written = max(0, cumulative[write_upto] - read)
        return FakeUsage(
            input_tokens=cumulative[-1] - read - written,
            output_tokens=OUTPUT_TOKENS,
            cache_read_input_tokens=read,
            cache_write_5m_tokens=written,
        )


@dataclass
class Meter:
    cache: PromptCache = field(default_factory=PromptCache)
    summaries_micros: int = 0  # compaction calls: recorded, not tallied in the run's usage

    def reply(self, blocks: list[Any], body: dict[str, Any], **kw: Any) -> Reply:
        return Reply(blocks, usage=self.cache.usage(body), **kw)

    def lane(self, lane: str, body: dict[str, Any]) -> Reply:
        if lane == "quick_route":
            return self.reply([Text("LOOP")], body)
        if lane == "compaction":
            reply = self.reply(
                [Text("Summary: the coach planned weeks of strength work. " * 6)], body
            )
            u = reply.usage
            tokens = CallTokens(u.input_tokens, u.output_tokens, u.cache_read_input_tokens,
                                u.cache_write_5m_tokens, 0)  # fmt: skip
            self.summaries_micros += cost_usd_micros(body["model"], tokens)
            return reply
        return self.reply([Text("Strength planning")], body)


def _seed(owner_url: str) -> tuple[str, str]:
    with psycopg.connect(owner_url) as conn:
        org_id, clerk_org, clerk_user = seed_owner(conn)
        for i in range(60):
            name = MOVEMENTS[i % len(MOVEMENTS)] + ("" if i < len(MOVEMENTS) else f" variation {i}")
            conn.execute(
                "INSERT INTO exercises (organization_id, name, aliases, category, equipment)"
                " VALUES (%s, %s, %s, 'strength', 'barbell, plates and a rack')",
                (org_id, name, [f"{name[:3].upper()}{i}"]),
            )
    return clerk_org, clerk_user


def _script(meter: Meter, run: int) -> list[Any]:
    if run % 2:
        read = ToolUse("read", {"action": "exercises", "args": {"limit": 50}})
        return [
            lambda body: tool_reply(read, usage=meter.cache.usage(body)),
            lambda body: meter.reply([Text(f"Here is the plan for run {run}. " * 12)], body),
        ]
    return [lambda body: meter.reply([Text(f"Sure, noted for run {run}. " * 12)], body)]


async def _conversation(db: Database, caller: Any, runs: int) -> list[dict[str, float]]:
    meter = Meter()
    model = ScriptedModel(lane_of=_lane_of, lane_default=meter.lane)
    deps = AgentDeps(db=db, client=model.client(), settings=Settings(environment="test"))
    conversation_id = None
    rows = []
    for run in range(runs):
        model.script.extend(_script(meter, run))
        movement = MOVEMENTS[run % len(MOVEMENTS)]
        text = (
            f"How heavy should the {movement} be on day {run} of the cycle,"
            " given last week's volume?"
        )
        request = SendMessage(text=text, pathname="/dashboard", conversation_id=conversation_id)
        before = meter.summaries_micros
        events = [e async for e in send_message(deps, caller, request)]
        # the run's `done` (a turn that makes the conversation due compacts after it)
        done = next((e for e in reversed(events) if e.type == "done"), events[-1])
        if done.type != "done" or any(e.type == "error" for e in events):
            raise RuntimeError(f"run {run} failed: {events[-2:]}")
        conversation_id = uuid.UUID(done.conversation_id)
        u = done.usage
        sent = u.input_tokens + u.cache_read_tokens + u.cache_write_tokens
        rows.append(
            {
                "sent": sent,
                "read_share": u.cache_read_tokens / sent if sent else 0.0,
                "cost": (u.cost_usd_micros + meter.summaries_micros - before) / 1e6,
                "compacted": float(any(e.type == "compaction_finished" for e in events)),
            }
        )
    return rows


def _lane_of(body: dict[str, Any]) -> str | None:
    from spotter.agent.compaction.summary import SUMMARIZER_SYSTEM
    from spotter.agent.prompting.titles import TITLE_SYSTEM
    from spotter.agent.run.quick_lane import QUICK_ANSWER_SYSTEM, ROUTER_PROMPT

    system = body.get("system")
    if isinstance(system, list) and len(system) == 1:
        system = system[0].get("text")
    lanes = {
        TITLE_SYSTEM: "title",
        SUMMARIZER_SYSTEM: "compaction",
        QUICK_ANSWER_SYSTEM: "quick_answer",
    }
    if not isinstance(system, str):
        return None
    return "quick_route" if system.startswith(ROUTER_PROMPT) else lanes.get(system)


def _turn_off_context_management() -> None:
    replay.slim_for_replay = lambda rows: [list(r["content"]) for r in rows]  # type: ignore[assignment]
    compaction_gate.plan_compaction = lambda *a, **k: None  # type: ignore[assignment]


async def main(runs: int) -> None:
    with bench_server() as server:
        owner_url = ensure_database(server, "spotter_bench_long", recreate=True)
        await migrate(owner_url, app_password=LOCAL_APP_PASSWORD)
        clerk_org, clerk_user = _seed(owner_url)
        db = await Database.open(app_login_url(owner_url), max_size=4)
        try:
            caller = await resolve_caller(
                db, SessionClaims(clerk_user, clerk_org, None, None), "en"
            )
            on = await _conversation(db, caller, runs)
            _turn_off_context_management()
            off = await _conversation(db, caller, runs)
        finally:
            await db.close()
    print("run | ON:     sent  read%    cost$  | OFF:    sent  read%    cost$   (C: compacted)")
    for i, (a, b) in enumerate(zip(on, off, strict=True), start=1):
        mark = "C" if a["compacted"] else " "
        print(
            f"{i:3d} |{mark}{a['sent']:10.0f} {a['read_share']:6.1%} {a['cost']:8.4f} |"
            f" {b['sent']:10.0f} {b['read_share']:6.1%} {b['cost']:8.4f}"
        )
    for name, rows in (("ON ", on), ("OFF", off)):
        sent = sum(r["sent"] for r in rows)
        cost = sum(r["cost"] for r in rows)
        last10 = rows[-10:]
        print(
            f"{name} total: sent {sent:,.0f} tokens, cost ${cost:.4f};"
            f" last 10 runs: mean sent {sum(r['sent'] for r in last10) / len(last10):,.0f},"
            f" mean read share {sum(r['read_share'] for r in last10) / len(last10):.1%},"
            f" mean cost ${sum(r['cost'] for r in last10) / len(last10):.4f}"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=60)
    asyncio.run(main(parser.parse_args().runs))
