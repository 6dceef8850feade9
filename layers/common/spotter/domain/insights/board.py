"""The insights a caller sees: their role's kinds, with the org's thresholds."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from spotter.db.scope import OrgScope
from spotter.domain.errors import DomainError
from spotter.domain.insights.compute import Insight, compute_insights
from spotter.domain.insights.kinds import InsightKind, kinds_for_role
from spotter.domain.insights.settings import load_thresholds


async def insights_for(
    scope: OrgScope,
    *,
    role: str,
    features: frozenset[str],
    now: datetime,
    tz: ZoneInfo,
    only: InsightKind | None = None,
) -> list[Insight]:
    """Every kind the role sees, or just `only` (refused `invalid_args` when the role does not
    see it, naming the kinds it does)."""
    kinds = kinds_for_role(role, features)
    if only is not None:
        if only not in kinds:
            raise DomainError(
                "invalid_args", f"insight {only} is not available to you", available=list(kinds)
            )
        kinds = (only,)
    limits = await load_thresholds(scope)
    return await compute_insights(scope, kinds, now=now, tz=tz, limits=limits)
