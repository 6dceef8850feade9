"""Business analytics: membership churn and plan metrics (subscriptions), lead conversion (CRM).

A subscription is live at an instant when it started before it and was not cancelled by then
(paused ones are live: a pause is not churn). A plan change cancels one row and starts another,
so churn is counted by member, not by row: a member live at the start and not at the end.
"""

from __future__ import annotations

from typing import Any

from spotter.db.scope import OrgScope
from spotter.domain.analytics.period import Period, rate

_LIVE_AT = "(x.started_at < {t} AND (x.cancelled_at IS NULL OR x.cancelled_at >= {t}))"
# Price per month, so plans billed weekly, monthly and yearly add up.
_MONTHLY_CENTS = (
    "CASE p.interval WHEN 'week' THEN p.price_cents * 52.0 / 12"
    " WHEN 'year' THEN p.price_cents / 12.0 ELSE p.price_cents END"
)


async def churn(scope: OrgScope, period: Period) -> dict[str, Any]:
    cur = await scope.conn.execute(
        "SELECT count(DISTINCT x.membership_id) FILTER (WHERE " + _LIVE_AT.format(t="%(start)s")
        + ") AS at_start,"
        " count(DISTINCT x.membership_id) FILTER (WHERE " + _LIVE_AT.format(t="%(end)s")
        + ") AS at_end,"
        " count(*) FILTER (WHERE x.cancelled_at >= %(start)s AND x.cancelled_at < %(end)s)"
        " AS cancelled_rows"
        " FROM member_subscriptions x WHERE x.organization_id = %(org)s",
        {**period.params(), "org": scope.org_id},
    )  # fmt: skip
    counts = await cur.fetchone()
    cur = await scope.conn.execute(
        "WITH start_set AS (SELECT DISTINCT x.membership_id FROM member_subscriptions x"
        "   WHERE x.organization_id = %(org)s AND " + _LIVE_AT.format(t="%(start)s") + "),"
        " end_set AS (SELECT DISTINCT x.membership_id FROM member_subscriptions x"
        "   WHERE x.organization_id = %(org)s AND " + _LIVE_AT.format(t="%(end)s") + ")"
        " SELECT (SELECT count(*) FROM start_set WHERE membership_id NOT IN"
        "         (SELECT membership_id FROM end_set)) AS churned,"
        "        (SELECT count(*) FROM end_set WHERE membership_id NOT IN"
        "         (SELECT membership_id FROM start_set)) AS joined",
        {**period.params(), "org": scope.org_id},
    )  # fmt: skip
    moves = await cur.fetchone()
    assert counts is not None
    assert moves is not None
    at_start, churned = int(counts["at_start"]), int(moves["churned"])
    return {
        "period": period.out(),
        "membersAtStart": at_start,
        "membersAtEnd": int(counts["at_end"]),
        "churned": churned,
        "joined": int(moves["joined"]),
        "churnRate": rate(churned, at_start),
        "cancelledSubscriptions": int(counts["cancelled_rows"]),
        "basis": "Members with a live subscription (active or paused) at the start and none at"
        " the end, over members live at the start; plan changes are not churn.",
    }


