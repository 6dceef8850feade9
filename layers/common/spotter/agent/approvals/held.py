"""Held siblings: the one place that says which calls need a person, which are held behind them,
when the held ones run and which of them never do.

When a run suspends (`run.suspension`), the suspending call and every later call of the same
assistant turn are stored `pending`. Those that need a person (`needs_user`: a picker, or a call
that confirms) are announced and wait for a decision (`awaits_approval` / `awaits_pick`); the
others are held silently and need no decision of their own. Once nothing of the message awaits
a person, the held calls run in tool order (`approvals.resolution`), each claimed on its own; a
held call sequenced after a declined step does not run (`skipped_after_rejection`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from spotter.tools.spec import ToolSpec

SKIPPED: dict[str, Any] = {
    "code": "skipped_after_rejection",
    "message": "Not run: it came after a step the user declined. Ask before doing it anyway.",
}


def awaits_pick(kind: str) -> bool:
    return kind == "user_picker"


def awaits_approval(kind: str, confirm_policy: str) -> bool:
    return kind == "normal" and confirm_policy != "never"


def needs_user(spec: ToolSpec) -> bool:
    """A call of this tool suspends the run: an approval or a pick."""
    return awaits_pick(spec.kind) or spec.needs_confirmation


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
