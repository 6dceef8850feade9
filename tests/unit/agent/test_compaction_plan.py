"""Compaction triggers at 24 messages past the marker or over the threshold; keeps the last 6."""

from __future__ import annotations

import uuid
from typing import Any

from spotter.agent.compaction.plan import KEEP_VERBATIM, plan_compaction, summarizer_transcript


def row(role: str, content: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": uuid.uuid4(), "role": role, "content": content}


def exchange(i: int) -> list[dict[str, Any]]:
    return [
        row("user", [{"type": "text", "text": f"question {i}"}, {"type": "text", "text": "<turn_context>\nnow\n</turn_context>"}]),
        row("assistant", [{"type": "text", "text": f"checking {i}"}, {"type": "tool_use", "id": f"t{i}", "name": "read", "input": {"action": "schedule", "args": {}}}]),
        row("tool_result", [{"type": "tool_result", "tool_use_id": f"t{i}", "content": '{"id": "secret-id-123"}'}]),
        row("assistant", [{"type": "text", "text": f"answer {i}"}]),
    ]  # fmt: skip


def numbered(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**r, "ordinal": i} for i, r in enumerate(rows)]


def test_no_plan_below_both_triggers() -> None:
    rows = numbered([r for i in range(5) for r in exchange(i)])  # 20 messages
    assert plan_compaction(rows, estimated_tokens=1_000, threshold=150_000) is None


def test_twenty_four_messages_past_the_marker_trigger_it() -> None:
    rows = numbered([r for i in range(6) for r in exchange(i)])
    plan = plan_compaction(rows, estimated_tokens=1_000, threshold=150_000)
    assert plan is not None
    assert list(plan.summarize) + list(plan.keep) == rows
    # the last 6 would open with a tool result, so its tool call is kept with it
    assert list(plan.keep) == rows[-KEEP_VERBATIM - 1 :]
    assert plan.through_message_id == rows[-KEEP_VERBATIM - 2]["id"]


def test_size_over_threshold_triggers_it_with_few_messages() -> None:
    rows = numbered([r for i in range(3) for r in exchange(i)])
    assert plan_compaction(rows, estimated_tokens=200_000, threshold=150_000) is not None


def test_messages_before_the_newest_marker_do_not_count() -> None:
    marker = row("system_note", [{"type": "text", "text": "summary"}])
    rows = (
        [r for i in range(6) for r in exchange(i)]
        + [marker]
        + [r for i in range(3) for r in exchange(i)]
    )
    assert plan_compaction(rows, estimated_tokens=1_000, threshold=150_000) is None


def test_the_kept_part_never_opens_with_a_tool_result() -> None:
    rows = numbered([r for i in range(6) for r in exchange(i)] + exchange(6)[:3])
    plan = plan_compaction(rows, estimated_tokens=1_000, threshold=150_000)
    assert plan is not None
    assert plan.keep[0]["role"] != "tool_result"


def test_the_summarizer_sees_prose_and_tool_names_but_no_results() -> None:
    text = summarizer_transcript(exchange(1))
    assert "User: question 1" in text and "Assistant: answer 1" in text
    assert "Assistant called: read.schedule" in text
    assert "Tool results: 1 succeeded, 0 errored" in text
    assert "secret-id-123" not in text and "<turn_context>" not in text
