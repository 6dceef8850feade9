"""What followed the actions taken from insights: per kind, how many were acted on, and for the
people they reached, who came back.

An action is a tool call that changed something (it has an audit row) in a conversation opened
on an insight (its execution row carries the kind). For members messaged from an insight, a
check-in within `RETURN_DAYS` of the message counts as a return; members currently at risk whom
no message reached are the comparison ("not contacted").
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from spotter.db.scope import OrgScope
from spotter.domain.analytics.period import Period

RETURN_DAYS = 14

_ACTIONS = """
SELECT e.insight_kind, count(*)::int AS actions,
       count(DISTINCT e.conversation_id)::int AS conversations,
       count(DISTINCT e.router || '.' || e.action)::int AS action_types
  FROM ai_tool_executions e
 WHERE e.organization_id = %(org)s AND e.insight_kind IS NOT NULL
   AND e.status = 'succeeded' AND e.audit_log_id IS NOT NULL
   AND e.created_at >= %(start)s AND e.created_at < %(end)s
 GROUP BY e.insight_kind
"""

_MESSAGED = """
WITH messaged AS (
  SELECT e.insight_kind, o.recipient_id AS membership_id, min(o.created_at) AS first_message
    FROM ai_tool_executions e
    JOIN outbox_messages o ON o.execution_id = e.id AND o.organization_id = %(org)s
   WHERE e.organization_id = %(org)s AND e.insight_kind IS NOT NULL
     AND e.status = 'succeeded' AND o.recipient_kind = 'member'
     AND e.created_at >= %(start)s AND e.created_at < %(end)s
   GROUP BY e.insight_kind, o.recipient_id
)
SELECT m.insight_kind, count(*)::int AS messaged,
       count(*) FILTER (WHERE EXISTS (
         SELECT 1 FROM bookings b WHERE b.organization_id = %(org)s
            AND b.membership_id = m.membership_id AND b.status = 'checked_in'
            AND b.checked_in_at > m.first_message
            AND b.checked_in_at <= m.first_message + make_interval(days => %(days)s)
            AND b.checked_in_at <= %(now)s))::int AS returned,
       count(*) FILTER (WHERE m.first_message > %(now)s - make_interval(days => %(days)s))::int
         AS still_open
  FROM messaged m
 GROUP BY m.insight_kind
"""


async def insight_outcomes(
    scope: OrgScope, period: Period, *, now: datetime, at_risk_ids: list[str]
) -> dict[str, Any]:
    """Per insight kind: the actions taken from it in `period`, and for messaged members how
    many checked in within `RETURN_DAYS`; `at_risk_ids` (the members at risk now) gives the
    members-at-risk kind its "not contacted" comparison."""
    params = {"org": scope.org_id, **period.params(), "now": now, "days": RETURN_DAYS}
    cur = await scope.conn.execute(_ACTIONS, params)
    kinds: dict[str, dict[str, Any]] = {}
    for r in await cur.fetchall():
        kinds[r["insight_kind"]] = {
            "actions": r["actions"],
            "conversations": r["conversations"],
            "actionTypes": r["action_types"],
        }
    cur = await scope.conn.execute(_MESSAGED, params)
    contacted: set[str] = set()
    for r in await cur.fetchall():
        entry = kinds.setdefault(
            r["insight_kind"], {"actions": 0, "conversations": 0, "actionTypes": 0}
        )
        entry["membersMessaged"] = r["messaged"]
        entry["returnedWithinDays"] = RETURN_DAYS
        entry["membersReturned"] = r["returned"]
        entry["membersStillInWindow"] = r["still_open"]
    if at_risk_ids:
        cur = await scope.conn.execute(
            "SELECT DISTINCT o.recipient_id::text AS id FROM outbox_messages o"
            " JOIN ai_tool_executions e ON e.id = o.execution_id AND e.organization_id = %(org)s"
            " WHERE o.organization_id = %(org)s AND o.recipient_kind = 'member'"
            " AND e.insight_kind = 'members_at_risk' AND e.status = 'succeeded'"
            " AND o.recipient_id::text = ANY(%(ids)s)",
            {"org": scope.org_id, "ids": at_risk_ids},
        )
        contacted = {r["id"] for r in await cur.fetchall()}
    at_risk = kinds.setdefault(
        "members_at_risk", {"actions": 0, "conversations": 0, "actionTypes": 0}
    )
    at_risk["atRiskNow"] = len(at_risk_ids)
    at_risk["atRiskNotContacted"] = len(set(at_risk_ids) - contacted)
    return {"period": period.out(), "kinds": dict(sorted(kinds.items()))}
