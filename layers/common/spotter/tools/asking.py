"""Whether a call needs a person before it may run — the one test, for every caller.

A tool asks for an approval (its confirm policy is `destructive` or `always`) or for a pick (a
picker tool, whose input carries the candidates). Suspension, the held siblings, the dashboard's
loader, the MCP server, the quick route and the registry all ask `needs_user`; which of the two
a stored row waits for is `awaits_approval` / `awaits_pick`.
"""

from __future__ import annotations

from typing import Literal

ConfirmPolicy = Literal["never", "destructive", "always"]
ToolKind = Literal["normal", "user_picker"]


def awaits_pick(kind: ToolKind) -> bool:
    """A picker: the user chooses one of the candidates; it never runs as a handler."""
    return kind == "user_picker"


def awaits_approval(kind: ToolKind, confirm: ConfirmPolicy) -> bool:
    """A call whose card the user approves (or rejects) before it runs."""
    return not awaits_pick(kind) and confirm != "never"


def needs_user(kind: ToolKind, confirm: ConfirmPolicy) -> bool:
    """A call of this kind and policy suspends the run: an approval or a pick."""
    return awaits_pick(kind) or awaits_approval(kind, confirm)
