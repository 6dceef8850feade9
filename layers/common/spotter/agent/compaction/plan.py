"""Compaction, the pure part: when to compact, what to keep, what the summarizer may see.

Keep the last 6 messages verbatim; summarize everything before them since the newest marker.
The summarizer sees prose and tool names only: results become "n succeeded, m errored", so ids
that lived only in results do not survive — the trigger stays at 24 messages for that reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from spotter.agent.transcript import projection, visible_text

MESSAGES_BEFORE_COMPACTION = 24
KEEP_VERBATIM = 6

Row = Mapping[str, Any]


@dataclass(frozen=True)
class CompactionPlan:
    summarize: Sequence[Row]
    keep: Sequence[Row]

    @property
    def through_message_id(self) -> Any:
        return self.summarize[-1]["id"]

    @property
    def through_ordinal(self) -> int:
        return int(self.summarize[-1]["ordinal"])


def plan_compaction(
    rows: Sequence[Row], *, estimated_tokens: int, threshold: int
) -> CompactionPlan | None:
    """A plan when the projection is long or large enough, else None."""
    live = list(projection(rows))
    past_marker = live[1:] if live and live[0]["role"] == "system_note" else live
    if len(past_marker) < MESSAGES_BEFORE_COMPACTION and estimated_tokens <= threshold:
        return None
    if len(live) <= KEEP_VERBATIM:
        return None
    cut = len(live) - KEEP_VERBATIM
    # Never split a tool call from its result: the kept part must not open with a result.
    while cut > 0 and live[cut]["role"] == "tool_result":
        cut -= 1
    if cut == 0 or all(r["role"] == "system_note" for r in live[:cut]):
        return None
    return CompactionPlan(summarize=live[:cut], keep=live[cut:])


def summarizer_transcript(rows: Sequence[Row]) -> str:
    """Prose and tool names only; a marker's summary is carried forward as earlier context."""
    lines: list[str] = []
    for row in rows:
        content = row["content"]
        if row["role"] == "system_note":
            lines.append(f"[Earlier summary]\n{visible_text(content)}")
        elif row["role"] == "user":
            lines.append(f"User: {visible_text(content)}")
        elif row["role"] == "assistant":
            text = visible_text([b for b in content if b.get("type") == "text"])
            tools = [
                str(b.get("name")) + "." + str((b.get("input") or {}).get("action", ""))
                for b in content
                if b.get("type") == "tool_use"
            ]
            if text:
                lines.append(f"Assistant: {text}")
            if tools:
                lines.append(f"Assistant called: {', '.join(tools)}")
        elif row["role"] == "tool_result":
            results = [b for b in content if b.get("type") == "tool_result"]
            errored = sum(1 for b in results if b.get("is_error"))
            lines.append(f"Tool results: {len(results) - errored} succeeded, {errored} errored")
    return "\n".join(lines)
