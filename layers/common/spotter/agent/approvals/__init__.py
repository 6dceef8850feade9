"""Asking a person and what follows: claims, decisions, held siblings, the fenced executor,
applying a resolution, settling a message, the sweep, undo.

Outsiders use what is exported here; `run` applies resolutions and answers a message the user
typed past, `conversations` shows claims as the sweep will close them.
"""

from spotter.agent.approvals.claims import CLAIM_TTL, interrupted_error
from spotter.agent.approvals.decisions import DecisionKind
from spotter.agent.approvals.held import needs_user
from spotter.agent.approvals.resolution import (
    Decision,
    NothingToResume,
    ResolutionStep,
    ResumeModel,
    apply_decisions,
)
from spotter.agent.approvals.settle import SweepReport, answer_for_new_message, sweep
from spotter.agent.approvals.undo import ClaimedUndo, claim_undo, run_undo

__all__ = [
    "CLAIM_TTL",
    "ClaimedUndo",
    "Decision",
    "DecisionKind",
    "NothingToResume",
    "ResolutionStep",
    "ResumeModel",
    "SweepReport",
    "answer_for_new_message",
    "apply_decisions",
    "claim_undo",
    "interrupted_error",
    "needs_user",
    "run_undo",
    "sweep",
]
