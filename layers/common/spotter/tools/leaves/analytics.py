"""analytics — read-only reports over attendance, members, plans and leads.

Every report takes an optional `range` (local dates, both ends included; default: the 30 days
up to today) and answers with the counts its rates rest on (`domain.analytics`).
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from pydantic import Field

from spotter.domain import insights
from spotter.domain.analytics import attendance, business, members, summary
from spotter.domain.analytics.attendance import Grain
from spotter.tiers import enabled_features
from spotter.tools.args import Args
from spotter.tools.context import ToolContext
from spotter.tools.range_args import DateRange, period_of
from spotter.tools.router import Router
from spotter.tools.spec import MANAGERS

analytics = Router(
    "analytics",
    "Reports for a date range (local, inclusive; default last 30 days), with the counts behind"
    " each rate.",
)


class RangeArgs(Args):
    range: DateRange | None = None


class AttendanceArgs(RangeArgs):
    grain: Grain | None = None
    class_type_id: UUID | None = None


@analytics.read("attendance", "Check-ins, no-shows and members over time.")
async def attendance_report(ctx: ToolContext, args: AttendanceArgs) -> dict[str, Any]:
    return await attendance.attendance(
        ctx.scope,
        period_of(ctx, args.range),
        now=ctx.now,
        grain=args.grain,
        class_type_id=args.class_type_id,
    )


class FillArgs(RangeArgs):
    class_type_id: UUID | None = None


@analytics.read("fill_rate", "Booked spots over capacity by class type.")
async def fill_rate(ctx: ToolContext, args: FillArgs) -> dict[str, Any]:
    return await attendance.class_fill_rate(
        ctx.scope, period_of(ctx, args.range), class_type_id=args.class_type_id
    )


@analytics.read("peak_times", "Busiest and quietest weekday/hour slots.")
async def peak_times(ctx: ToolContext, args: RangeArgs) -> dict[str, Any]:
    return await attendance.peak_times(ctx.scope, period_of(ctx, args.range), now=ctx.now)


@analytics.read("no_shows", "No-show rates by class type; most no-shows.")
async def no_shows(ctx: ToolContext, args: RangeArgs) -> dict[str, Any]:
    return await attendance.no_shows(ctx.scope, period_of(ctx, args.range), now=ctx.now)


class MemberArgs(RangeArgs):
    member_id: UUID


@analytics.read("member", "One member's visits and last visit.")
async def member_report(ctx: ToolContext, args: MemberArgs) -> dict[str, Any]:
    return await members.member_attendance(ctx.scope, period_of(ctx, args.range), args.member_id)


class TopArgs(RangeArgs):
    limit: int = Field(default=10, ge=1, le=50)


@analytics.read("top_members", "Members with the most check-ins.")
async def top_members(ctx: ToolContext, args: TopArgs) -> dict[str, Any]:
    return await members.top_members(ctx.scope, period_of(ctx, args.range), limit=args.limit)


class InactiveArgs(Args):
    days: int = Field(default=14, ge=1, le=365)


@analytics.read("inactive", "Active members with no check-in for N days.")
async def inactive(ctx: ToolContext, args: InactiveArgs) -> dict[str, Any]:
    return await members.inactive_members(ctx.scope, ctx.local_now.date(), ctx.tz, days=args.days)


@analytics.read("retention", "Visitors retained from the previous equal period.")
async def retention(ctx: ToolContext, args: RangeArgs) -> dict[str, Any]:
    return await members.retention(ctx.scope, period_of(ctx, args.range))


# Money and the sales pipeline: owner/admin.
business_reports = analytics.group(roles=MANAGERS)


@business_reports.read("churn", "Members whose membership ended in the range.")
async def churn(ctx: ToolContext, args: RangeArgs) -> dict[str, Any]:
    return await business.churn(ctx.scope, period_of(ctx, args.range))


@business_reports.read("plans", "Members and monthly recurring amount per plan.")
async def plans(ctx: ToolContext, args: RangeArgs) -> dict[str, Any]:
    return await business.plan_metrics(ctx.scope, period_of(ctx, args.range))


@business_reports.read(
    "lead_conversion", "Leads created and converted, by source.", feature_gate="lead_management"
)
async def lead_conversion(ctx: ToolContext, args: RangeArgs) -> dict[str, Any]:
    return await business.lead_conversion(ctx.scope, period_of(ctx, args.range))


@analytics.read("summary", "Headline numbers vs the previous equal period.")
async def summary_report(ctx: ToolContext, args: RangeArgs) -> dict[str, Any]:
    return await summary.summary(ctx.scope, period_of(ctx, args.range), now=ctx.now)


class InsightArgs(Args):
    kind: insights.InsightKind


async def _insights(ctx: ToolContext, only: insights.InsightKind | None) -> list[insights.Insight]:
    caller = ctx.caller
    return await insights.insights_for(
        ctx.scope,
        role=caller.role,
        features=enabled_features(caller.platform_tier, caller.feature_flags),
        now=ctx.now,
        tz=ctx.tz,
        only=only,
    )


@analytics.read("insight", "A dashboard insight's members/leads/classes and its figures.")
async def insight(ctx: ToolContext, args: InsightArgs) -> dict[str, Any]:
    (found,) = await _insights(ctx, args.kind)
    return found.out()


@business_reports.read(
    "insight_outcomes", "Per insight: actions taken from it and what followed (returns)."
)
async def insight_outcomes(ctx: ToolContext, args: RangeArgs) -> dict[str, Any]:
    at_risk = await _insights(ctx, "members_at_risk")
    ids = [s["id"] for s in at_risk[0].subjects]
    return await insights.insight_outcomes(
        ctx.scope, period_of(ctx, args.range), now=ctx.now, at_risk_ids=ids
    )
