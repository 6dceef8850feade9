"""Driving the orchestrator in tests: a scripted model, one call per run, stored rows."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any
from uuid import UUID

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from spotter.agent import events as ev
from spotter.agent.compaction.summary import SUMMARIZER_SYSTEM
from spotter.agent.prompting.titles import TITLE_SYSTEM
from spotter.agent.run import SendMessage, send_message
from spotter.agent.run.quick_lane import QUICK_ANSWER_SYSTEM, ROUTER_PROMPT
from spotter.agent.state import AgentDeps, utc_now
from spotter.auth import Caller
from spotter.config import Settings
from spotter.db import Database
from spotter.providers.embeddings import Embedder
from spotter.providers.fake import FakeUsage, Reply, ScriptedModel, Step, Text
from spotter.tools.registry import ToolRegistry, registry_for_caller
from tests.support.world import Org, sync_next_ordinals

LANE_SYSTEMS: dict[str, str] = {
    TITLE_SYSTEM: "title",
    SUMMARIZER_SYSTEM: "compaction",
    QUICK_ANSWER_SYSTEM: "quick_answer",
}
DEFAULT_TITLE = "Test conversation"
DEFAULT_SUMMARY = "Earlier the user asked questions and got answers."


def spotter_lane(body: dict[str, Any]) -> str | None:
    """A side call's lane by its system prompt: a string, or the router's one block (the loop's
    system is two blocks and has no lane)."""
    system = body.get("system")
    if isinstance(system, list) and len(system) == 1:
        system = system[0].get("text")
    if not isinstance(system, str):
        return None
    # the router's block is its surface's (`router_system`): it opens with the routing rules
    return "quick_route" if system.startswith(ROUTER_PROMPT) else LANE_SYSTEMS.get(system)


def default_lane_reply(lane: str, body: dict[str, Any]) -> Step:
    """Unscripted side calls: a title, a summary, and a router that declines. The declining
    router reports no tokens, so tests about the loop's usage need not count it; the quick
    route's own tests script its lane with real usage."""
    if lane == "quick_route":
        return Reply([Text("LOOP")], usage=FakeUsage(input_tokens=0, output_tokens=0))
    text = {"title": DEFAULT_TITLE, "compaction": DEFAULT_SUMMARY}[lane]
    return Reply([Text(text)], usage=FakeUsage(input_tokens=40, output_tokens=8))


def with_lanes(model: ScriptedModel) -> ScriptedModel:
    """Side calls (title, compaction) answered from their own lanes, the loop from the script."""
    if model.lane_of is None:
        model.lane_of = spotter_lane
    if model.lane_default is None:
        model.lane_default = default_lane_reply
    return model


def deps_for(
    db: Database,
    model: ScriptedModel,
    *,
    registry_for: Callable[[Caller], ToolRegistry] = registry_for_caller,
    clock: Callable[[], datetime] = utc_now,
    settings: Settings | None = None,
    embedder: Embedder | None = None,
) -> AgentDeps:
    return AgentDeps(
        db=db,
        client=with_lanes(model).client(),
        settings=settings or Settings(environment="test"),
        registry_for=registry_for,
        clock=clock,
        embedder=embedder,
    )


async def run_turn(
    deps: AgentDeps,
    caller: Caller,
    text: str = "hello",
    *,
    conversation_id: UUID | str | None = None,
    pathname: str = "/dashboard",
    selection: dict[str, Any] | None = None,
) -> list[ev.AgentEvent]:
    request = SendMessage(
        text=text,
        pathname=pathname,
        selection=selection,
        conversation_id=UUID(str(conversation_id)) if conversation_id else None,
    )
    return [event async for event in send_message(deps, caller, request)]


def kinds(events: list[ev.AgentEvent]) -> list[str]:
    """Event types, with consecutive text_deltas folded into one (chunking is the model's)."""
    out: list[str] = []
    for event in events:
        if event.type == "text_delta" and out and out[-1] == "text_delta":
            continue
        out.append(event.type)
    return out


def text_of(events: list[ev.AgentEvent]) -> str:
    return "".join(e.delta for e in events if isinstance(e, ev.TextDelta))


