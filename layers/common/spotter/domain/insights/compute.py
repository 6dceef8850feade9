"""Each insight kind as one SQL statement over the gym's own rows, as of one instant.

Deterministic: the same rows, `now` and thresholds give the same insights, subjects ordered by
what matters most first and then by name and id. Every figure a card shows is computed here, and
an insight with a count of zero is still returned (the dashboard shows it as all clear).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from spotter.db.scope import OrgScope
from spotter.domain.insights.kinds import InsightKind
from spotter.domain.insights.settings import Thresholds

DASHBOARD_PATH = "/dashboard"


@dataclass(frozen=True)
class Insight:
    kind: InsightKind
    subjects: list[dict[str, Any]]
    figures: dict[str, Any] = field(default_factory=dict)

    @property
    def count(self) -> int:
        return len(self.subjects)

    def page_context(self) -> dict[str, Any]:
        """What the dashboard sends with a message to open Spotter on this insight."""
        return {"pathname": DASHBOARD_PATH, "selection": {"insight": self.kind}}

    def out(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "count": self.count,
            "subjects": self.subjects,
            "figures": self.figures,
            "pageContext": self.page_context(),
        }


@dataclass(frozen=True)
class _Ask:
    scope: OrgScope
    now: datetime
    tz: ZoneInfo
    limits: Thresholds

    def local_midnight(self, days_back: int = 0) -> datetime:
        day = self.now.astimezone(self.tz).date() - timedelta(days=days_back)
        return datetime.combine(day, time(0), tzinfo=self.tz).astimezone(UTC)

    async def rows(self, query: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        cur = await self.scope.conn.execute(query, {"org": self.scope.org_id, **params})
        return [dict(r) for r in await cur.fetchall()]


def _iso(at: datetime | None) -> str | None:
    return None if at is None else at.isoformat()


_MEMBER_NAME = """
  JOIN org_memberships m ON m.id = {alias}.membership_id AND m.organization_id = %(org)s
   AND m.role = 'member' AND m.status = 'active'
  JOIN users u ON u.id = m.user_id
"""

_AT_RISK = (
    """
WITH live AS (
  SELECT s.membership_id, s.started_at, p.credits_per_interval IS NULL AS unlimited, p.name AS plan
    FROM member_subscriptions s
    JOIN membership_plans p ON p.id = s.plan_id AND p.organization_id = s.organization_id
   WHERE s.organization_id = %(org)s AND s.status = 'active'
), visits AS (
  SELECT b.membership_id, max(b.checked_in_at) AS last_visit, min(b.checked_in_at) AS first_visit,
         count(*) FILTER (WHERE b.checked_in_at >= %(now)s - interval '28 days') AS recent,
         count(*) FILTER (WHERE b.checked_in_at < %(now)s - interval '28 days'
                            AND b.checked_in_at >= %(now)s - interval '56 days') AS before
    FROM bookings b
   WHERE b.organization_id = %(org)s AND b.status = 'checked_in' AND b.checked_in_at <= %(now)s
   GROUP BY b.membership_id
), scored AS (
  SELECT l.membership_id, u.full_name, l.plan, l.unlimited, v.last_visit, v.recent, v.before,
         floor(extract(epoch FROM %(now)s - v.last_visit) / 86400)::int AS days_quiet,
         CASE WHEN l.unlimited THEN %(quiet_unlimited)s ELSE %(quiet_class)s END AS quiet_limit,
         %(now)s - least(l.started_at, v.first_visit)
           < make_interval(days => %(new_days)s) AS in_first_days
    FROM live l
    JOIN visits v ON v.membership_id = l.membership_id
"""
    + _MEMBER_NAME.format(alias="l")
    + """
)
SELECT *, days_quiet >= quiet_limit AS gone_quiet,
       (before >= %(drop_min)s AND recent <= before * %(drop_ratio)s) AS dropped
  FROM scored
 WHERE days_quiet >= quiet_limit OR (before >= %(drop_min)s AND recent <= before * %(drop_ratio)s)
