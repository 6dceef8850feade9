"""Pure parts of the cheap lanes and the gate: what the router reads, context windows."""

from __future__ import annotations

import uuid

from spotter.agent.compaction.context_size import effective_threshold
from spotter.agent.cost.model_policy import (
    CONTEXT_WINDOWS,
    DEFAULT_CONTEXT_WINDOW,
    context_window,
    model_policy,
)
from spotter.agent.cost.pricing import base_model_id
from spotter.agent.run.quick_lane import RECENT_MESSAGES, router_input
from spotter.agent.transcript.history import StoredMessage
from spotter.config import Settings

CTX = "<turn_context>\nCurrent date & time in org timezone (UTC): Thursday 2026-12-03 09:00\n</turn_context>"


def message(ordinal: int, role: str, text: str, ctx: str | None = None) -> StoredMessage:
    content = [{"type": "text", "text": text}]
    if ctx:
        content.append({"type": "text", "text": ctx})
    return StoredMessage(uuid.uuid4(), ordinal, role, content, None, uuid.uuid4())


def test_the_router_reads_visible_text_the_current_clock_and_the_message() -> None:
    old_ctx = CTX.replace("Thursday", "Monday")
    stored = [
        message(
            i, "user" if i % 2 == 0 else "assistant", f"said {i}", old_ctx if i % 2 == 0 else None
        )
        for i in range(8)
    ]
    stored.append(message(8, "user", "book Dana", CTX))
    text = router_input(stored, "  book Dana ")
    assert "Monday" not in text  # earlier turn contexts are never shown
    assert text.count("Current date & time") == 1 and "Thursday" in text
    assert [line for line in text.splitlines() if line.startswith(("User:", "Assistant:"))] == [
        f"{'User' if i % 2 == 0 else 'Assistant'}: said {i}" for i in range(8 - RECENT_MESSAGES, 8)
    ]
    assert text.endswith("<message>\nbook Dana\n</message>")


def test_a_first_message_has_no_recent_conversation() -> None:
    text = router_input([message(0, "user", "hi", CTX)], "hi")
    assert "<recent_conversation>" not in text and text.startswith("<turn_context>")


def test_every_policy_model_has_a_context_window_and_unknown_ones_get_the_smallest() -> None:
    for call in model_policy(Settings(environment="test")).values():
        assert base_model_id(call.model) in CONTEXT_WINDOWS
    assert (
        context_window("claude-unknown-9")
        == DEFAULT_CONTEXT_WINDOW
        == min(CONTEXT_WINDOWS.values())
    )
    loop = model_policy(Settings(environment="test"))["spotterLoop"].model
    assert effective_threshold(Settings(environment="test").compaction_threshold_tokens,
                               context_window(loop)) == 150_000  # fmt: skip
