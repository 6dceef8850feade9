"""Property tests for the history invariant and its repair, and for storable model output.

Any message list that replay may meet — tool calls answered, half answered, out of order, or
not at all, turns lost or doubled — comes out of `repair_replay` passing `validate_replay`, with
every original block still there; a valid history is left exactly as it was.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from spotter.agent.transcript.replay import alternating, repair_replay, validate_replay
from spotter.agent.transcript.storable import MAX_INPUT_DEPTH, distinct_tool_ids, storable_reply
from tests.support.history import violations

_ids = st.sampled_from([f"toolu_{i}" for i in range(6)])


@st.composite
def histories(draw: st.DrawFn) -> list[dict[str, Any]]:
    """User/assistant turns with tool calls whose results may be missing, partial or stray."""
    messages: list[dict[str, Any]] = []
    for turn in range(draw(st.integers(1, 8))):
        if turn % 2 == 0:
            blocks: list[dict[str, Any]] = [
                {"type": "tool_result", "tool_use_id": i, "content": "{}"}
                for i in draw(st.lists(_ids, max_size=3, unique=True))
            ]
            blocks.append({"type": "text", "text": draw(st.text(max_size=5))})
            messages.append({"role": "user", "content": blocks})
        else:
            calls = draw(st.lists(_ids, max_size=3, unique=True))
            blocks = [{"type": "text", "text": "ok"}]
            blocks += [{"type": "tool_use", "id": i, "name": "t", "input": {}} for i in calls]
            messages.append({"role": "assistant", "content": blocks})
    return messages


def _blocks(messages: list[dict[str, Any]]) -> list[str]:
    return sorted(json.dumps(b, sort_keys=True) for m in messages for b in m["content"])


@settings(max_examples=300, deadline=None)
@given(histories())
def test_repair_always_yields_a_history_that_validates(messages: list[dict[str, Any]]) -> None:
    """Every pairing fault is repaired; what repair does not fix (here: a tool_use id used in
    two turns) is all that may remain, and then the run stops instead of sending it."""
    before = validate_replay(messages)
    after = validate_replay(repair_replay(messages, before))
    assert not after.violations and not after.stray_results
    assert set(after.problems) <= {"duplicate_tool_use_id"}
    assert after.ok == (not before.problems)


@settings(max_examples=300, deadline=None)
@given(histories())
def test_repair_adds_answers_and_drops_only_results_that_answer_nothing(
    messages: list[dict[str, Any]],
) -> None:
    check = validate_replay(messages)
    repaired = repair_replay(messages, check)
    stray = {(s.message_index, tid) for s in check.stray_results for tid in s.orphaned_tool_use_ids}
    original = _blocks(
        [
            {
                "role": m["role"],
                "content": [
                    b
                    for b in m["content"]
                    if b.get("type") != "tool_result" or (i, b["tool_use_id"]) not in stray
                ],
            }
            for i, m in enumerate(messages)
        ]
    )
    kept = _blocks(repaired)
    for block in original:
        assert block in kept
        kept.remove(block)
    assert all(json.loads(b)["type"] == "tool_result" for b in kept), "only answers are added"


@settings(max_examples=300, deadline=None)
@given(histories())
def test_a_valid_history_is_left_as_it_was(messages: list[dict[str, Any]]) -> None:
    if validate_replay(messages).ok:
        assert repair_replay(messages, validate_replay(messages)) == messages


@settings(max_examples=300, deadline=None)
@given(histories())
def test_alternation_never_leaves_two_user_turns_in_a_row(messages: list[dict[str, Any]]) -> None:
    doubled = [m for m in messages for _ in (0, 1) if m["role"] == "user"] + messages
    merged = alternating(doubled)
    assert all(
        a["role"] != b["role"] or a["role"] == "assistant" for a, b in itertools.pairwise(merged)
    )


@settings(max_examples=200, deadline=None)
@given(histories())
def test_the_invariant_checker_agrees_with_validate_on_answered_calls(
    messages: list[dict[str, Any]],
) -> None:
    # whatever the checker accepts, the Messages API's rule (every tool_use answered next) holds
    if not violations(messages):
        assert validate_replay(messages).ok or messages[-1]["role"] == "assistant"


# any code point, NUL and lone surrogates included (the model's JSON can escape both)
_texts = st.text(st.characters(exclude_categories=()), max_size=8)
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | _texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_texts, inner, max_size=3),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(exclude_categories=()), max_size=40), _json)
def test_storable_output_never_holds_a_nul_or_a_lone_surrogate(text: str, tool_input: Any) -> None:
    content = [
        {"type": "text", "text": text},
        {"type": "tool_use", "id": "toolu_1", "name": "t", "input": {"args": tool_input}},
    ]
    stored = storable_reply(content)
    assert not _unstorable(stored.content)
    assert [b.get("id") for b in stored.content] == [None, "toolu_1"], "every call keeps its id"
    assert ("toolu_1" in stored.refused) == _unstorable(tool_input)


def _unstorable(value: Any) -> bool:
    """What jsonb refuses, judged the way Postgres is reached: UTF-8 text without NUL."""
    if isinstance(value, str):
        try:
            value.encode()
        except UnicodeEncodeError:
            return True
        return "\x00" in value
    if isinstance(value, dict):
        return any(_unstorable(k) or _unstorable(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_unstorable(v) for v in value)
    return False


def test_depth_at_the_limit_is_refused_and_just_below_is_not() -> None:
    def nested(depth: int) -> Any:
        value: Any = 1
        for _ in range(depth - 1):
            value = [value]
        return value

    def refused(depth: int) -> bool:
        block = {"type": "tool_use", "id": "x", "name": "t", "input": nested(depth)}
        return "x" in storable_reply([block]).refused

    assert refused(MAX_INPUT_DEPTH) and not refused(MAX_INPUT_DEPTH - 1)


@given(st.lists(_ids, max_size=6), st.sets(_ids))
def test_distinct_tool_ids_gives_every_call_an_unused_id_and_changes_nothing_else(
    ids: list[str], used: set[str]
) -> None:
    content = [{"type": "text", "text": "t"}] + [
        {"type": "tool_use", "id": i, "name": "n", "input": {"k": n}} for n, i in enumerate(ids)
    ]
    out, renamed = distinct_tool_ids(content, used)
    calls = [b for b in out if b["type"] == "tool_use"]
    assert len({b["id"] for b in calls}) == len(calls) and not {b["id"] for b in calls} & used
    assert [b["input"] for b in calls] == [{"k": n} for n in range(len(ids))]
    assert renamed == sum(1 for a, b in zip(content[1:], calls, strict=True) if a["id"] != b["id"])
    assert out[0] == content[0]
