"""Platform tiers: each tier's daily AI budget (micro-dollars, -1 unmetered) and features."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spotter.auth.caller import Caller

UNMETERED = -1


@dataclass(frozen=True)
class Tier:
    daily_budget_micros: int
    features: frozenset[str]
    # the assistant's loop model for this tier (agent.cost.model_policy.loop_call); None: the
    # deployment's. No tier sets one today: every tier runs the same model.
    loop_model: str | None = None


PLATFORM_TIERS: dict[str, Tier] = {
    "starter": Tier(1_000_000, frozenset()),
    "growth": Tier(5_000_000, frozenset({"lead_management", "program_templates"})),
    "scale": Tier(
        20_000_000, frozenset({"lead_management", "program_templates", "email_automations"})
    ),
    "enterprise": Tier(
        UNMETERED, frozenset({"lead_management", "program_templates", "email_automations"})
    ),
}
# A tier we do not know gets the smallest plan, never an unmetered one.
FALLBACK_TIER = PLATFORM_TIERS["starter"]


def tier(name: str) -> Tier:
    return PLATFORM_TIERS.get(name, FALLBACK_TIER)


def enabled_features(tier_name: str, flags: Mapping[str, object] | None) -> frozenset[str]:
    """The one rule for what an org may use: its tier's features, plus each feature an org flag
    turns on. A flag is on only when it is JSON `true` (not 1, not "false"), so the runner's
    gate, the prompt's "Enabled features" and `read.org` can never disagree."""
    turned_on = {name for name, on in (flags or {}).items() if on is True}
    return tier(tier_name).features | turned_on


def has_feature(caller: Caller, feature: str | None) -> bool:
    """Whether a caller's org may use a tier feature (None: the tool has no gate)."""
    return feature is None or feature in enabled_features(
        caller.platform_tier, caller.feature_flags
    )