async def plan_metrics(scope: OrgScope, period: Period) -> dict[str, Any]:
    """Per plan: live and paused members at the period's end, starts and cancellations in it,
    and the monthly recurring amount of the paying (live, unpaused) subscriptions."""
    cur = await scope.conn.execute(
        "SELECT p.name, p.interval, p.price_cents, p.status,"
        " count(x.id) FILTER (WHERE " + _LIVE_AT.format(t="%(end)s") + ") AS live,"
        " count(x.id) FILTER (WHERE " + _LIVE_AT.format(t="%(end)s")
        + "   AND x.status = 'paused' AND x.paused_at < %(end)s) AS paused,"
        " count(x.id) FILTER (WHERE x.started_at >= %(start)s AND x.started_at < %(end)s"
        "   AND x.replaces_id IS NULL) AS started,"
        " count(x.id) FILTER (WHERE x.started_at >= %(start)s AND x.started_at < %(end)s"
        "   AND x.replaces_id IS NOT NULL) AS switched_in,"
        " count(x.id) FILTER (WHERE x.cancelled_at >= %(start)s AND x.cancelled_at < %(end)s)"
        "   AS cancelled,"
        " round(coalesce(sum(" + _MONTHLY_CENTS + ") FILTER (WHERE "
        + _LIVE_AT.format(t="%(end)s")
        + "   AND NOT (x.status = 'paused' AND x.paused_at < %(end)s)), 0)) AS monthly_cents"
        " FROM membership_plans p LEFT JOIN member_subscriptions x"
        "   ON x.plan_id = p.id AND x.organization_id = %(org)s"
        " WHERE p.organization_id = %(org)s"
        " GROUP BY p.id, p.name, p.interval, p.price_cents, p.status"
        " HAVING p.status = 'active' OR count(x.id) > 0"
        " ORDER BY lower(p.name)",
        {**period.params(), "org": scope.org_id},
    )  # fmt: skip
    plans = [
        {
            "plan": r["name"],
            "interval": r["interval"],
            "priceCents": int(r["price_cents"]),
            "liveMembers": int(r["live"]),
            "paused": int(r["paused"]),
            "started": int(r["started"]),
            "switchedIn": int(r["switched_in"]),
            "cancelled": int(r["cancelled"]),
            "monthlyRecurringCents": int(r["monthly_cents"]),
        }
        for r in await cur.fetchall()
    ]
    live = sum(p["liveMembers"] for p in plans)
    paying = live - sum(p["paused"] for p in plans)
    monthly = sum(p["monthlyRecurringCents"] for p in plans)
    return {
        "period": period.out(),
        "totals": {
            "liveMembers": live,
            "payingMembers": paying,
            "monthlyRecurringCents": monthly,
            "averageMonthlyCentsPerPayingMember": round(monthly / paying) if paying else None,
        },
        "plans": plans,
        "basis": "Subscriptions live at the period's end; monthly amounts normalize weekly"
        " (x52/12) and yearly (/12) prices, paused subscriptions excluded. Amounts are in the"
        " plans' currency, in cents.",
    }


async def lead_conversion(scope: OrgScope, period: Period) -> dict[str, Any]:
    """Leads created in the period and how many became members (so far), by source; and the
    conversions that happened in the period whenever the lead came in."""
    params = {**period.params(), "org": scope.org_id}
    cur = await scope.conn.execute(
        "SELECT coalesce(l.source, 'unknown') AS source, count(*) AS created,"
        " count(*) FILTER (WHERE l.converted_at IS NOT NULL) AS converted,"
        " count(*) FILTER (WHERE l.status = 'lost') AS lost,"
        " count(*) FILTER (WHERE l.status IN ('open', 'won')) AS still_open,"
        " avg(extract(epoch FROM l.converted_at - l.created_at) / 86400)"
        "   FILTER (WHERE l.converted_at IS NOT NULL) AS days_to_convert"
        " FROM leads l WHERE l.organization_id = %(org)s"
        " AND l.created_at >= %(start)s AND l.created_at < %(end)s"
        " GROUP BY 1 ORDER BY count(*) DESC, 1",
        params,
    )
    rows = await cur.fetchall()
    cur = await scope.conn.execute(
        "SELECT count(*) AS n FROM leads l WHERE l.organization_id = %(org)s"
        " AND l.converted_at >= %(start)s AND l.converted_at < %(end)s",
        params,
    )
    in_period = await cur.fetchone()
    by_source = [
        {
            "source": r["source"],
            "created": int(r["created"]),
            "converted": int(r["converted"]),
            "lost": int(r["lost"]),
            "open": int(r["still_open"]),
            "conversionRate": rate(int(r["converted"]), int(r["created"])),
        }
        for r in rows
    ]
    created = sum(s["created"] for s in by_source)
    converted = sum(s["converted"] for s in by_source)
    weighted_days = sum(
        float(r["days_to_convert"]) * int(r["converted"]) for r in rows if r["days_to_convert"]
    )
    return {
        "period": period.out(),
        "cohort": {
            "created": created,
            "converted": converted,
            "conversionRate": rate(converted, created),
            "avgDaysToConvert": round(weighted_days / converted, 1) if converted else None,
        },
        "bySource": by_source,
        "conversionsInPeriod": int(in_period["n"]) if in_period else 0,
        "basis": "Leads created in the period, converted to members by now; conversionsInPeriod"
        " counts conversions dated in the period whatever the lead's age.",
    }
