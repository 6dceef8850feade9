"""The confirmation card a human approves: built by the server from a tool's declaration.

It lives in `tools/` because previews build it; the agent only carries it in its events.
"""

from __future__ import annotations

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
