"""The send state machine, branch by branch: SSE events in order AND the rows stored."""

from __future__ import annotations

import uuid
from typing import Any

import psycopg
import pytest

from spotter.agent import events as ev
from spotter.agent.cost.model_policy import LOOP_MAX_TOKENS, LOOP_MODEL
from spotter.agent.prompting.context import CACHE_5M
from spotter.agent.run import MAX_TURNS
from spotter.agent.run.truncation import TRUNCATED_BATCH_INSTRUCTION
from spotter.agent.transcript.turn_context import is_turn_context
from spotter.db import Database
from spotter.providers.fake import (
    FakeUsage,
    ProviderError,
    Reply,
    ScriptedModel,
    Text,
    Thinking,
    ToolUse,
    tool_reply,
)
from spotter.tools.registry import registry_for_caller
from tests.support.agent import (
    conversation_id_of,
    deps_for,
    kinds,
    roles,
    run_turn,
    stored_executions,
    stored_messages,
    text_of,
)
from tests.support.callers import caller_for
from tests.support.world import Org


def _programs_list(tool_id: str = "toolu_list") -> ToolUse:
    return ToolUse("programs", {"action": "list", "args": {}}, id=tool_id)


async def test_plain_text_turn_streams_stores_and_bills(
    db: Database, org: Org, clean_db: str
) -> None:
    model = ScriptedModel([Reply([Text("Hi! How can I help with your gym today?")])])
    owner = await caller_for(db, org, "owner")
    events = await run_turn(deps_for(db, model), owner, "hello there", pathname="/members")

    assert kinds(events) == ["conversation_started", "text_delta", "message_done", "done"]
    assert text_of(events) == "Hi! How can I help with your gym today?"
    done = events[-1]
    assert isinstance(done, ev.Done) and done.usage.input_tokens == 100
    assert done.usage.cost_usd_micros == 400  # 100 in x $2 + 20 out x $10, per 1M
    cid = conversation_id_of(events)
    rows = stored_messages(clean_db, cid)
    assert [r["role"] for r in rows] == ["user", "assistant"]
    user = rows[0]["content"]
    assert user[0] == {"type": "text", "text": "hello there"}
    assert is_turn_context(user[1]) and "pathname: /members" in user[1]["text"]
    assert rows[1]["content"] == [
        {"type": "text", "text": "Hi! How can I help with your gym today?"}
    ]
    assert rows[1]["stop_reason"] == "end_turn" and rows[1]["model"] == LOOP_MODEL
    assert len({r["run_id"] for r in rows}) == 1
    with psycopg.connect(clean_db) as conn:
        usage = conn.execute(
            "SELECT input_tokens, output_tokens, cost_usd_micros, turns FROM ai_usage_daily"
            " WHERE organization_id = %s AND user_id = %s",
            (org.id, org["owner"].user_id),
        ).fetchone()
    assert usage == (100, 20, 400, 1)


async def test_request_layout_caches_tools_system_and_tail(db: Database, org: Org) -> None:
    model = ScriptedModel([Reply([Text("ok")])])
    owner = await caller_for(db, org, "owner")
    await run_turn(deps_for(db, model), owner, "hi")
    body = model.requests[0]
    assert body["model"] == LOOP_MODEL and body["max_tokens"] == LOOP_MAX_TOKENS
    assert body["thinking"] == {"type": "adaptive"}
    assert body["tools"] == registry_for_caller(owner).definitions
    assert [t["name"] for t in body["tools"]] == sorted(t["name"] for t in body["tools"])
    system = body["system"]
    assert len(system) == 2 and all(b["cache_control"] == CACHE_5M for b in system)
    assert "Never put more than 8 tool calls" in system[0]["text"]
    assert "Box A" not in system[0]["text"], "block 1 is shared by every org"
    assert "Box A" in system[1]["text"] and "role: owner" in system[1]["text"]
    assert "Current date & time" not in str(system), "nothing per turn in system"
    last = body["messages"][-1]["content"]
    assert last[-1]["cache_control"] == CACHE_5M
    assert all("cache_control" not in b for b in last[:-1])


