"""Asking a person and what follows: `decisions` (validation), `held` (held siblings), `fenced`
(the one fenced executor), `claimed` (a claimed call run from its stored input, for every
channel, its mail delivered by `outbound`), `resolution` (applying decisions), `settle` (one
merged tool_result turn, the tail answered for a new message, the sweep), `undo`. The rows they
claim, finish and close are `agent.executions`'.

This surface is the import-light part that the reads and sweep functions use (the sweep
itself, the tail answered before a new message): importing it loads no tool catalog and no model
SDK. The streaming parts — `resolution`, `undo` — are reached through `agent.run`, which exports
the entry points.
"""

from spotter.agent.approvals.decisions import DecisionKind
from spotter.agent.approvals.fingerprint import call_fingerprint
from spotter.agent.approvals.settle import SweepReport, answer_for_new_message, sweep

__all__ = [
    "DecisionKind",
    "SweepReport",
    "answer_for_new_message",
    "call_fingerprint",
    "sweep",
]
