"""Replay validation and repair, thinking filters, the turn context and the cache markers."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from typing import Any

from spotter.agent.cost.model_policy import ModelCall
from spotter.agent.prompting.context import (
    CACHE_5M,
    build_turn_context,
    system_blocks,
    with_cached_tail,
)
from spotter.agent.run.model_turn import finished_content
from spotter.agent.transcript.history import StoredMessage
from spotter.agent.transcript.replay import (
    block_types,
    repair_replay,
    replay_messages,
    validate_replay,
)
from spotter.agent.transcript.turn_context import is_turn_context
from spotter.auth import Caller


def _caller(**kw: Any) -> Caller:
    base: dict[str, Any] = dict(
        org_id=uuid.uuid4(), user_id=uuid.uuid4(), clerk_user_id="u", clerk_org_id="o",
        role="coach", full_name="Dana Levi", org_name="Box", org_timezone="Asia/Jerusalem",
        platform_tier="growth", org_type="gym", day_grain_programming=False, locale="he",
    )  # fmt: skip
    return Caller(**{**base, **kw})


def _use(tid: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": tid, "name": "programs", "input": {"action": "list"}}


def _result(tid: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tid, "content": "{}"}


def test_valid_history_passes() -> None:
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        {"role": "assistant", "content": [_use("a")]},
        {"role": "user", "content": [_result("a")]},
    ]
    assert validate_replay(messages).ok


def test_orphans_are_repaired_with_error_results_where_the_model_needs_them() -> None:
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        {"role": "assistant", "content": [_use("a"), _use("b")]},
        {"role": "user", "content": [{"type": "text", "text": "never mind, do X"}]},
        {"role": "assistant", "content": [_use("c")]},
    ]
    check = validate_replay(messages)
    assert [(v.message_index, v.orphaned_tool_use_ids) for v in check.violations] == [
        (1, ["a", "b"]), (3, ["c"]),
    ]  # fmt: skip
    repaired = repair_replay(messages, check)
    assert validate_replay(repaired).ok
    assert [b["type"] for b in repaired[2]["content"]] == ["tool_result", "tool_result", "text"]
    assert repaired[4]["content"][0]["is_error"] is True
    assert block_types(messages)[1] == {"role": "assistant", "blocks": ["tool_use", "tool_use"]}


def test_thinking_is_kept_only_for_a_thinking_call_on_the_same_model() -> None:
    thinking = {"type": "thinking", "thinking": "hmm", "signature": "s"}
    run = uuid.uuid4()
    stored = [
        StoredMessage(uuid.uuid4(), 0, "user", [{"type": "text", "text": "q"}], None, run),
        StoredMessage(
            uuid.uuid4(),
            1,
            "assistant",
            [thinking, {"type": "text", "text": "a"}],
            "m-1-20250101",
            run,
        ),
        StoredMessage(uuid.uuid4(), 2, "tool_result", [_result("x")], None, run),
    ]
    thinks = ModelCall("spotterLoop", "m-1", 100, {"type": "adaptive"})
    quiet = ModelCall("spotterLoop", "m-1", 100)
    other = ModelCall("spotterLoop", "m-2", 100, {"type": "adaptive"})
    assert replay_messages(stored, thinks, role="owner")[1]["content"][0] == thinking
    assert replay_messages(stored, quiet, role="owner")[1]["content"] == [
        {"type": "text", "text": "a"}
    ]
    assert replay_messages(stored, other, role="owner")[1]["content"] == [
        {"type": "text", "text": "a"}
    ]
    assert [m["role"] for m in replay_messages(stored, thinks, role="owner")] == [
        "user",
        "assistant",
        "user",
    ]


def test_consecutive_user_rows_replay_as_one_user_turn_with_their_blocks_in_order() -> None:
    run, later = uuid.uuid4(), uuid.uuid4()
    stored = [
        StoredMessage(uuid.uuid4(), 0, "user", [{"type": "text", "text": "q"}], None, run),
        StoredMessage(uuid.uuid4(), 1, "assistant", [_use("x")], "m-1", run),
        StoredMessage(uuid.uuid4(), 2, "tool_result", [_result("x")], None, run),
        # the run failed here (no assistant turn); the next user turn follows the results
        StoredMessage(uuid.uuid4(), 3, "user", [{"type": "text", "text": "again"}], None, later),
    ]
    messages = replay_messages(stored, ModelCall("spotterLoop", "m-1", 100), role="owner")
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[2]["content"] == [_result("x"), {"type": "text", "text": "again"}]
    assert validate_replay(messages).ok


def test_turn_context_carries_clock_locale_page_and_selection() -> None:
    now = datetime(2026, 11, 30, 22, 30, tzinfo=UTC)
    text = build_turn_context(_caller(), now, "/dashboard/leads/p1", {"leadId": "l1", "x": None})
    assert is_turn_context({"type": "text", "text": text})
    assert "(Asia/Jerusalem): Tuesday 2026-12-01 00:30 (UTC+0200)" in text
    assert "Caller's preferred locale: he" in text
    assert 'pathname: /dashboard/leads/p1\nselection: {"leadId": "l1"}' in text


def test_system_blocks_are_stable_and_marked() -> None:
    caller = _caller()
    first, second = system_blocks(caller), system_blocks(caller)
    assert first == second
    assert [b["cache_control"] for b in first] == [CACHE_5M, CACHE_5M]
    assert "Dana Levi (role: coach)" in first[1]["text"]
    assert "lead_management, program_templates" in first[1]["text"]


def test_only_the_tail_block_is_marked_and_the_input_is_not_touched() -> None:
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "a"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "b"}]},
        {"role": "user", "content": [_result("x"), _result("y")]},
    ]
    marked = with_cached_tail(messages)
    assert marked[-1]["content"][1]["cache_control"] == CACHE_5M
    assert "cache_control" not in marked[-1]["content"][0]
    assert all("cache_control" not in b for m in messages for b in m["content"])


def test_a_capped_reply_loses_its_unfinished_block_and_is_never_empty() -> None:
    text = {"type": "text", "text": "Making them"}
    call = {"type": "tool_use", "id": "t", "name": "programs", "input": {}}
    signed = {"type": "thinking", "thinking": "x", "signature": "s"}
    assert finished_content([text, call], "max_tokens") == [text]
    assert finished_content([text, call], "tool_use") == [text, call]
    assert finished_content([signed, call], "max_tokens") == [
        {"type": "text", "text": "(reply cut off)"}
    ]
    assert finished_content([], "end_turn") == [{"type": "text", "text": "(no reply)"}]


def _submission_result(tid: str) -> dict[str, Any]:
    output = {
        "id": "s1", "formKind": "waiver", "signer": "Noa",
        "answers": [
            {"field": "contact", "label": "Emergency contact", "value": "Avi", "health": False},
            {"field": "knee", "label": "Injuries?", "value": "torn meniscus", "health": True},
        ],
    }  # fmt: skip
    return {"type": "tool_result", "tool_use_id": tid, "content": json.dumps(output)}


def _read_a_submission() -> list[StoredMessage]:
    run = uuid.uuid4()
    return [
        StoredMessage(uuid.uuid4(), 0, "user", [{"type": "text", "text": "q"}], None, run),
        StoredMessage(uuid.uuid4(), 1, "assistant", [_use("x"), _use("y")], "m-1", run),
        StoredMessage(
            uuid.uuid4(), 2, "tool_result", [_submission_result("x"), _result("y")], None, run
        ),
    ]


def test_a_replay_gives_a_coach_no_health_answer_and_a_manager_the_stored_bytes() -> None:
    """Tool results are replayed in the caller's role now (fix32): a coach's replay of a
    submission an owner read drops its health answers, as every other reader does; a manager's
    replay is the stored content itself, so her cached prefix is unchanged."""
    stored = _read_a_submission()
    call = ModelCall("spotterLoop", "m-1", 100)
    as_coach = replay_messages(stored, call, role="coach")[2]["content"]
    shown = json.loads(as_coach[0]["content"])
    assert [a["value"] for a in shown["answers"]] == ["Avi"]
    assert shown["withheldFields"] == ["knee"] and "torn meniscus" not in as_coach[0]["content"]
    assert as_coach[1] is stored[2].content[1]  # a result with no health answer is untouched
    for manager in ("owner", "admin"):
        assert replay_messages(stored, call, role=manager)[2]["content"] == stored[2].content
