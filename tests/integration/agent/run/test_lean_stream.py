"""The loop and the quick lanes on the lean stream: our body on the wire (the registry's tool
JSON verbatim, byte-stable for the same history), and unparseable tool input refused per call."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from spotter.agent import events as ev
from spotter.agent.cost import model_policy
from spotter.agent.prompting import system_blocks
from spotter.agent.transcript.storable import MAX_INPUT_DEPTH
from spotter.config import Settings
from spotter.db import Database
from spotter.providers.fake import Reply, ScriptedModel, Text, ToolUse, tool_reply
from spotter.tools.registry import registry_for_caller
from tests.support.agent import (
    conversation_id_of,
    deps_for,
    run_turn,
    stored_executions,
    stored_messages,
)
from tests.support.callers import caller_for
from tests.support.hitl import of_type
from tests.support.world import Org

NOON = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


def _nested(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = {"x": value}
    return value


async def test_the_loop_posts_the_registrys_tool_json_verbatim_with_stream_on(
    db: Database, org: Org
) -> None:
    model = ScriptedModel([Reply([Text("Hi.")])])
    owner = await caller_for(db, org, "owner")
    await run_turn(deps_for(db, model), owner, "hello")
    [raw] = model.raw_requests
    assert registry_for_caller(owner).definitions_json.encode() in raw
    body = json.loads(raw)
    assert body["stream"] is True
    assert body["tools"] == registry_for_caller(owner).definitions
    assert body["system"] == system_blocks(owner)
    assert body["thinking"] == model_policy(Settings(environment="test"))["spotterLoop"].thinking
    tail = body["messages"][-1]["content"][-1]
    assert tail["cache_control"] == {"type": "ephemeral", "ttl": "5m"}


async def test_the_same_history_is_posted_as_the_same_bytes(db: Database, org: Org) -> None:
    model = ScriptedModel([Reply([Text("Hi.")]), Reply([Text("Hi.")])])
    owner = await caller_for(db, org, "owner")
    deps = deps_for(db, model, clock=lambda: NOON)
    await run_turn(deps, owner, "hello")
    await run_turn(deps, owner, "hello")  # a second conversation, word for word the same
    first, second = model.raw_requests
    assert first == second


async def test_an_unparseable_call_is_refused_and_its_sibling_still_runs(
    db: Database, org: Org, clean_db: str
) -> None:
    bad = ToolUse("programs", {"action": "list", "args": _nested(MAX_INPUT_DEPTH)}, id="t_bad")
    good = ToolUse("programs", {"action": "list", "args": {}}, id="t_good")
    model = ScriptedModel([tool_reply(bad, good), Reply([Text("Here they are.")])])
    owner = await caller_for(db, org, "owner")
    events = await run_turn(deps_for(db, model), owner, "list programs")
    assert not of_type(events, ev.Error) and isinstance(events[-1], ev.Done)
    completed = {e.tool_use_id: e for e in of_type(events, ev.ToolCompleted)}
    assert completed["t_bad"].ok is False and completed["t_bad"].error["code"] == "invalid_args"
    assert completed["t_good"].ok is True, "the rest of the reply was not dropped"
    rows = stored_messages(clean_db, conversation_id_of(events))
    calls = {b["id"]: b for r in rows for b in r["content"] if b.get("type") == "tool_use"}
    assert calls["t_bad"]["input"] == {} and calls["t_good"]["input"]["action"] == "list"


async def test_a_quick_route_call_that_does_not_parse_declines_to_the_loop(
    db: Database, org: Org, clean_db: str
) -> None:
    deep = ToolUse("read", {"action": "coaches", "args": _nested(MAX_INPUT_DEPTH)})
    model = ScriptedModel(script=[Reply([Text("The loop answers.")])])
    model.lanes["quick_route"] = [tool_reply(deep)]
    owner = await caller_for(db, org, "owner")
    events = await run_turn(deps_for(db, model), owner, "who are our coaches?")
    assert isinstance(events[-1], ev.Done) and not of_type(events, ev.Error)
    assert len(model.requests) == 1, "the loop ran"
    cid = conversation_id_of(events)
    assert stored_executions(clean_db, cid) == [], "the unparsed call never ran"
    assert [r["role"] for r in stored_messages(clean_db, cid)] == ["user", "assistant"]
