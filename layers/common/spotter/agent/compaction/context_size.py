"""How big the next request's context is, by the anchored estimator law (spec 002).

Anchor on the last assistant message's provider-reported usage and estimate only what was
appended after it, at chars/4 over wire text (text, thinking, tool name + args, tool_result
text). Aborted and zero-usage turns are skipped; the scan stops at the newest compaction marker
(a `system_note`), because usage reported before the cut describes context the next request will
not carry. With no anchor, the plain heuristic runs over the projection plus the prompt term.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from spotter.agent.transcript import latest_note, projection

CHARS_PER_TOKEN = 4
DEFAULT_THRESHOLD = 150_000
THRESHOLD_FLOOR = 32_000
CONTEXT_HEADROOM = 16_000

Row = Mapping[str, Any]
# The provider's usage fields, and the same counts as an assistant row stores them
# (agent.usage.CallUsage.as_json).
_PROVIDER_KEYS = (
    "input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "output_tokens"
)  # fmt: skip
_STORED_KEYS = (
    "inputTokens", "cacheReadTokens", "cacheWrite5mTokens", "cacheWrite1hTokens", "outputTokens"
)  # fmt: skip


def _block_chars(block: Mapping[str, Any]) -> int:
    kind = block.get("type")
    if kind == "text":
        return len(str(block.get("text", "")))
    if kind == "thinking":
        return len(str(block.get("thinking", "")))
    if kind == "tool_use":
        args = json.dumps(block.get("input", {}), ensure_ascii=False, separators=(",", ":"))
        return len(str(block.get("name", ""))) + len(args)
    if kind == "tool_result":
        content = block.get("content", "")
        if isinstance(content, str):
            return len(content)
        return sum(_block_chars(b) for b in content if isinstance(b, Mapping))
    return 0


def wire_chars(content: Sequence[Mapping[str, Any]] | str) -> int:
    if isinstance(content, str):
        return len(content)
    return sum(_block_chars(block) for block in content)


def reported_total(usage: Mapping[str, Any] | None) -> int:
    """Everything the provider billed for that call: the context it saw plus what it wrote."""
    if not usage:
        return 0
    if usage.get("total_tokens"):
        return int(usage["total_tokens"])
    keys = _STORED_KEYS if "inputTokens" in usage else _PROVIDER_KEYS
    return sum(int(usage.get(k) or 0) for k in keys)


def _usable_anchor(row: Row, note: Row | None) -> bool:
    # Usage reported before the newest compaction described context the next request will not
    # carry (the kept tail replays after the summary, but its usage counted the cut part too).
    return (
        row["role"] == "assistant"
        and (note is None or row["ordinal"] > note["ordinal"])
        and row.get("stop_reason") not in ("aborted", None)
        and reported_total(row.get("usage")) > 0
    )


def estimate_context_tokens(rows: Sequence[Row], *, prompt_chars: int) -> int:
    """Estimated tokens of the next request built from `rows` (ordinal order)."""
    projected = projection(rows)
    note = latest_note(rows)
    for index in range(len(projected) - 1, -1, -1):
        if _usable_anchor(projected[index], note):
            appended = sum(wire_chars(r["content"]) for r in projected[index + 1 :])
            anchor = reported_total(projected[index].get("usage"))
            return anchor + math.ceil(appended / CHARS_PER_TOKEN)
    chars = sum(wire_chars(r["content"]) for r in projected) + prompt_chars
    return math.ceil(chars / CHARS_PER_TOKEN)


def effective_threshold(setting: int | None, context_window: int) -> int:
    """The compaction threshold: the setting clamped up to the floor (never rejected), and never
    closer to the model's context window than the headroom."""
    wanted = max(setting if setting is not None else DEFAULT_THRESHOLD, THRESHOLD_FLOOR)
    return min(wanted, context_window - CONTEXT_HEADROOM)
