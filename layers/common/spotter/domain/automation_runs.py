"""Running active email automations: find who a trigger fired for, past its delay, and queue
the rendered email once per triggering event.

Each trigger is one query for its due events: a member who joined, a plan paused or cancelled
(a plan change is not a cancellation), a member whose last check-in is `delay` old, an
invitation still pending `delay` after it was sent. Only events after the automation was
activated count, so activating one never mails a backlog. A run row per (automation,
recipient, event) is claimed with ON CONFLICT DO NOTHING in the transaction that queues the
outbox row, so an event mails once however many sweeps run. The tier gate applies here too.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from spotter.db import Database
from spotter.db.scope import OrgScope
from spotter.domain import automations, outbox
from spotter.domain.errors import DomainError
from spotter.domain.organizations import get_organization
from spotter.observability import log_event
from spotter.tiers import enabled_features

FEATURE = "email_automations"
# what each trigger selects: recipient_id, email, full_name, plan_name, event_key, kind
_MEMBER = (
    "SELECT m.id AS recipient_id, u.email, u.full_name, p.name AS plan_name, 'member' AS kind,"
    " {event_key} AS event_key"
    " FROM org_memberships m JOIN users u ON u.id = m.user_id"
    " LEFT JOIN member_subscriptions live ON live.membership_id = m.id"
    "  AND live.organization_id = m.organization_id AND live.status <> 'cancelled'"
    " LEFT JOIN membership_plans p ON p.id = live.plan_id AND p.organization_id = m.organization_id"
    " {join}"
    " WHERE m.organization_id = %(org)s AND m.role = 'member' AND m.status = 'active'"
    " AND u.email IS NOT NULL AND {event} + {due_after} >= %(since)s"
    " AND {event} + %(delay)s <= %(now)s"
)
_LAST_CHECK_IN = (
    "(SELECT max(b.checked_in_at) FROM bookings b WHERE b.organization_id = m.organization_id"
    " AND b.membership_id = m.id AND b.status = 'checked_in')"
)
_SUBSCRIPTION = (
    "JOIN member_subscriptions s"
    " ON s.membership_id = m.id AND s.organization_id = m.organization_id"
)
DUE: dict[str, str] = {
    "member_joined": _MEMBER.format(
        event_key="'joined'", join="", event="m.created_at", due_after="'0'::interval"
    ),
    "membership_paused": _MEMBER.format(
        event_key="s.id::text || '@' || s.paused_at::text",
        join=_SUBSCRIPTION + " AND s.status = 'paused'",
        event="s.paused_at",
        due_after="'0'::interval",
    ),
    "membership_cancelled": _MEMBER.format(
        event_key="s.id::text",
        join=_SUBSCRIPTION + " AND s.status = 'cancelled'"
        " AND s.cancel_reason IS DISTINCT FROM 'plan change'",
        event="s.cancelled_at",
        due_after="'0'::interval",
    )
    + " AND live.id IS NULL",
    # the event is the last check-in; it counts once the silence reached `delay` after the
    # automation was activated (members already silent then are not mailed a backlog)
    "member_inactive": _MEMBER.format(
        event_key=f"{_LAST_CHECK_IN}::text",
        join="",
        event=_LAST_CHECK_IN,
        due_after="%(delay)s",
    ),
    "invitation_pending": (
        "SELECT i.id AS recipient_id, i.email, coalesce(i.full_name, '') AS full_name,"
        " p.name AS plan_name, 'address' AS kind, 'pending' AS event_key"
        " FROM member_invitations i LEFT JOIN membership_plans p"
        "  ON p.id = i.plan_id AND p.organization_id = i.organization_id"
        " WHERE i.organization_id = %(org)s AND i.status = 'pending'"
        " AND i.created_at >= %(since)s"
        " AND coalesce(i.last_sent_at, i.created_at) + %(delay)s <= %(now)s"
    ),
}


@dataclass(frozen=True)
class RunReport:
    orgs: int
    queued: int


def gated_in(org: dict[str, Any]) -> bool:
    return FEATURE in enabled_features(org["platform_tier"], org["feature_flags"])


async def _active(scope: OrgScope) -> list[dict[str, Any]]:
    cur = await scope.conn.execute(
        "SELECT id, name, trigger, delay_hours, subject_template, body_template, activated_at"
        " FROM email_automations WHERE organization_id = %s AND status = 'active'"
        " AND deleted_at IS NULL ORDER BY created_at, id",
        (scope.org_id,),
    )
    return await cur.fetchall()


async def _claim(
    scope: OrgScope, automation_id: UUID, recipient_id: UUID, event_key: str
) -> UUID | None:
    cur = await scope.conn.execute(
        "INSERT INTO email_automation_runs (organization_id, automation_id, recipient_id,"
        " event_key) VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING RETURNING id",
        (scope.org_id, automation_id, recipient_id, event_key),
    )
    row = await cur.fetchone()
    return row["id"] if row else None


async def run_automation(
    scope: OrgScope, automation: dict[str, Any], *, gym: str, now: datetime
) -> int:
    """Queue the automation's due emails (each event once); how many were queued."""
    cur = await scope.conn.execute(
        DUE[automation["trigger"]],
        {
            "org": scope.org_id,
            "since": automation["activated_at"],
            "delay": timedelta(hours=automation["delay_hours"]),
            "now": now,
        },
    )
    queued = 0
    for due in await cur.fetchall():
        if not outbox.looks_like_email(due["email"]):
            continue
        run_id = await _claim(scope, automation["id"], due["recipient_id"], due["event_key"])
        if run_id is None:
            continue
        values = automations.template_values(due["full_name"], gym, due["plan_name"] or "")
        recipient = outbox.Recipient(
            due["email"], due["full_name"] or None, due["kind"], due["recipient_id"]
        )
        try:
            async with scope.conn.transaction():  # a message that cannot be queued is skipped
                [message] = await outbox.enqueue(
                    scope,
                    recipients=[recipient],
                    subject=automations.render(automation["subject_template"], values),
                    body=automations.render(automation["body_template"], values),
                    source=f"automation:{automation['id']}",
                )
        except DomainError as exc:
            # the run stays claimed without a message: the event is not retried every minute
            log_event("automation.skipped", level="warning", automation_id=str(automation["id"]),
                      code=exc.code)  # fmt: skip
            continue
        await scope.conn.execute(
            "UPDATE email_automation_runs SET outbox_message_id = %s WHERE id = %s",
            (message["id"], run_id),
        )
        queued += 1
    return queued


async def orgs_with_active_automations(db: Database) -> list[UUID]:
    async with db.system_tx() as conn:
        cur = await conn.execute("SELECT spotter_orgs_with_active_automations() AS org_id")
        return [r["org_id"] for r in await cur.fetchall()]


async def run_due(db: Database, now: datetime) -> RunReport:
    """Every org with an active automation (and the feature): queue what is due, one
    transaction per org, so its runs and outbox rows commit together."""
    orgs = await orgs_with_active_automations(db)
    queued = 0
    for org_id in orgs:
        async with db.org_tx(org_id) as conn:
            scope = OrgScope(conn, org_id)
            org = await get_organization(scope)
            if not gated_in(org):
                continue
            for automation in await _active(scope):
                queued += await run_automation(scope, automation, gym=org["name"], now=now)
    return RunReport(orgs=len(orgs), queued=queued)
