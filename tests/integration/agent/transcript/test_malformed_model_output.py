"""Malformed model output never kills a turn: NUL characters and absurdly deep tool inputs are
stored repaired, a bad call is answered with `invalid_args`, and the model recovers."""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID, uuid4

from spotter.agent import events as ev
from spotter.agent.transcript import append_message
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


async def test_a_tool_use_id_reused_from_an_earlier_turn_is_renamed_and_the_turn_goes_on(
    db: Database, org: Org, clean_db: str
) -> None:
    """Issue 30 item 4: an id the conversation already used was a unique violation (`internal`)."""
    owner = await _owner(db, org)
    listing = {"action": "list", "args": {}}
    first = ScriptedModel(
        [tool_reply(ToolUse("programs", listing, id="toolu_1")), Reply([Text("0.")])]
    )
    events = await run_turn(deps_for(db, first), owner, "list programs")
    cid = conversation_id_of(events)
    model = ScriptedModel(
        [tool_reply(ToolUse("programs", listing, id="toolu_1")), Reply([Text("Still 0.")])]
    )
    events = await run_turn(deps_for(db, model), owner, "again", conversation_id=cid)
    assert not of_type(events, ev.Error) and isinstance(events[-1], ev.Done)
    [completed] = of_type(events, ev.ToolCompleted)
    assert completed.ok and completed.tool_use_id != "toolu_1"
    calls = [
        b["id"]
        for r in stored_messages(clean_db, cid)
        for b in r["content"]
        if b.get("type") == "tool_use"
    ]
    assert calls[0] == "toolu_1" and len(set(calls)) == 2, "every stored call has its own id"
    replayed = model.requests[-1]["messages"]
    assert replayed[-1]["content"][0]["tool_use_id"] == completed.tool_use_id


async def test_two_calls_of_one_reply_with_the_same_id_both_run_under_distinct_ids(
    db: Database, org: Org, clean_db: str
) -> None:
    listing = {"action": "list", "args": {}}
    twice = tool_reply(
        ToolUse("programs", listing, id="toolu_x"), ToolUse("programs", listing, id="toolu_x")
    )
    model = ScriptedModel([twice, Reply([Text("Done.")])])
    events = await run_turn(deps_for(db, model), await _owner(db, org), "list twice")
    assert not of_type(events, ev.Error) and isinstance(events[-1], ev.Done)
    ids = [e.tool_use_id for e in of_type(events, ev.ToolCompleted)]
    assert len(ids) == 2 and ids[0] == "toolu_x" and ids[1] != "toolu_x"


async def test_an_id_of_a_call_a_compaction_summarized_is_renamed_too(
    db: Database, org: Org, clean_db: str
) -> None:
    owner = await _owner(db, org)
    listing = {"action": "list", "args": {}}
    old = tool_reply(ToolUse("programs", listing, id="toolu_old"))
    events = await run_turn(deps_for(db, ScriptedModel([old, Reply([Text("0.")])])), owner, "list")
    cid = conversation_id_of(events)
    through = stored_messages(clean_db, cid)[-1]["ordinal"]
    async with db.org_tx(org.id) as conn:  # summarized through the answer: not replayed
        summary = "<conversation_summary>\nPrograms listed.\n</conversation_summary>"
        await append_message(
            conn, org.id, UUID(cid), run_id=uuid4(), role="system_note",
            content=[{"type": "text", "text": summary}],
            page_context={"summarizedThroughOrdinal": through},
        )  # fmt: skip
    again = tool_reply(ToolUse("programs", listing, id="toolu_old"))
    model = ScriptedModel([again, Reply([Text("Still 0.")])])
    events = await run_turn(deps_for(db, model), owner, "again", conversation_id=cid)
    assert "toolu_old" not in json.dumps(model.requests[0]["messages"]), "summarized away"
    assert not of_type(events, ev.Error) and isinstance(events[-1], ev.Done)
    [completed] = of_type(events, ev.ToolCompleted)
    assert completed.ok and completed.tool_use_id != "toolu_old"