async def test_budget_exceeded_answers_error_and_writes_nothing_more(
    db: Database, org: Org, clean_db: str
) -> None:
    with psycopg.connect(clean_db) as conn:  # growth tier: $5.00 a day
        conn.execute(
            "INSERT INTO ai_usage_daily (organization_id, user_id, day, cost_usd_micros)"
            " VALUES (%s, %s, (now() AT TIME ZONE 'UTC')::date, 5000000)",
            (org.id, org["admin"].user_id),
        )
    model = ScriptedModel([])
    owner = await caller_for(db, org, "owner")
    events = await run_turn(deps_for(db, model), owner, "hi")
    assert kinds(events) == ["conversation_started", "error", "done"]
    error = events[1]
    assert isinstance(error, ev.Error) and error.code == "agent_budget_exceeded"
    assert "($5.00)" in error.message and "00:00 UTC" in error.message
    assert error.trace_id
    assert model.requests == []
    assert stored_messages(clean_db, conversation_id_of(events)) == []


async def test_tool_turn_runs_calls_and_feeds_results_back(
    db: Database, org: Org, clean_db: str
) -> None:
    model = ScriptedModel(
        [
            tool_reply(
                ToolUse(
                    "programs", {"action": "create", "args": {"name": "Engine"}}, id="t_create"
                ),
                text="Creating it.",
            ),
            Reply([Text("Done: Engine exists.")]),
        ]
    )
    owner = await caller_for(db, org, "owner")
    events = await run_turn(deps_for(db, model), owner, "create program Engine")
    assert kinds(events) == [
        "conversation_started", "text_delta", "message_done", "tool_started", "tool_completed",
        "text_delta", "message_done", "done",
    ]  # fmt: skip
    completed = next(e for e in events if isinstance(e, ev.ToolCompleted))
    assert completed.ok and completed.inverse_available and completed.output["name"] == "Engine"
    cid = conversation_id_of(events)
    assert roles(clean_db, cid) == ["user", "assistant", "tool_result", "assistant"]
    [execution] = stored_executions(clean_db, cid)
    assert (execution["status"], execution["router"], execution["action"]) == (
        "succeeded", "programs", "create",
    )  # fmt: skip
    result = model.requests[1]["messages"][-1]["content"][0]
    assert result["type"] == "tool_result" and result["tool_use_id"] == "t_create"
    assert "is_error" not in result and "Engine" in result["content"]


async def test_bad_calls_become_error_results_and_a_confirmable_call_suspends(
    db: Database, org: Org, clean_db: str
) -> None:
    with psycopg.connect(clean_db) as conn:
        program_id = conn.execute(
            "INSERT INTO programs (organization_id, name) VALUES (%s, 'Keep') RETURNING id",
            (org.id,),
        ).fetchone()[0]  # type: ignore[index]
    archive = {"action": "archive", "args": {"programId": str(program_id)}}
    model = ScriptedModel(
        [
            tool_reply(
                ToolUse("nosuch", {"action": "x", "args": {}}, id="t1"),
                ToolUse("programs", {"action": "create", "args": {"name": ""}}, id="t2"),
                ToolUse("programs", archive, id="t3"),
            ),
        ]
    )
    owner = await caller_for(db, org, "owner")
    events = await run_turn(deps_for(db, model), owner, "do things")
    completed = [e for e in events if isinstance(e, ev.ToolCompleted)]
    assert [(c.ok, (c.error or {}).get("code")) for c in completed] == [
        (False, "unknown_tool"), (False, "invalid_args"),
    ]  # fmt: skip
    [pending] = [e for e in events if isinstance(e, ev.ConfirmationPending)]
    assert (pending.tool_use_id, pending.confirm) == ("t3", "destructive")
    assert pending.confirmation is not None and pending.confirmation.target == "Keep"
    assert kinds(events)[-2:] == ["confirmation_pending", "done"]
    assert len(model.requests) == 1, "the run suspended: no second model call"
    rows = stored_executions(clean_db, conversation_id_of(events))
    assert [(r["status"], r["position"]) for r in rows] == [
        ("failed", 0),
        ("failed", 1),
        ("pending", 2),
    ]
    assert roles(clean_db, conversation_id_of(events)) == ["user", "assistant"]
    with psycopg.connect(clean_db) as conn:
        assert conn.execute(
            "SELECT status FROM programs WHERE id = %s", (program_id,)
        ).fetchone() == ("active",)


