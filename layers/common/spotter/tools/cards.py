"""The confirmation card a human approves: built by the server from a tool's declaration.

It lives in `tools/` because previews build it; the agent only carries it in its events.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class Confirmation(BaseModel):
    """The server-resolved card a human approves; never ids, never model prose."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True)

    target: str | None = None
    affected_count: int | None = None
    consequences: list[str] = []
    changes: list[dict[str, Any]] | None = None
    outbound: dict[str, Any] | None = None
    arguments: list[dict[str, Any]] = []


def set_change(field: str, old: Mapping[str, str], new: Mapping[str, str]) -> dict[str, Any]:
    """A whole-set replacement on a card: the set before and after, and what leaves and joins.

    `old` and `new` map each member's identity (an id, or a part's full text) to the label a
    person reads, in display order; identities decide what is removed and added, so two
    different things with one name are never taken for the same."""
    return {
        "field": field,
        "old": list(old.values()),
        "new": list(new.values()),
        "removed": [label for key, label in old.items() if key not in new],
        "added": [label for key, label in new.items() if key not in old],
    }
