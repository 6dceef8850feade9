"""Every model call Spotter makes, by role: which model, how many output tokens, thinking or not.

One place decides, so pricing can prove every model here has rates and a switch is one line (or
one setting: SPOTTER_LOOP_MODEL, SPOTTER_FAST_MODEL).

The loop's call is chosen once per run (`loop_call`, the spec's `loopCall`; `run.loop_call`
picks it together with the replayed history). Its model, most specific first: the org's own
override (`organizations.ai_loop_model`), the deployment's setting (SPOTTER_LOOP_MODEL), the
tier's model (`tiers.Tier.loop_model`), then LOOP_MODEL. A run RESUMED after a confirmation or a
pick continues the suspended tool-use turn, which the API requires to keep one model and one
thinking configuration (its signed thinking goes back with the results): it runs on the model
that wrote that turn, with that model's call (Sonnet 4.5: 8,192 output tokens and a fixed
thinking budget, the spec's "8,192 for a run resumed on Sonnet 4.5"); a model we no longer know
how to call continues on the configured one with thinking off (its thinking is then dropped
from the replay). A new message may switch models freely: replay keeps thinking only for the
model that signed it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from spotter.agent.cost.pricing import OFFLINE_DEMO_MODEL, base_model_id
from spotter.config import Settings
from spotter.tiers import tier

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
ADAPTIVE: dict[str, Any] = {"type": "adaptive"}
# How each model the loop may run on is called, by base model id: its output cap (shared with
# thinking) and its thinking. A model not listed is called like LOOP_MODEL. Sonnet 4.5 (the
# loop's model before Sonnet 5.5) knows only a fixed thinking budget, below its cap; it stays
# here to resume the runs it suspended.
LOOP_CALLS: dict[str, tuple[int, dict[str, Any]]] = {
    LOOP_MODEL: (LOOP_MAX_TOKENS, ADAPTIVE),
    "claude-opus-5": (LOOP_MAX_TOKENS, ADAPTIVE),
    "claude-sonnet-4-5": (8_192, {"type": "enabled", "budget_tokens": 4_096}),
}
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


def _loop_call_on(model: str) -> ModelCall:
    max_tokens, thinking = LOOP_CALLS.get(base_model_id(model), LOOP_CALLS[LOOP_MODEL])
    return ModelCall("spotterLoop", model, max_tokens, thinking)


def configured_loop_model(
    settings: Settings, tier_name: str | None = None, org_model: str | None = None
) -> str:
    """The loop's model for a new turn: the org's override, the setting, the tier's, ours (the
    offline demo model, when it answers, answers every call)."""
    if settings.uses_demo_model:
        return OFFLINE_DEMO_MODEL
    tier_model = tier(tier_name).loop_model if tier_name is not None else None
    return org_model or settings.spotter_loop_model or tier_model or LOOP_MODEL


def loop_call(
    settings: Settings,
    tier_name: str | None = None,
    org_model: str | None = None,
    *,
    resumed_on: str | None = None,
) -> ModelCall:
    """The run's loop call, chosen once. `resumed_on`: the model that wrote the tool-use turn a
    resumed run continues (None for a new message)."""
    configured = _loop_call_on(configured_loop_model(settings, tier_name, org_model))
    if (
        resumed_on is None
        or settings.uses_demo_model
        or base_model_id(resumed_on) == base_model_id(configured.model)
    ):
        return configured
    if base_model_id(resumed_on) in LOOP_CALLS:
        return _loop_call_on(resumed_on)  # the turn keeps its model and thinking
    return ModelCall("spotterLoop", configured.model, configured.max_tokens, None)


def model_policy(settings: Settings) -> dict[Role, ModelCall]:
    fast = settings.spotter_fast_model or FAST_MODEL
    if settings.uses_demo_model:
        # the offline demo answers every role, and bills nothing (pricing.OFFLINE_DEMO_MODEL)
        fast = OFFLINE_DEMO_MODEL
    return {
        "spotterLoop": loop_call(settings),
        "spotterQuickRoute": ModelCall("spotterQuickRoute", fast, 1_024),
        "spotterQuickAnswer": ModelCall("spotterQuickAnswer", fast, 1_024),
        "spotterTitle": ModelCall("spotterTitle", fast, 64),
        "spotterCompaction": ModelCall("spotterCompaction", fast, 2_048),
    }
