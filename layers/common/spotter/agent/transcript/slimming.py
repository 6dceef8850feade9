"""Replay slimming: old runs are replayed smaller; stored rows never change.

The verbatim window holds at least the current run and the one before; with R runs it opens at
run floor((R - 2) / 4) * 4, so it moves in strides of 4 runs and a slimmed block is rewritten
once, when its run ages out — the cached prompt prefix survives every other message. Outside the
window: `<ambient_context>` leaves old turn contexts, and tool_result content over 2,000 chars
becomes a digest (a pure function of the stored content). Never slimmed: error results,
disambiguation picks, small results, tool_use inputs, text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from spotter.agent.transcript.turn_context import is_turn_context

WINDOW_STRIDE_RUNS = 4
MAX_VERBATIM_RESULT_CHARS = 2_000
DIGEST_ARRAY_ITEMS = 10
DIGEST_NOTE = "[earlier result shortened — call the tool again if you need the full data]"
_NAMEISH = frozenset({"name", "title", "label", "fullName", "full_name", "displayName"})
_AMBIENT = re.compile(r"\n?<ambient_context>.*?</ambient_context>", re.DOTALL)
_PICK_KEYS = frozenset({"pickedId", "pickedLabel", "kind"})

Row = Mapping[str, Any]


def window_start_run(run_count: int) -> int:
    """Index (0-based) of the first run replayed verbatim when there are `run_count` runs."""
    return max(0, (run_count - 2) // WINDOW_STRIDE_RUNS * WINDOW_STRIDE_RUNS)


def _reduce_item(item: Any) -> Any:
    if not isinstance(item, dict):
        return item
    return {
        k: v
        for k, v in item.items()
        if k == "id" or k.endswith("Id") or k.endswith("_id") or k in _NAMEISH
    }


def digest(text: str) -> str:
    """A shortened tool result: top-level scalars, arrays cut to 10 id/name-ish items."""
    try:
        data = json.loads(text)
    except ValueError:
        return f"{text[:MAX_VERBATIM_RESULT_CHARS]}\n{DIGEST_NOTE}"
    if isinstance(data, list):
        data = {"items": data}
    if not isinstance(data, dict):
        return f"{text[:MAX_VERBATIM_RESULT_CHARS]}\n{DIGEST_NOTE}"
    out: dict[str, Any] = {}
    omitted: list[str] = []
    for key, value in data.items():
        if isinstance(value, list):
            out[key] = [_reduce_item(item) for item in value[:DIGEST_ARRAY_ITEMS]]
            if len(value) > DIGEST_ARRAY_ITEMS:
                out[f"_{key}Shown"] = f"{DIGEST_ARRAY_ITEMS} of {len(value)}"
        elif isinstance(value, dict):
            omitted.append(key)
        else:
            out[key] = value
    if omitted:
        out["_omittedKeys"] = omitted
    out["_note"] = DIGEST_NOTE
    return json.dumps(out, ensure_ascii=False, separators=(",", ":"))


def _result_text(block: Mapping[str, Any]) -> str | None:
    content = block.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list) and len(content) == 1 and content[0].get("type") == "text":
        return str(content[0].get("text", ""))
    return None


def _is_pick(text: str) -> bool:
    try:
        data = json.loads(text)
    except ValueError:
        return False
    return isinstance(data, dict) and set(data) >= _PICK_KEYS


def _slim_block(block: dict[str, Any]) -> dict[str, Any]:
    if is_turn_context(block):
        return {**block, "text": _AMBIENT.sub("", str(block["text"]))}
    if block.get("type") != "tool_result" or block.get("is_error"):
        return block
    text = _result_text(block)
    if text is None or len(text) <= MAX_VERBATIM_RESULT_CHARS or _is_pick(text):
        return block
    return {**block, "content": digest(text)}


def slim_for_replay(rows: Sequence[Row]) -> list[list[dict[str, Any]]]:
    """Each row's content as it should be replayed (rows oldest first, grouped by `run_id`).

    A run is opened by a `user` row; tool_result and system_note rows never open one.
    """
    run_of_row: list[int] = []
    runs = 0
    seen_run_ids: dict[Any, int] = {}
    for row in rows:
        if row["role"] == "user" and row["run_id"] not in seen_run_ids:
            seen_run_ids[row["run_id"]] = runs
            runs += 1
        run_of_row.append(seen_run_ids.get(row["run_id"], max(runs - 1, 0)))
    start = window_start_run(runs)
    return [
        list(row["content"]) if run >= start else [_slim_block(dict(b)) for b in row["content"]]
        for row, run in zip(rows, run_of_row, strict=True)
    ]
