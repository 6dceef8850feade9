"""A run, phase by phase: prepare, quick lane, compaction gate, seeds, model turn, tool batch,
suspension, truncation, finish; and the streaming entry points that sequence them.

Outsiders (the HTTP routes, tests, benchmarks) use what is exported here.
"""

from spotter.agent.approvals.undo import ClaimedUndo, claim_undo, run_undo
from spotter.agent.run.loop import MAX_TURNS
from spotter.agent.run.prepare import SendMessage
from spotter.agent.run.resolve import Decision, confirm, confirm_batch, pick, resolve_message
from spotter.agent.run.send import send_message
from spotter.agent.state import AgentDeps

__all__ = [
    "MAX_TURNS",
    "AgentDeps",
    "ClaimedUndo",
    "Decision",
    "SendMessage",
    "claim_undo",
    "confirm",
    "confirm_batch",
    "pick",
    "resolve_message",
    "run_undo",
    "send_message",
]