"""
)


async def members_at_risk(ask: _Ask) -> Insight:
    t = ask.limits
    rows = await ask.rows(
        _AT_RISK,
        {
            "now": ask.now, "quiet_unlimited": t.quiet_days_unlimited,
            "quiet_class": t.quiet_days_class_plan, "new_days": t.new_member_days,
            "drop_min": t.drop_min_visits, "drop_ratio": t.drop_ratio,
        },
    )  # fmt: skip
    subjects = []
    for r in rows:
        quiet = r["days_quiet"] / r["quiet_limit"]
        drop = 1 - r["recent"] / r["before"] if r["before"] else 0.0
        weight = 2 if r["in_first_days"] else 1
        subjects.append(
            {
                "type": "member",
                "id": str(r["membership_id"]),
                "name": r["full_name"],
                "plan": r["plan"],
                "lastVisit": _iso(r["last_visit"]),
                "daysSinceLastVisit": r["days_quiet"],
                "quietLimitDays": r["quiet_limit"],
                "checkInsLast28Days": r["recent"],
                "checkInsPrevious28Days": r["before"],
                "reasons": [
                    reason
                    for reason, on in (("gone_quiet", r["gone_quiet"]), ("dropped", r["dropped"]))
                    if on
                ],
                "inFirstDays": r["in_first_days"],
                "riskScore": round(max(quiet, drop) * weight, 2),
            }
        )
    subjects.sort(key=lambda s: (-s["riskScore"], s["name"], s["id"]))
    return Insight(
        "members_at_risk",
        subjects,
        {
            "quietDaysUnlimited": t.quiet_days_unlimited,
            "quietDaysClassPlan": t.quiet_days_class_plan,
            "dropRatio": t.drop_ratio,
            "dropMinVisits": t.drop_min_visits,
            "newMemberDays": t.new_member_days,
        },
    )


_NO_SECOND_WEEK = (
    """
WITH firsts AS (
  SELECT b.membership_id, min(s.starts_at) AS first_visit
    FROM bookings b
    JOIN class_sessions s ON s.id = b.session_id AND s.organization_id = b.organization_id
   WHERE b.organization_id = %(org)s AND b.status = 'checked_in'
   GROUP BY b.membership_id
)
SELECT f.membership_id, u.full_name, f.first_visit,
       floor(extract(epoch FROM %(now)s - f.first_visit) / 86400)::int AS days_since_first
  FROM firsts f
"""
    + _MEMBER_NAME.format(alias="f")
    + """
 WHERE f.first_visit <= %(now)s - interval '7 days'
   AND f.first_visit > %(now)s - make_interval(days => %(lookback)s)
   AND NOT EXISTS (
     SELECT 1 FROM bookings b
       JOIN class_sessions s ON s.id = b.session_id AND s.organization_id = b.organization_id
      WHERE b.organization_id = %(org)s AND b.membership_id = f.membership_id
        AND b.status <> 'cancelled' AND s.deleted_at IS NULL
        AND s.starts_at >= f.first_visit + interval '7 days'
        AND s.starts_at < f.first_visit + interval '14 days')
 ORDER BY f.first_visit, u.full_name, f.membership_id
"""
)


async def new_members_no_second_week(ask: _Ask) -> Insight:
    rows = await ask.rows(
        _NO_SECOND_WEEK, {"now": ask.now, "lookback": ask.limits.second_week_lookback_days}
    )
    subjects = [
        {
            "type": "member",
            "id": str(r["membership_id"]),
            "name": r["full_name"],
            "firstVisit": _iso(r["first_visit"]),
            "daysSinceFirstVisit": r["days_since_first"],
        }
        for r in rows
    ]
    return Insight(
        "new_members_no_second_week",
        subjects,
        {"lookbackDays": ask.limits.second_week_lookback_days},
    )


_NOT_CONTACTED = """
SELECT l.id, l.first_name, l.last_name, l.source, l.created_at, st.name AS stage,
       floor(extract(epoch FROM %(now)s - l.created_at) / 3600)::int AS hours_waiting
  FROM leads l
  JOIN lead_stages st ON st.id = l.stage_id
 WHERE l.organization_id = %(org)s AND l.status = 'open'
   AND l.created_at <= %(now)s - make_interval(hours => %(hours)s)
   AND NOT EXISTS (SELECT 1 FROM lead_activities a WHERE a.organization_id = %(org)s
                      AND a.lead_id = l.id AND a.kind = 'emailed')
   AND NOT EXISTS (SELECT 1 FROM inbox_threads t
                     JOIN inbox_messages im ON im.thread_id = t.id AND im.organization_id = %(org)s
                    WHERE t.organization_id = %(org)s AND t.lead_id = l.id
                      AND im.direction = 'outbound')
 ORDER BY l.created_at, l.first_name, l.id
