"""Held siblings: which calls of a suspended message are held behind the ones that need a
person, when the held ones run and which of them never do.

When a run suspends (`run.suspension`), the suspending call and every later call of the same
assistant turn are stored `pending`. Those that need a person (`tools.asking.needs_user`: a
picker, or a call that confirms) are announced and wait for a decision; the others are held
silently and need no decision of their own. Once nothing of the message awaits a person, the
held calls run in tool order (`approvals.resolution`), each claimed on its own; a held call
sequenced after a declined step does not run (`skipped_after_rejection`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from spotter.tools.errors import ToolError

SKIPPED = ToolError(
    "skipped_after_rejection",
    "Not run: it came after a step the user declined. Ask before doing it anyway.",
)


class HeldRow(Protocol):
    @property
    def status(self) -> str: ...
    @property
    def position(self) -> int: ...
    @property
    def held(self) -> bool: ...


def held_ready(calls: Sequence[HeldRow]) -> bool:
    """Held calls run only once no call of the message still awaits a person."""
    return not any(c.status == "pending" and not c.held for c in calls)


def skipped_after_rejection(call: HeldRow, calls: Sequence[HeldRow]) -> bool:
    declined = [c.position for c in calls if c.status == "rejected_by_user"]
    return bool(declined) and call.position > min(declined)
