"""Pure parts of the cheap lanes and the gate: what the router reads, context windows."""

from __future__ import annotations

import uuid
from itertools import product

from spotter.agent.compaction.context_size import effective_threshold
from spotter.agent.cost.model_policy import (
    CONTEXT_WINDOWS,
    DEFAULT_CONTEXT_WINDOW,
    context_window,
    model_policy,
)
from spotter.agent.cost.pricing import base_model_id
from spotter.agent.run.quick_lane import (
    PAGE_CONTEXT_RULES,
    RECENT_MESSAGES,
    ROUTER_PROMPT,
    router_input,
    router_system,
)
from spotter.agent.transcript.history import StoredMessage
from spotter.config import Settings
from spotter.tools.registry import registry_for
from spotter.tools.report import quick_route_prefix_tokens
from spotter.tools.token_count import HAIKU_CACHE_MINIMUM

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


def test_the_quick_route_prefix_of_every_surface_reaches_haiku_s_cache_minimum() -> None:
    """Issue 26 item 3: below 4,096 tokens Haiku ignores the marker and every call pays full
    input; each surface with quick actions (role × org flags) crosses it by its own content."""
    for role in ("owner", "admin", "coach"):
        for day_grain, forms in product((False, True), (False, True)):
            registry = registry_for(role, day_grain, forms)
            tokens = quick_route_prefix_tokens(registry, router_system)
            assert tokens >= HAIKU_CACHE_MINIMUM + 256, (role, day_grain, forms, tokens)


def test_the_router_sees_every_action_of_its_surface_and_examples_only_for_its_tools() -> None:
    coach, owner = registry_for("coach", False, True), registry_for("owner", False, True)
    text = router_system(coach)
    assert text.startswith(ROUTER_PROMPT) and PAGE_CONTEXT_RULES in text
    for spec in coach.specs:
        assert f"- {spec.router}.{spec.action}: {spec.summary}" in text
    assert "programs.create" not in {s.name for s in coach.quick_specs}
    assert "programs.create with the name" not in text, "no example for a tool it lacks"
    assert "programs.create with the name" in router_system(owner)
    # no org or user data: one entry per surface, the same bytes every time
    assert router_system(coach) is text
