"""Staff email to members: one member (messages) or a broadcast (announcements), via the outbox."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from spotter.db.scope import OrgScope
from spotter.domain import memberships, outbox
from spotter.domain.errors import DomainError


async def member_recipient(scope: OrgScope, membership_id: UUID) -> outbox.Recipient:
    row = await memberships.member_row(scope, membership_id)
    if not row["email"]:
        raise DomainError("conflict", f"{row['full_name']} has no email address on file.")
    return outbox.Recipient(row["email"], row["full_name"], "member", membership_id)


async def audience(scope: OrgScope, *, plan_id: UUID | None) -> tuple[list[outbox.Recipient], int]:
    """Active members (on `plan_id`'s live subscription, if given) with an email; and how many
    were left out for having none."""
    if plan_id is not None:
        await memberships.get_plan(scope, plan_id)
    cur = await scope.conn.execute(
        "SELECT m.id, u.full_name, u.email FROM org_memberships m JOIN users u ON u.id = m.user_id"
        " WHERE m.organization_id = %(org)s AND m.role = 'member' AND m.status = 'active'"
        " AND (%(plan)s::uuid IS NULL OR EXISTS (SELECT 1 FROM member_subscriptions s"
        "      WHERE s.membership_id = m.id AND s.organization_id = m.organization_id"
        "      AND s.plan_id = %(plan)s AND s.status = 'active'))"
        " ORDER BY lower(u.full_name), m.id",
        {"org": scope.org_id, "plan": plan_id},
    )
    rows = await cur.fetchall()
    reachable = [
        outbox.Recipient(r["email"], r["full_name"], "member", r["id"]) for r in rows if r["email"]
    ]
    return reachable, len(rows) - len(reachable)


async def send_message(
    scope: OrgScope,
    membership_id: UUID,
    *,
    subject: str,
    body: str,
    link: outbox.CallLink | None,
) -> dict[str, Any]:
    recipient = await member_recipient(scope, membership_id)
    queued = await outbox.enqueue(
        scope, recipients=[recipient], subject=subject, body=body, source="messages.send", link=link
    )
    return outbox.call_output(queued, memberId=str(membership_id))


async def announce(
    scope: OrgScope,
    *,
    subject: str,
    body: str,
    plan_id: UUID | None,
    link: outbox.CallLink | None,
) -> dict[str, Any]:
    recipients, without_email = await audience(scope, plan_id=plan_id)
    queued = await outbox.enqueue(
        scope,
        recipients=recipients,
        subject=subject,
        body=body,
        source="announcements.send",
        link=link,
    )
    return outbox.call_output(queued, skippedWithoutEmail=without_email)