def conversation_id_of(events: list[ev.AgentEvent]) -> str:
    # the run's `done` (a settled turn may compact the conversation after it)
    done = next((e for e in reversed(events) if isinstance(e, ev.Done)), events[-1])
    assert isinstance(done, ev.Done) and done.conversation_id
    return done.conversation_id


def stored_messages(owner_url: str, conversation_id: str) -> list[dict[str, Any]]:
    with psycopg.connect(owner_url, row_factory=dict_row) as conn:
        return conn.execute(
            "SELECT id, ordinal, role, content, model, stop_reason, usage, run_id FROM ai_messages"
            " WHERE conversation_id = %s ORDER BY ordinal",
            (conversation_id,),
        ).fetchall()


def stored_executions(owner_url: str, conversation_id: str) -> list[dict[str, Any]]:
    with psycopg.connect(owner_url, row_factory=dict_row) as conn:
        return conn.execute(
            "SELECT e.tool_use_id, e.router, e.action, e.status, e.discarded, e.error, e.output,"
            " e.position, e.input FROM ai_tool_executions e JOIN ai_messages m ON m.id = e.message_id"
            " WHERE e.conversation_id = %s ORDER BY m.ordinal, e.position",
            (conversation_id,),
        ).fetchall()


def roles(owner_url: str, conversation_id: str) -> list[str]:
    return [m["role"] for m in stored_messages(owner_url, conversation_id)]


def without_cache_markers(value: Any) -> Any:
    """The cacheable content of a request part: cache_control markers move, content must not."""
    if isinstance(value, dict):
        return {k: without_cache_markers(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [without_cache_markers(v) for v in value]
    return value


def compact(value: Any) -> bytes:
    """JSON as the SDK puts it on the wire."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def prefix_parts(body: dict[str, Any]) -> list[bytes]:
    """What the provider renders, in its order — tools, system, each message — as wire bytes,
    with the moving cache markers removed."""
    parts = [body["tools"], body["system"], *body["messages"]]
    return [compact(without_cache_markers(p)) for p in parts]


def sse_payloads(text: str) -> list[dict[str, Any]]:
    """The `data` JSON of each event in an SSE response body."""
    return [json.loads(frame["data"]) for frame in sse_frames(text)]


def sse_frames(text: str) -> list[dict[str, str]]:
    """Each SSE frame's fields (`id`, `event`, `data`) of a response body."""
    frames = []
    for block in (b for b in text.strip().split("\n\n") if b):
        fields = {}
        for line in block.split("\n"):
            name, _, value = line.partition(": ")
            fields[name] = value
        frames.append(fields)
    return frames


def long_conversation(url: str, org: Org, *, exchanges: int, usage: dict[str, int] | None) -> str:
    """A stored conversation of `exchanges` question/answer pairs (the owner's), for compaction."""
    conversation_id = uuid.uuid4()
    with psycopg.connect(url) as conn:
        conn.execute(
            "INSERT INTO ai_conversations (id, organization_id, user_id, title)"
            " VALUES (%s, %s, %s, 'old')",
            (conversation_id, org.id, org["owner"].user_id),
        )
        ordinal = 0
        for i in range(exchanges):
            run = uuid.uuid4()
            for role, text in (("user", f"question {i}"), ("assistant", f"answer {i}")):
                conn.execute(
                    "INSERT INTO ai_messages (organization_id, conversation_id, run_id, ordinal,"
                    " role, content, stop_reason, model, usage)"
                    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                    (
                        org.id, conversation_id, run, ordinal, role,
                        Jsonb([{"type": "text", "text": text}]),
                        "end_turn" if role == "assistant" else None,
                        "claude-sonnet-5-5" if role == "assistant" else None,
                        Jsonb(usage) if role == "assistant" and usage else None,
                    ),
                )  # fmt: skip
                ordinal += 1
        sync_next_ordinals(conn)
    return str(conversation_id)


def conversation_row(owner_url: str, conversation_id: str) -> dict[str, Any]:
    """The conversation's row as stored (its title, lease, compaction lease...)."""
    with psycopg.connect(owner_url, row_factory=dict_row) as conn:
        row = conn.execute(
            "SELECT * FROM ai_conversations WHERE id = %s", (conversation_id,)
        ).fetchone()
    assert row is not None
    return row
