"""Malformed model output never kills a turn: NUL characters and absurdly deep tool inputs are
stored repaired, a bad call is answered with `invalid_args`, and the model recovers."""

from __future__ import annotations

import json
from typing import Any

from spotter.agent import events as ev
from spotter.agent.transcript.storable import MAX_INPUT_DEPTH, REPLACEMENT
from spotter.auth import Caller
from spotter.db import Database
from spotter.providers.fake import Reply, ScriptedModel, Text, ToolUse, tool_reply
from tests.support.agent import conversation_id_of, deps_for, run_turn, stored_messages
from tests.support.callers import caller_for
from tests.support.hitl import of_type
from tests.support.world import Org


def _nested(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = {"x": value}
    return value


async def _owner(db: Database, org: Org) -> Caller:
    return await caller_for(db, org, "owner")


async def test_model_text_with_nul_is_stored_with_a_replacement_character(
    db: Database, org: Org, clean_db: str
) -> None:
    model = ScriptedModel([Reply([Text("hello\u0000world")])])
    events = await run_turn(deps_for(db, model), await _owner(db, org), "hi")
    assert not of_type(events, ev.Error) and isinstance(events[-1], ev.Done)
    rows = stored_messages(clean_db, conversation_id_of(events))
    assert rows[-1]["content"] == [{"type": "text", "text": f"hello{REPLACEMENT}world"}]


async def _bad_call_then_recovery(
    db: Database, org: Org, clean_db: str, bad_input: dict[str, Any]
) -> tuple[list[ev.AgentEvent], ScriptedModel]:
    bad = ToolUse("programs", bad_input, id="toolu_bad")
    model = ScriptedModel([tool_reply(bad), Reply([Text("Sorry, here it is properly.")])])
    events = await run_turn(deps_for(db, model), await _owner(db, org), "list programs")
    return events, model


def _answer_to_bad_call(model: ScriptedModel) -> dict[str, Any]:
    replayed = model.requests[1]["messages"]
    [result] = [
        b
        for b in replayed[-1]["content"]
        if b.get("type") == "tool_result" and b["tool_use_id"] == "toolu_bad"
    ]
    return result


async def test_a_tool_input_with_nul_is_answered_invalid_args_and_the_model_recovers(
    db: Database, org: Org, clean_db: str
) -> None:
    events, model = await _bad_call_then_recovery(
        db, org, clean_db, {"action": "create", "args": {"name": "A\u0000B"}}
    )
    assert not of_type(events, ev.Error) and isinstance(events[-1], ev.Done)
    [completed] = of_type(events, ev.ToolCompleted)
    assert completed.ok is False and completed.error["code"] == "invalid_args"
    result = _answer_to_bad_call(model)
    assert result["is_error"] is True and json.loads(result["content"])["code"] == "invalid_args"
    rows = stored_messages(clean_db, conversation_id_of(events))
    [call] = [b for r in rows for b in r["content"] if b.get("type") == "tool_use"]
    assert call["id"] == "toolu_bad" and call["input"] == {}, "stored without what jsonb refuses"
    assert [r["role"] for r in rows] == ["user", "assistant", "tool_result", "assistant"]


async def test_a_tool_input_nested_too_deep_is_answered_invalid_args(
    db: Database, org: Org, clean_db: str
) -> None:
    events, model = await _bad_call_then_recovery(
        db, org, clean_db, {"action": "list", "args": _nested(MAX_INPUT_DEPTH)}
    )
    assert not of_type(events, ev.Error) and isinstance(events[-1], ev.Done)
    assert json.loads(_answer_to_bad_call(model)["content"])["code"] == "invalid_args"


async def test_an_input_nested_a_hundred_deep_is_not_refused_for_depth(
    db: Database, org: Org, clean_db: str
) -> None:
    _, model = await _bad_call_then_recovery(
        db, org, clean_db, {"action": "list", "args": _nested(100)}
    )
    message = json.loads(_answer_to_bad_call(model)["content"]).get("message", "")
    assert "nested" not in message
