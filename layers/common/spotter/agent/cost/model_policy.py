"""Every model call Spotter makes, by role: which model, how many output tokens, thinking or not.

One place decides, so pricing can prove every model here has rates and a switch is one line (or
one setting: SPOTTER_LOOP_MODEL, SPOTTER_FAST_MODEL).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from spotter.agent.cost.pricing import OFFLINE_DEMO_MODEL, base_model_id
from spotter.config import Settings

Role = Literal[
    "spotterLoop", "spotterQuickRoute", "spotterQuickAnswer", "spotterTitle", "spotterCompaction"
]
ROLES: tuple[Role, ...] = (
    "spotterLoop", "spotterQuickRoute", "spotterQuickAnswer", "spotterTitle", "spotterCompaction"
)  # fmt: skip

LOOP_MODEL = "claude-sonnet-5-5"
FAST_MODEL = "claude-haiku-4-5-20251001"
# The loop's output cap, shared with adaptive thinking (spec: "Output cap").
LOOP_MAX_TOKENS = 16_384
# Input context windows by base model id; compaction stays 16k below it (context_size).
CONTEXT_WINDOWS: dict[str, int] = {
    LOOP_MODEL: 200_000,
    "claude-haiku-4-5": 200_000,
    OFFLINE_DEMO_MODEL: 200_000,
}
DEFAULT_CONTEXT_WINDOW = 200_000


def context_window(model: str) -> int:
    """The model's input window; an unknown model gets the smallest we use (never too large)."""
    return CONTEXT_WINDOWS.get(base_model_id(model), DEFAULT_CONTEXT_WINDOW)


@dataclass(frozen=True)
class ModelCall:
    role: Role
    model: str
    max_tokens: int
    thinking: dict[str, Any] | None = None  # the request's `thinking`, or None to leave it out

    @property
    def thinks(self) -> bool:
        return self.thinking is not None and self.thinking.get("type") != "disabled"


def model_policy(settings: Settings) -> dict[Role, ModelCall]:
    loop = settings.spotter_loop_model or LOOP_MODEL
    fast = settings.spotter_fast_model or FAST_MODEL
    if settings.uses_demo_model:
        # the offline demo answers every role, and bills nothing (pricing.OFFLINE_DEMO_MODEL)
        loop = fast = OFFLINE_DEMO_MODEL
    return {
        "spotterLoop": ModelCall("spotterLoop", loop, LOOP_MAX_TOKENS, {"type": "adaptive"}),
        "spotterQuickRoute": ModelCall("spotterQuickRoute", fast, 1_024),
        "spotterQuickAnswer": ModelCall("spotterQuickAnswer", fast, 1_024),
        "spotterTitle": ModelCall("spotterTitle", fast, 64),
        "spotterCompaction": ModelCall("spotterCompaction", fast, 2_048),
    }
