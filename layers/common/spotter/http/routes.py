"""The JSON reads: the agent's (conversations, one conversation, usage, the dashboard's insight
cards: docs/insights.md) and the dashboard's (`/gym/...`: the week's schedule, the members, the
leads board; see docs/architecture.md).

The dashboard reads run the same tool actions Spotter calls (`tools.invoke.invoke_tool`), so a
role or tier gate answers a page exactly as it answers the assistant, and a page shows what a
tool result just changed.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Annotated, Any
from uuid import UUID
from zoneinfo import ZoneInfo

from fastapi import APIRouter, Query

from spotter.agent.conversations import get_conversation, list_conversations
from spotter.agent.cost import usage_snapshot
from spotter.auth.caller import Caller
from spotter.db import Database
from spotter.db.scope import OrgScope
from spotter.domain.insights import Insight, insights_for, kinds_for_role
from spotter.domain.insights.cache import InsightCache
from spotter.errors import ForbiddenError, NotFoundError, SpotterError
from spotter.http.deps import AnyCaller, Db, StaffCaller
from spotter.tiers import enabled_features
from spotter.tools.invoke import invoke_tool
from spotter.tools.summaries import Voice

router = APIRouter(prefix="/agent")
gym = APIRouter(prefix="/gym")


@router.get("/conversations")
async def conversations(caller: AnyCaller, db: Db) -> dict[str, Any]:
    async with db.org_tx(caller.org_id) as conn:
        items = await list_conversations(conn, caller.org_id, caller.user_id)
    return {"conversations": items}


@router.get("/conversations/{conversation_id}")
async def conversation(caller: AnyCaller, db: Db, conversation_id: UUID) -> dict[str, Any]:
    async with db.org_tx(caller.org_id) as conn:
        return await get_conversation(
            conn,
            caller.org_id,
            caller.user_id,
            conversation_id,
            voice=Voice.of(caller.locale, caller.org_timezone, caller.role),
        )


@router.get("/usage")
async def usage(caller: StaffCaller, db: Db) -> dict[str, Any]:
    """Today's AI spend against the tier's cap: staff only (a member sees no spend)."""
    async with db.org_tx(caller.org_id) as conn:
        snapshot = await usage_snapshot(conn, caller.org_id, caller.platform_tier)
    return {
        "day": snapshot.day.isoformat(),
        "spentUsdMicros": snapshot.spent_usd_micros,
        # of which charged at the bound of calls whose run died before their usage arrived
        "estimatedUsdMicros": snapshot.estimated_usd_micros,
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


async def _tool_read(db: Database, caller: Caller, router: str, action: str, **args: Any) -> Any:
    """One read tool's output; its refusal as the HTTP error it stands for."""
    outcome = await invoke_tool(db, caller, router, {"action": action, "args": args})
    if outcome.ok:
        return outcome.output
    code = outcome.error.code if outcome.error else "internal"
    if code == "not_found":
        raise NotFoundError()
    if code == "feature_unavailable":
        raise ForbiddenError("feature_unavailable", "Not included in the organization's plan.")
    if code in ("forbidden", "unknown_tool"):
        raise ForbiddenError("staff_only", "Not available to this role.")
    if code == "invalid_args":
        raise SpotterError("invalid_request", "The request is not valid.", status=400)
    raise SpotterError("internal", "The read failed.", status=500)


@gym.get("/schedule")
async def schedule(
    caller: StaffCaller, db: Db, week_start: Annotated[date | None, Query(alias="weekStart")] = None
) -> dict[str, Any]:
    """The week's sessions (Monday to Sunday, local days; `weekStart`: any day of the week,
    default this week): class, local date and times, status, coaches, booked / capacity."""
    local_today = datetime.now(ZoneInfo(caller.org_timezone)).date()
    day = week_start or local_today
    monday = day - timedelta(days=day.weekday())
    days = [monday + timedelta(days=i) for i in range(7)]
    found = await _tool_read(
        db,
        caller,
        "read",
        "schedule",
        days={"first": days[0].isoformat(), "last": days[-1].isoformat()},
    )
    return {
        "weekStart": monday.isoformat(),
        "today": local_today.isoformat(),
        "timezone": caller.org_timezone,
        "days": [d.isoformat() for d in days],
        "sessions": found["sessions"],
    }


@gym.get("/members")
async def members(caller: StaffCaller, db: Db) -> dict[str, Any]:
    """The gym's members: name, status, plan (`memberships.list`)."""
    found = await _tool_read(db, caller, "memberships", "list")
    return {"members": found["members"]}


@gym.get("/leads")
async def leads(caller: StaffCaller, db: Db) -> dict[str, Any]:
    """The leads board: pipelines with their stages, and the open leads (`leads.list_pipelines`,
    `leads.list`); an org whose tier has no lead management gets 403 `feature_unavailable`."""
    pipelines = await _tool_read(db, caller, "leads", "list_pipelines")
    board = await _tool_read(db, caller, "leads", "list", limit=100)
    return {"pipelines": pipelines["pipelines"], "leads": board["leads"], "total": board["total"]}
