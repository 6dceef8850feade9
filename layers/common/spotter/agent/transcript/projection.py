"""The projection: which stored rows a replay sends once a conversation was compacted.

The newest compaction summary (a `system_note` naming the ordinal it summarizes through), then
every message after that ordinal: the kept tail and everything since. The estimator
(`compaction.context_size`) measures it, replay sends it, compaction plans over it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

Row = Mapping[str, Any]


def latest_note(rows: Sequence[Row]) -> Row | None:
    for row in reversed(rows):
        if row["role"] == "system_note":
            return row
    return None


def projection(rows: Sequence[Row]) -> list[Row]:
    """What replay sends (rows in ordinal order): the newest compaction summary, then every
    message after the one it summarizes through — the kept tail and everything since."""
    note = latest_note(rows)
    if note is None:
        return list(rows)
    through = (note.get("page_context") or {}).get("summarizedThroughOrdinal")
    if through is None:
        return list(rows[list(rows).index(note) :])
    return [note] + [r for r in rows if r["role"] != "system_note" and r["ordinal"] > through]