async def test_first_truncated_batch_is_discarded_and_the_model_is_told(
    db: Database, org: Org, clean_db: str
) -> None:
    cut = Reply(
        [Text("Making them."), _programs_list("t_a"), _programs_list("t_b"), _programs_list("t_c")],
        stop_reason="max_tokens",
    )
    model = ScriptedModel([cut, Reply([Text("Redone with one call.")])])
    owner = await caller_for(db, org, "owner")
    events = await run_turn(deps_for(db, model), owner, "make many")
    assert kinds(events) == [
        "conversation_started", "text_delta", "message_done", "text_delta", "message_done", "done",
    ]  # fmt: skip
    first_done = next(e for e in events if isinstance(e, ev.MessageDone))
    assert first_done.stop_reason == "max_tokens"
    cid = conversation_id_of(events)
    rows = stored_messages(clean_db, cid)
    assert [b.get("id") for b in rows[1]["content"]] == [None, "t_a", "t_b"], (
        "the unfinished call is dropped"
    )
    executions = stored_executions(clean_db, cid)
    assert [(e["tool_use_id"], e["status"], e["discarded"]) for e in executions] == [
        ("t_a", "failed", True), ("t_b", "failed", True),
    ]  # fmt: skip
    results = model.requests[1]["messages"][-1]["content"]
    assert results[0]["is_error"] and TRUNCATED_BATCH_INSTRUCTION in results[0]["content"]
    assert TRUNCATED_BATCH_INSTRUCTION not in results[1]["content"]


async def test_second_truncation_in_a_run_is_terminal(
    db: Database, org: Org, clean_db: str
) -> None:
    cut = Reply([_programs_list("t_a"), _programs_list("t_b")], stop_reason="max_tokens")
    cut2 = Reply([_programs_list("t_c"), _programs_list("t_d")], stop_reason="max_tokens")
    model = ScriptedModel([cut, cut2])
    owner = await caller_for(db, org, "owner")
    events = await run_turn(deps_for(db, model), owner, "make many")
    assert kinds(events) == [
        "conversation_started",
        "message_done",
        "message_done",
        "error",
        "done",
    ]
    error = events[-2]
    assert isinstance(error, ev.Error) and error.code == "provider_output_truncated"
    cid = conversation_id_of(events)
    assert roles(clean_db, cid) == ["user", "assistant", "tool_result", "assistant", "tool_result"]


async def test_prose_only_truncation_is_terminal_and_thinking_only_is_stored_as_cut_off(
    db: Database, org: Org, clean_db: str
) -> None:
    model = ScriptedModel(
        [Reply([Thinking("planning a long answer", signature=None)], stop_reason="max_tokens")]
    )
    owner = await caller_for(db, org, "owner")
    events = await run_turn(deps_for(db, model), owner, "write an essay")
    assert kinds(events) == ["conversation_started", "message_done", "error", "done"]
    assert isinstance(events[-2], ev.Error) and events[-2].code == "provider_output_truncated"
    rows = stored_messages(clean_db, conversation_id_of(events))
    assert rows[-1]["content"] == [{"type": "text", "text": "(reply cut off)"}]


async def test_max_turns_stops_after_six_round_trips(db: Database, org: Org, clean_db: str) -> None:
    model = ScriptedModel([tool_reply(_programs_list(f"t{i}")) for i in range(MAX_TURNS)])
    owner = await caller_for(db, org, "owner")
    events = await run_turn(deps_for(db, model), owner, "loop forever")
    assert len(model.requests) == MAX_TURNS
    assert kinds(events)[-2:] == ["error", "done"]
    assert isinstance(events[-2], ev.Error) and events[-2].code == "max_turns_reached"
    cid = conversation_id_of(events)
    assert roles(clean_db, cid) == ["user"] + ["assistant", "tool_result"] * MAX_TURNS


@pytest.mark.parametrize(
    ("status", "kind", "code"),
    [
        (400, "invalid_request_error", "provider_invalid_request"),
        (401, "authentication_error", "provider_unauthorized"),
        (403, "permission_error", "provider_unauthorized"),
        (429, "rate_limit_error", "provider_rate_limited"),
        (500, "api_error", "provider_unavailable"),
        (529, "overloaded_error", "provider_overloaded"),
    ],
)
async def test_provider_errors_are_classified(
    db: Database, org: Org, clean_db: str, status: int, kind: str, code: str
) -> None:
    model = ScriptedModel([ProviderError(status, kind)])
    owner = await caller_for(db, org, "owner")
    events = await run_turn(
        deps_for(db, model),
        owner,
        "hi",
    )
    assert kinds(events) == ["conversation_started", "error", "done"]
    error = events[1]
    assert isinstance(error, ev.Error) and error.code == code and error.trace_id
    assert roles(clean_db, conversation_id_of(events)) == ["user"]


