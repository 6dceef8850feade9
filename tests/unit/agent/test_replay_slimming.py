"""Spec "Replay slimming": deterministic, monotonic, in strides of 4 runs, never at storage time."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from spotter.agent.transcript.slimming import (
    DIGEST_NOTE,
    digest,
    slim_for_replay,
    window_start_run,
)

AMBIENT = "\n<ambient_context>\n- member 'Saar Cohen' id=1\n</ambient_context>"


def run_rows(big_result: str) -> list[dict[str, Any]]:
    run = uuid.uuid4()
    ctx = f"<turn_context>\nnow: Tue 09:00{AMBIENT}\n</turn_context>"
    return [
        {
            "run_id": run,
            "role": "user",
            "content": [{"type": "text", "text": "hi"}, {"type": "text", "text": ctx}],
        },
        {
            "run_id": run,
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "t", "name": "read", "input": {"q": "x" * 3000}}
            ],
        },
        {
            "run_id": run,
            "role": "tool_result",
            "content": [{"type": "tool_result", "tool_use_id": "t", "content": big_result}],
        },
    ]


BIG = json.dumps(
    {
        "total": 40,
        "sessions": [
            {"id": f"s{i}", "classTypeId": "c", "title": f"T{i}", "notes": "n" * 80}
            for i in range(40)
        ],
    }
)


@pytest.mark.parametrize(
    ("runs", "start"), [(1, 0), (2, 0), (5, 0), (6, 4), (9, 4), (10, 8), (13, 8)]
)
def test_window_opens_in_strides_of_four_runs(runs: int, start: int) -> None:
    assert window_start_run(runs) == start


def test_nothing_is_slimmed_before_the_sixth_run() -> None:
    rows = [row for _ in range(5) for row in run_rows(BIG)]
    assert slim_for_replay(rows) == [r["content"] for r in rows]


def test_runs_outside_the_window_lose_ambient_context_and_big_results() -> None:
    rows = [row for _ in range(6) for row in run_rows(BIG)]
    slimmed = slim_for_replay(rows)
    first_ctx = slimmed[0][1]["text"]
    assert "<ambient_context>" not in first_ctx and "now: Tue 09:00" in first_ctx
    result = json.loads(slimmed[2][0]["content"])
    assert result["total"] == 40
    assert result["_sessionsShown"] == "10 of 40"
    assert result["sessions"][0] == {"id": "s0", "classTypeId": "c", "title": "T0"}
    assert result["_note"] == DIGEST_NOTE
    # runs 4 and 5 are inside the window: verbatim
    assert slimmed[12:] == [r["content"] for r in rows[12:]]


def test_tool_use_inputs_error_results_and_picks_are_never_slimmed() -> None:
    rows = [row for _ in range(6) for row in run_rows(BIG)]
    pick = json.dumps(
        {"pickedId": "u1", "pickedLabel": "Saar Cohen", "kind": "member", "pad": "x" * 3000}
    )
    rows[2] = {**rows[2], "content": [{"type": "tool_result", "tool_use_id": "t", "content": pick}]}
    rows[5] = {
        **rows[5],
        "content": [{"type": "tool_result", "tool_use_id": "t", "content": BIG, "is_error": True}],
    }
    slimmed = slim_for_replay(rows)
    assert slimmed[1] == rows[1]["content"]
    assert slimmed[2] == rows[2]["content"]
    assert slimmed[5] == rows[5]["content"]


def test_slimming_is_a_pure_function_of_stored_content() -> None:
    rows = [row for _ in range(7) for row in run_rows(BIG)]
    before = json.dumps(rows, default=str)
    assert slim_for_replay(rows) == slim_for_replay(rows)
    assert json.dumps(rows, default=str) == before


def test_a_slimmed_block_stays_the_same_as_more_runs_arrive() -> None:
    rows = [row for _ in range(9) for row in run_rows(BIG)]
    at_six = slim_for_replay(rows[: 6 * 3])
    at_nine = slim_for_replay(rows)
    assert at_nine[: 4 * 3] == at_six[: 4 * 3]


def test_truncated_results_that_no_longer_parse_are_head_truncated_behind_the_note() -> None:
    text = '{"sessions": [' + '{"id": "s"},' * 5000
    out = digest(text)
    assert out.startswith(text[:2000]) and out.endswith(DIGEST_NOTE)