"""


def _lead(r: dict[str, Any]) -> dict[str, Any]:
    name = " ".join(p for p in (r["first_name"], r["last_name"]) if p)
    return {"type": "lead", "id": str(r["id"]), "name": name, "stage": r["stage"]}


async def leads_not_contacted(ask: _Ask) -> Insight:
    hours = ask.limits.lead_contact_hours
    rows = await ask.rows(_NOT_CONTACTED, {"now": ask.now, "hours": hours})
    subjects = [
        {**_lead(r), "source": r["source"], "createdAt": _iso(r["created_at"]),
         "hoursWaiting": r["hours_waiting"]}
        for r in rows
    ]  # fmt: skip
    return Insight("leads_not_contacted", subjects, {"contactWithinHours": hours})


_TRIALS = """
SELECT l.id, l.first_name, l.last_name, l.status, l.updated_at, st.name AS stage
  FROM leads l
  JOIN lead_stages st ON st.id = l.stage_id
 WHERE l.organization_id = %(org)s AND l.status IN ('open', 'lost')
   AND lower(st.name) = lower(%(stage)s)
 ORDER BY l.updated_at, l.first_name, l.id
"""


async def trials_not_converted(ask: _Ask) -> Insight:
    stage = ask.limits.trial_done_stage
    rows = await ask.rows(_TRIALS, {"stage": stage})
    subjects = [{**_lead(r), "status": r["status"]} for r in rows]
    return Insight("trials_not_converted", subjects, {"trialDoneStage": stage})


_LOW_FILL = """
WITH sessions AS (
  SELECT s.id, s.class_type_id, s.capacity,
         to_char(s.starts_at AT TIME ZONE %(tz)s, 'HH24:MI') AS local_time
    FROM class_sessions s
   WHERE s.organization_id = %(org)s AND s.deleted_at IS NULL AND s.status = 'published'
     AND s.capacity IS NOT NULL AND s.starts_at >= %(start)s AND s.starts_at < %(end)s
), booked AS (
  SELECT b.session_id, count(*) AS n
    FROM bookings b JOIN sessions x ON x.id = b.session_id
   WHERE b.organization_id = %(org)s AND b.status IN ('booked', 'checked_in', 'no_show')
   GROUP BY b.session_id
)
SELECT ct.id AS class_type_id, ct.name, x.local_time, count(*)::int AS sessions,
       coalesce(sum(k.n), 0)::int AS booked, sum(x.capacity)::int AS capacity
  FROM sessions x
  JOIN class_types ct ON ct.id = x.class_type_id AND ct.organization_id = %(org)s
  LEFT JOIN booked k ON k.session_id = x.id
 GROUP BY ct.id, ct.name, x.local_time
HAVING coalesce(sum(k.n), 0) < sum(x.capacity) * %(ratio)s
 ORDER BY coalesce(sum(k.n), 0)::float / sum(x.capacity), ct.name, x.local_time
"""


async def low_fill_slots(ask: _Ask) -> Insight:
    t = ask.limits
    rows = await ask.rows(
        _LOW_FILL,
        {"tz": ask.tz.key, "start": ask.local_midnight(7 * t.fill_weeks),
         "end": ask.local_midnight(), "ratio": t.low_fill_ratio},
    )  # fmt: skip
    subjects = [
        {
            "type": "slot",
            "id": f"{r['class_type_id']}@{r['local_time']}",
            "name": f"{r['name']} {r['local_time']}",
            "classTypeId": str(r["class_type_id"]),
            "localTime": r["local_time"],
            "sessions": r["sessions"],
            "bookedSpots": r["booked"],
            "capacity": r["capacity"],
            "fillRate": round(r["booked"] / r["capacity"], 3),
        }
        for r in rows
    ]
    return Insight(
        "low_fill_slots", subjects, {"fillBelow": t.low_fill_ratio, "weeks": t.fill_weeks}
    )


_WAITLISTED = """
SELECT s.id, ct.name, s.starts_at, s.capacity,
       count(*) FILTER (WHERE b.status = 'waitlisted')::int AS waiting,
       count(*) FILTER (WHERE b.status IN ('booked', 'checked_in'))::int AS booked
  FROM class_sessions s
  JOIN class_types ct ON ct.id = s.class_type_id AND ct.organization_id = %(org)s
  JOIN bookings b ON b.session_id = s.id AND b.organization_id = %(org)s
 WHERE s.organization_id = %(org)s AND s.deleted_at IS NULL AND s.status = 'published'
   AND s.starts_at >= %(now)s AND s.starts_at < %(now)s + make_interval(days => %(days)s)
 GROUP BY s.id, ct.name, s.starts_at, s.capacity
