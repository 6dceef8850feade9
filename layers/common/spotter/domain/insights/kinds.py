"""The insight kinds, stable names the dashboard and the page context use, and who sees them.

A coach sees the class and attendance kinds (as a coach's tools read attendance, not revenue);
owners and admins see every kind. The lead kinds need the org's `lead_management` feature.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

InsightKind = Literal[
    "members_at_risk",
    "new_members_no_second_week",
    "leads_not_contacted",
    "trials_not_converted",
    "low_fill_slots",
    "waitlisted_slots",
    "paused_memberships",
    "credits_running_low",
]
INSIGHT_KINDS: tuple[InsightKind, ...] = get_args(InsightKind)

COACH_KINDS: frozenset[InsightKind] = frozenset(
    {"members_at_risk", "new_members_no_second_week", "low_fill_slots", "waitlisted_slots"}
)
LEAD_KINDS: frozenset[InsightKind] = frozenset({"leads_not_contacted", "trials_not_converted"})
LEAD_FEATURE = "lead_management"


def kinds_for_role(role: str, features: frozenset[str]) -> tuple[InsightKind, ...]:
    """The kinds a staff role sees, in the dashboard's order; none for a member."""
    if role == "coach":
        allowed = COACH_KINDS
    elif role in ("owner", "admin"):
        allowed = frozenset(INSIGHT_KINDS)
    else:
        return ()
    if LEAD_FEATURE not in features:
        allowed = allowed - LEAD_KINDS
    return tuple(kind for kind in INSIGHT_KINDS if kind in allowed)


def insight_kind_of(selection: dict[str, Any] | None) -> InsightKind | None:
    """The insight a page context names (`selection.insight`), when it names a known one."""
    named = (selection or {}).get("insight")
    for kind in INSIGHT_KINDS:
        if named == kind:
            return kind
    return None
