"""Asking a person and what follows: `claims` (claim before execute, abandoned claims),
`decisions` (validation), `held` (held siblings), `fenced` (the one fenced executor),
`resolution` (applying decisions), `settle` (one merged tool_result turn, the tail answered for a
new message, the sweep), `undo`.

This surface is the import-light part that the reads and sweep functions use (claims as the
sweep will close them, the sweep itself): importing it loads no tool catalog and no model SDK.
The streaming parts — `resolution`, `undo` — are reached through `agent.run`, which exports the
entry points.
"""

from spotter.agent.approvals.claims import CLAIM_TTL, interrupted_error
from spotter.agent.approvals.decisions import DecisionKind
from spotter.agent.approvals.held import needs_user
from spotter.agent.approvals.settle import SweepReport, answer_for_new_message, sweep

__all__ = [
    "CLAIM_TTL",
    "DecisionKind",
    "SweepReport",
    "answer_for_new_message",
    "interrupted_error",
    "needs_user",
    "sweep",
]
