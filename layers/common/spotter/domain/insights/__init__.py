"""Insights: the dashboard's proactive cards, computed in SQL from the gym's own data.

Each insight has a stable kind, a count, the members / leads / classes it concerns and the
figures it rests on (`compute`); which kinds a role sees (`kinds`); the per-org thresholds and
their defaults (`settings`); what followed the actions taken from an insight (`outcomes`).
"""

from spotter.domain.insights.board import insights_for
from spotter.domain.insights.compute import Insight, compute_insights
from spotter.domain.insights.kinds import (
    INSIGHT_KINDS,
    InsightKind,
    insight_kind_of,
    kinds_for_role,
)
from spotter.domain.insights.outcomes import insight_outcomes
from spotter.domain.insights.settings import Thresholds, load_thresholds

__all__ = [
    "INSIGHT_KINDS",
    "Insight",
    "InsightKind",
    "Thresholds",
    "compute_insights",
    "insight_kind_of",
    "insight_outcomes",
    "insights_for",
    "kinds_for_role",
    "load_thresholds",
]
