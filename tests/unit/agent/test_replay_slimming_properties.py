"""Replay slimming, as properties (hypothesis): the digest is a pure function of the stored
content, a row is rewritten at most once as a conversation grows (monotonic), and every
tool_use keeps its tool_result partner."""

from __future__ import annotations

import copy
import itertools
import json
import uuid
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from spotter.agent.transcript.replay import validate_replay
from spotter.agent.transcript.slimming import DIGEST_NOTE, digest, slim_for_replay

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.text(max_size=40), st.floats(allow_nan=False)
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=30), st.dictionaries(st.text(max_size=12), inner, max_size=8)
    ),
    max_leaves=60,
)
# a list-heavy record like the read tools return: big enough to be slimmed, often
records = st.dictionaries(
    st.sampled_from(["id", "name", "classTypeId", "notes", "title", "count"]),
    st.one_of(st.text(max_size=12).map(lambda t: t * 8), st.integers()),
    min_size=1,
)
results = st.one_of(
    json_values.map(lambda v: json.dumps(v, ensure_ascii=False)),
    st.builds(
        lambda total, items: json.dumps({"total": total, "items": items}),
        st.integers(),
        # one drawn record repeated under distinct ids: big results from little entropy
        st.builds(
            lambda base, n: [{**base, "id": f"r{i}"} for i in range(n)],
            records,
            st.integers(15, 60),
        ),
    ),
    # unparseable (e.g. cut by the storage cap): head-truncated
    st.builds(lambda c, n: "{" + c * n, st.characters(), st.integers(1_500, 3_000)),
)


@st.composite
def run(draw: st.DrawFn) -> list[dict[str, Any]]:
    run_id = uuid.uuid4()
    ctx = "<turn_context>\nnow\n<ambient_context>\n- guess\n</ambient_context>\n</turn_context>"
    rows: list[dict[str, Any]] = [
        {
            "run_id": run_id,
            "role": "user",
            "content": [
                {"type": "text", "text": draw(st.text(max_size=30))},
                {"type": "text", "text": ctx},
            ],
        }
    ]
    for _ in range(draw(st.integers(0, 2))):
        calls = draw(st.integers(1, 3))
        ids = [f"toolu_{uuid.uuid4().hex[:8]}" for _ in range(calls)]
        rows.append(
            {
                "run_id": run_id,
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": i, "name": "read", "input": {"q": "x" * 2500}}
                    for i in ids
                ],
            }
        )
        blocks = []
        for i in ids:
            block: dict[str, Any] = {"type": "tool_result", "tool_use_id": i}
            block["content"] = draw(results)
            if draw(st.booleans()) and draw(st.booleans()):
                block["is_error"] = True
            blocks.append(block)
        rows.append({"run_id": run_id, "role": "tool_result", "content": blocks})
    rows.append(
        {"run_id": run_id, "role": "assistant",
         "content": [{"type": "text", "text": draw(st.text(max_size=30))}]}
    )  # fmt: skip
    return rows


# at least 6 runs, so the window has moved and the oldest runs are slimmed in every example
conversations = st.lists(run(), min_size=6, max_size=12).map(
    lambda runs: [row for r in runs for row in r]
)


def messages(rows: list[dict[str, Any]], contents: list[list[dict[str, Any]]]) -> list[Any]:
    return [
        {"role": "assistant" if r["role"] == "assistant" else "user", "content": c}
        for r, c in zip(rows, contents, strict=True)
    ]


@settings(max_examples=150, deadline=None)
@given(results)
def test_the_digest_is_a_pure_function_of_the_stored_text(text: str) -> None:
    # a tool_result's content is a JSON *string* inside jsonb, kept byte for byte, so the
    # stored text is the whole input: same text, same digest, in any process
    first = digest(text)
    assert first == digest(str(text))
    assert DIGEST_NOTE in first


@settings(max_examples=60, deadline=None)
@given(conversations)
def test_slimming_is_deterministic_and_never_touches_the_rows(rows: list[dict[str, Any]]) -> None:
    before = copy.deepcopy(rows)
    slimmed = slim_for_replay(rows)
    assert slimmed == slim_for_replay(copy.deepcopy(rows))
    assert rows == before  # never at storage time
    # the example exercised slimming: the first run's turn context lost its ambient section
    assert "<ambient_context>" not in slimmed[0][1]["text"]
    assert "<ambient_context>" in rows[0]["content"][1]["text"]


@settings(max_examples=60, deadline=None)
@given(conversations)
def test_a_row_is_rewritten_at_most_once_as_the_conversation_grows(
    rows: list[dict[str, Any]],
) -> None:
    """Monotonic: replaying after each new run, a row's content is verbatim, then (once its run
    ages out) one slimmed form that never changes again — so the cached prefix breaks once."""
    run_ends = [i + 1 for i, r in enumerate(rows) if i + 1 == len(rows) or (
        rows[i + 1]["role"] == "user" and rows[i + 1]["run_id"] != r["run_id"])]  # fmt: skip
    history: dict[int, list[list[dict[str, Any]]]] = {}
    for end in run_ends:
        for index, content in enumerate(slim_for_replay(rows[:end])):
            history.setdefault(index, []).append(content)
    for index, forms in history.items():
        assert forms[0] == rows[index]["content"]  # a row enters the replay verbatim
        changes = sum(1 for a, b in itertools.pairwise(forms) if a != b)
        assert changes <= 1
        if changes:
            first_slim = next(i for i, f in enumerate(forms) if f != forms[0])
            assert all(f == forms[first_slim] for f in forms[first_slim:])


@settings(max_examples=60, deadline=None)
@given(conversations)
def test_every_tool_use_keeps_its_result_and_errors_stay_verbatim(
    rows: list[dict[str, Any]],
) -> None:
    slimmed = slim_for_replay(rows)
    assert validate_replay(messages(rows, slimmed)).ok
    for row, content in zip(rows, slimmed, strict=True):
        assert [b.get("id") for b in content] == [b.get("id") for b in row["content"]]
        assert [b.get("tool_use_id") for b in content] == [
            b.get("tool_use_id") for b in row["content"]
        ]
        for old, new in zip(row["content"], content, strict=True):
            if old.get("type") == "tool_use" or old.get("is_error"):
                assert new == old
            if old.get("type") == "tool_result" and len(str(old["content"])) <= 2_000:
                assert new == old
