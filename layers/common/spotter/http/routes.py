"""The agent's JSON reads: conversations, one conversation, usage, the dashboard's insights (see
docs/architecture.md, docs/insights.md)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from uuid import UUID
from zoneinfo import ZoneInfo

from fastapi import APIRouter

from spotter.agent.conversations import get_conversation, list_conversations
from spotter.agent.cost import usage_snapshot
from spotter.db.scope import OrgScope
from spotter.domain.insights import Insight, insights_for, kinds_for_role
from spotter.domain.insights.cache import InsightCache
from spotter.http.deps import AnyCaller, Db, StaffCaller
from spotter.tiers import enabled_features

router = APIRouter(prefix="/agent")


@router.get("/conversations")
async def conversations(caller: AnyCaller, db: Db) -> dict[str, Any]:
    async with db.org_tx(caller.org_id) as conn:
        items = await list_conversations(conn, caller.org_id, caller.user_id)
    return {"conversations": items}


@router.get("/conversations/{conversation_id}")
async def conversation(caller: AnyCaller, db: Db, conversation_id: UUID) -> dict[str, Any]:
    async with db.org_tx(caller.org_id) as conn:
        return await get_conversation(conn, caller.org_id, caller.user_id, conversation_id)


@router.get("/usage")
async def usage(caller: AnyCaller, db: Db) -> dict[str, Any]:
    async with db.org_tx(caller.org_id) as conn:
        snapshot = await usage_snapshot(conn, caller.org_id, caller.platform_tier)
    return {
        "day": snapshot.day.isoformat(),
        "spentUsdMicros": snapshot.spent_usd_micros,
        "capUsdMicros": snapshot.cap_usd_micros,
        "remainingUsdMicros": snapshot.remaining_usd_micros,
        "percentUsed": snapshot.percent_used,
        "unmetered": snapshot.unmetered,
        "resetsAt": snapshot.resets_at.isoformat(),
    }


INSIGHTS = InsightCache()


@router.get("/insights")
async def insights(caller: StaffCaller, db: Db) -> dict[str, Any]:
    """The dashboard's insight cards the caller's role sees, each with the page context that
    opens Spotter on it; computed per org at most every few minutes (docs/insights.md)."""
    features = enabled_features(caller.platform_tier, caller.feature_flags)
    now = datetime.now(UTC)

    async def compute() -> list[Insight]:
        async with db.org_tx(caller.org_id) as conn:
            return await insights_for(
                OrgScope(conn, caller.org_id), role="owner", features=features, now=now,
                tz=ZoneInfo(caller.org_timezone),
            )  # fmt: skip

    entry = await INSIGHTS.get(caller.org_id, now, compute)
    shown = set(kinds_for_role(caller.role, features))
    return {
        "computedAt": entry.computed_at.isoformat(),
        "insights": [found.out() for found in entry.insights if found.kind in shown],
    }
