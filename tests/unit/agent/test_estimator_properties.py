"""Property tests for the anchored token estimator (spec 002): for any conversation, the
estimate is the anchor plus chars/4 of what followed it, grows with what is appended, and
without an anchor is chars/4 of the whole projection plus the prompt."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from spotter.agent.compaction.context_size import (
    CHARS_PER_TOKEN,
    estimate_context_tokens,
    wire_chars,
)

_text = st.text(max_size=200)


@st.composite
def rows(draw: st.DrawFn, *, anchored: bool) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for ordinal in range(draw(st.integers(1, 10))):
        role = "user" if ordinal % 2 == 0 else "assistant"
        row: dict[str, Any] = {
            "ordinal": ordinal,
            "role": role,
            "content": [{"type": "text", "text": draw(_text)}],
            "stop_reason": "end_turn" if role == "assistant" else None,
            "usage": None,
        }
        if role == "assistant" and anchored:
            row["usage"] = {"inputTokens": draw(st.integers(1, 50_000)), "outputTokens": 10}
        out.append(row)
    return out


@settings(max_examples=300, deadline=None)
@given(rows(anchored=False), st.integers(0, 20_000))
def test_without_an_anchor_the_estimate_is_chars_over_four(
    history: list[dict[str, Any]], prompt_chars: int
) -> None:
    chars = sum(wire_chars(r["content"]) for r in history) + prompt_chars
    assert estimate_context_tokens(history, prompt_chars=prompt_chars) == math.ceil(
        chars / CHARS_PER_TOKEN
    )


@settings(max_examples=300, deadline=None)
@given(rows(anchored=True))
def test_the_newest_anchor_plus_what_followed_it(history: list[dict[str, Any]]) -> None:
    anchors = [i for i, r in enumerate(history) if r["usage"]]
    estimate = estimate_context_tokens(history, prompt_chars=999)
    if not anchors:
        return
    last = anchors[-1]
    usage = history[last]["usage"]
    after = sum(wire_chars(r["content"]) for r in history[last + 1 :])
    expected = usage["inputTokens"] + usage["outputTokens"] + math.ceil(after / CHARS_PER_TOKEN)
    assert estimate == expected


@settings(max_examples=300, deadline=None)
@given(rows(anchored=True), _text)
def test_appending_never_lowers_the_estimate(history: list[dict[str, Any]], text: str) -> None:
    before = estimate_context_tokens(history, prompt_chars=100)
    appended = {
        "ordinal": len(history),
        "role": "tool_result" if history[-1]["role"] == "assistant" else "user",
        "content": [{"type": "text", "text": text}],
        "stop_reason": None,
        "usage": None,
    }
    assert estimate_context_tokens([*history, appended], prompt_chars=100) >= before