async def test_a_second_message_continues_the_conversation(
    db: Database, org: Org, clean_db: str
) -> None:
    model = ScriptedModel([Reply([Text("first")]), Reply([Text("second")])])
    owner = await caller_for(db, org, "owner")
    deps = deps_for(db, model)
    cid = conversation_id_of(await run_turn(deps, owner, "one"))
    events = await run_turn(deps, owner, "two", conversation_id=cid)
    assert kinds(events) == ["text_delta", "message_done", "done"], "no conversation_started"
    assert [r["ordinal"] for r in stored_messages(clean_db, cid)] == [0, 1, 2, 3]
    assert len({r["run_id"] for r in stored_messages(clean_db, cid)}) == 2


async def test_another_users_conversation_is_not_found(db: Database, org: Org) -> None:
    model = ScriptedModel([Reply([Text("first")])])
    deps = deps_for(db, model)
    cid = conversation_id_of(await run_turn(deps, await caller_for(db, org, "owner"), "mine"))
    events = await run_turn(deps, await caller_for(db, org, "coach"), "peek", conversation_id=cid)
    assert kinds(events) == ["error", "done"]
    assert isinstance(events[0], ev.Error) and events[0].code == "not_found"
    missing = await run_turn(
        deps, await caller_for(db, org, "coach"), "x", conversation_id=uuid.uuid4()
    )
    assert isinstance(missing[0], ev.Error) and missing[0].code == "not_found"


def _thinking_turn(text: str) -> Any:
    return Reply([Thinking("let me think", signature="sig-1"), Text(text)])


async def test_thinking_is_replayed_only_to_the_model_that_wrote_it(
    db: Database, org: Org, clean_db: str
) -> None:
    model = ScriptedModel([_thinking_turn("a"), Reply([Text("b")]), Reply([Text("c")])])
    owner = await caller_for(db, org, "owner")
    deps = deps_for(db, model)
    cid = conversation_id_of(await run_turn(deps, owner, "one"))
    stored = stored_messages(clean_db, cid)[1]["content"]
    assert stored[0] == {"type": "thinking", "thinking": "let me think", "signature": "sig-1"}
    await run_turn(deps, owner, "two", conversation_id=cid)
    assert model.requests[1]["messages"][1]["content"][0]["type"] == "thinking"
    # the same turn is written by another model from the loop's point of view: stripped
    with psycopg.connect(clean_db) as conn:
        conn.execute(
            "UPDATE ai_messages SET model = 'claude-opus-5' WHERE conversation_id = %s AND ordinal = 1",
            (cid,),
        )
    await run_turn(deps, owner, "three", conversation_id=cid)
    assert [b["type"] for b in model.requests[2]["messages"][1]["content"]] == ["text"]
    assert stored_messages(clean_db, cid)[1]["content"][0]["type"] == "thinking", "rows keep it"


async def test_snapshot_ids_count_as_the_same_model_for_thinking(
    db: Database, org: Org, clean_db: str
) -> None:
    model = ScriptedModel(
        [
            Reply([Thinking("t", signature="s"), Text("a")], model=f"{LOOP_MODEL}-20260801"),
            Reply([Text("b")]),
        ]
    )
    owner = await caller_for(db, org, "owner")
    deps = deps_for(db, model)
    cid = conversation_id_of(await run_turn(deps, owner, "one"))
    await run_turn(deps, owner, "two", conversation_id=cid)
    assert model.requests[1]["messages"][1]["content"][0]["type"] == "thinking"


async def test_usage_sums_calls_and_splits_cache_writes(
    db: Database, org: Org, clean_db: str
) -> None:
    usage = FakeUsage(
        input_tokens=10, output_tokens=10, cache_read_input_tokens=900,
        cache_write_5m_tokens=1000, cache_write_1h_tokens=100,
    )  # fmt: skip
    model = ScriptedModel(
        [tool_reply(_programs_list(), usage=usage), Reply([Text("x")], usage=usage)]
    )
    owner = await caller_for(db, org, "owner")
    events = await run_turn(deps_for(db, model), owner, "hi")
    done = events[-1]
    assert isinstance(done, ev.Done)
    # per call: 10x2 + 10x10 + 900x0.1 + 1000x2.5 + 100x4 = 3110 micro-dollars
    assert done.usage.cost_usd_micros == 2 * 3110
    assert done.usage.cache_write_tokens == 2 * 1100 and done.usage.cache_read_tokens == 1800
    with psycopg.connect(clean_db) as conn:
        row = conn.execute(
            "SELECT cache_write_5m_tokens, cache_write_1h_tokens, cost_usd_micros, turns"
            " FROM ai_usage_daily WHERE organization_id = %s",
            (org.id,),
        ).fetchone()
    assert row == (2000, 200, 6220, 1)