HAVING count(*) FILTER (WHERE b.status = 'waitlisted') > 0
 ORDER BY s.starts_at, ct.name, s.id
"""


async def waitlisted_slots(ask: _Ask) -> Insight:
    days = ask.limits.waitlist_days_ahead
    rows = await ask.rows(_WAITLISTED, {"now": ask.now, "days": days})
    subjects = [
        {
            "type": "session",
            "id": str(r["id"]),
            "name": f"{r['name']} {r['starts_at'].astimezone(ask.tz):%a %d %b %H:%M}",
            "startsAt": _iso(r["starts_at"]),
            "capacity": r["capacity"],
            "booked": r["booked"],
            "waitlisted": r["waiting"],
        }
        for r in rows
    ]
    return Insight("waitlisted_slots", subjects, {"daysAhead": days})


_PAUSED = (
    """
SELECT s.membership_id, u.full_name, p.name AS plan, s.paused_at, s.resume_on, p.price_cents,
       p.interval
  FROM member_subscriptions s
  JOIN membership_plans p ON p.id = s.plan_id AND p.organization_id = s.organization_id
"""
    + _MEMBER_NAME.format(alias="s")
    + """
 WHERE s.organization_id = %(org)s AND s.status = 'paused'
 ORDER BY s.paused_at, u.full_name, s.membership_id
"""
)


async def paused_memberships(ask: _Ask) -> Insight:
    rows = await ask.rows(_PAUSED, {})
    subjects = [
        {
            "type": "member",
            "id": str(r["membership_id"]),
            "name": r["full_name"],
            "plan": r["plan"],
            "pausedAt": _iso(r["paused_at"]),
            "resumeOn": None if r["resume_on"] is None else r["resume_on"].isoformat(),
            "priceCents": r["price_cents"],
            "interval": r["interval"],
        }
        for r in rows
    ]
    return Insight("paused_memberships", subjects)


_LOW_CREDITS = (
    """
SELECT c.membership_id, u.full_name, c.balance::int AS balance
  FROM (SELECT membership_id, sum(delta) AS balance FROM member_credit_ledger
         WHERE organization_id = %(org)s GROUP BY membership_id) c
"""
    + _MEMBER_NAME.format(alias="c")
    + """
 WHERE c.balance <= %(low)s
 ORDER BY c.balance, u.full_name, c.membership_id
"""
)


async def credits_running_low(ask: _Ask) -> Insight:
    low = ask.limits.low_credits
    rows = await ask.rows(_LOW_CREDITS, {"low": low})
    subjects = [
        {"type": "member", "id": str(r["membership_id"]), "name": r["full_name"],
         "creditsLeft": r["balance"]}
        for r in rows
    ]  # fmt: skip
    return Insight("credits_running_low", subjects, {"creditsAtMost": low})


_BY_KIND: dict[InsightKind, Callable[[_Ask], Awaitable[Insight]]] = {
    "members_at_risk": members_at_risk,
    "new_members_no_second_week": new_members_no_second_week,
    "leads_not_contacted": leads_not_contacted,
    "trials_not_converted": trials_not_converted,
    "low_fill_slots": low_fill_slots,
    "waitlisted_slots": waitlisted_slots,
    "paused_memberships": paused_memberships,
    "credits_running_low": credits_running_low,
}


async def compute_insights(
    scope: OrgScope,
    kinds: Sequence[InsightKind],
    *,
    now: datetime,
    tz: ZoneInfo,
    limits: Thresholds,
) -> list[Insight]:
    """The insights of `kinds`, in that order: one statement each, in the caller's transaction."""
    ask = _Ask(scope, now, tz, limits)
    return [await _BY_KIND[kind](ask) for kind in kinds]
