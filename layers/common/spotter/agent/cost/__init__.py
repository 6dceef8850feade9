"""What a run costs and may cost: the model policy (every call by role), pricing, the run's
usage and its daily record, and the tier's budget (the one budget rule, `over_cap`).

Import-light on purpose: the reads function imports the budget without the model SDK."""

from spotter.agent.cost.budget import UsageSnapshot, usage_snapshot
from spotter.agent.cost.model_policy import ModelCall, Role, context_window, model_policy
from spotter.agent.cost.pricing import base_model_id
from spotter.agent.cost.usage import CallUsage, RunUsage

__all__ = [
    "CallUsage",
    "ModelCall",
    "Role",
    "RunUsage",
    "UsageSnapshot",
    "base_model_id",
    "context_window",
    "model_policy",
    "usage_snapshot",
]
