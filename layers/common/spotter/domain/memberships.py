"""Members and their plans: subscriptions (pause, resume, cancel, change), credits, invitations.

A member is an org membership with role 'member'. Each has at most one live subscription
(active or paused); a plan change cancels it and starts a new row pointing at the old one.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any
from uuid import UUID

from spotter.db.scope import OrgScope
from spotter.domain import bookings, outbox
from spotter.domain.errors import DomainError, not_found
from spotter.domain.people import like_pattern

_MEMBER = (
    "SELECT m.id AS membership_id, m.user_id, m.status AS member_status, m.created_at,"
    " u.full_name, u.email, s.id AS subscription_id, s.status AS subscription_status,"
    " s.started_at, s.paused_at, s.resume_on, p.id AS plan_id, p.name AS plan_name,"
    " p.price_cents, p.interval, p.credits_per_interval"
    " FROM org_memberships m JOIN users u ON u.id = m.user_id"
    " LEFT JOIN member_subscriptions s ON s.membership_id = m.id"
    "  AND s.organization_id = m.organization_id AND s.status <> 'cancelled'"
    " LEFT JOIN membership_plans p ON p.id = s.plan_id AND p.organization_id = s.organization_id"
    " WHERE m.organization_id = %(org)s AND m.role = 'member' AND m.status <> 'removed'"
)


def plan_out(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": str(row["id"]),
        "name": row["name"],
        "priceCents": row["price_cents"],
        "interval": row["interval"],
        "creditsPerInterval": row["credits_per_interval"],
    }


def member_out(row: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "memberId": str(row["membership_id"]),
        "name": row["full_name"],
        "status": row["member_status"],
        "plan": None,
    }
    if row.get("email"):
        out["email"] = row["email"]
    if row["subscription_id"] is not None:
        out["plan"] = {
            "id": str(row["plan_id"]),
            "name": row["plan_name"],
            "subscription": row["subscription_status"],
            "since": row["started_at"].date().isoformat(),
        }
        if row["resume_on"] is not None:
            out["plan"]["resumeOn"] = row["resume_on"].isoformat()
    return out


async def list_members(
    scope: OrgScope,
    *,
    query: str | None = None,
    plan_id: UUID | None = None,
    subscription: str | None = None,
    limit: int = 50,
) -> list[dict[str, Any]]:
    """Members by name/email substring, plan, or subscription status ('none': no live plan)."""
    cur = await scope.conn.execute(
        _MEMBER + " AND (%(q)s::text IS NULL"
        " OR u.full_name ILIKE %(like)s OR u.email ILIKE %(like)s)"
        " AND (%(plan)s::uuid IS NULL OR s.plan_id = %(plan)s)"
        " AND (%(sub)s::text IS NULL OR coalesce(s.status, 'none') = %(sub)s)"
        " ORDER BY lower(u.full_name), m.id LIMIT %(limit)s",
        {
            "org": scope.org_id,
            "q": query,
            "like": like_pattern(query or ""),
            "plan": plan_id,
            "sub": subscription,
            "limit": limit,
        },
    )
    return [member_out(r) for r in await cur.fetchall()]


async def member_row(scope: OrgScope, membership_id: UUID) -> dict[str, Any]:
    cur = await scope.conn.execute(
        _MEMBER + " AND m.id = %(id)s", {"org": scope.org_id, "id": membership_id}
    )
    row = await cur.fetchone()
    if row is None:
        raise not_found("member")
    return row


async def member_name(scope: OrgScope, membership_id: UUID) -> str:
    return str((await member_row(scope, membership_id))["full_name"])


async def get_member(scope: OrgScope, membership_id: UUID) -> dict[str, Any]:
    """One member: plan and subscription, credits, attendance (all time and last 30 days)."""
    row = await member_row(scope, membership_id)
    out = member_out(row)
    out["credits"] = await bookings.credit_balance(scope, membership_id)
    cur = await scope.conn.execute(
        "SELECT count(*) FILTER (WHERE status = 'checked_in') AS attended,"
        " count(*) FILTER (WHERE status = 'checked_in'"
        "  AND checked_in_at > now() - interval '30 days') AS attended_30d,"
        " count(*) FILTER (WHERE status = 'booked') AS upcoming"
        " FROM bookings WHERE organization_id = %s AND membership_id = %s",
        (scope.org_id, membership_id),
    )
    counts = await cur.fetchone()
    assert counts is not None
    out["attendance"] = {
        "checkedIn": counts["attended"],
        "checkedInLast30Days": counts["attended_30d"],
        "booked": counts["upcoming"],
    }
    out["memberSince"] = row["created_at"].date().isoformat()
    return out


async def list_plans(scope: OrgScope) -> list[dict[str, Any]]:
    """Active plans with their live subscriber counts."""
    cur = await scope.conn.execute(
        "SELECT p.id, p.name, p.price_cents, p.interval, p.credits_per_interval,"
        " count(s.id) FILTER (WHERE s.status = 'active') AS active,"
        " count(s.id) FILTER (WHERE s.status = 'paused') AS paused"
        " FROM membership_plans p LEFT JOIN member_subscriptions s"
        "  ON s.plan_id = p.id AND s.organization_id = p.organization_id"
        " WHERE p.organization_id = %s AND p.status = 'active'"
        " GROUP BY p.id ORDER BY p.price_cents, lower(p.name)",
        (scope.org_id,),
    )
    return [
        {**plan_out(r), "activeMembers": r["active"], "pausedMembers": r["paused"]}
        for r in await cur.fetchall()
    ]


async def get_plan(scope: OrgScope, plan_id: UUID) -> dict[str, Any]:
    cur = await scope.conn.execute(
        "SELECT id, name, price_cents, interval, credits_per_interval FROM membership_plans"
        " WHERE id = %s AND organization_id = %s AND status = 'active'",
        (plan_id, scope.org_id),
    )
    row = await cur.fetchone()
    if row is None:
        raise not_found("plan")
    return row


async def live_subscription(
    scope: OrgScope, membership_id: UUID, *, expect: str | None = None
) -> dict[str, Any]:
    """The member with their live subscription, which must be in state `expect` when given:
    what a change checks first (and its preview, which writes nothing)."""
    row = await member_row(scope, membership_id)
    name = row["full_name"]
    if row["subscription_id"] is None:
        raise DomainError("conflict", f"{name} has no active or paused plan.")
    if expect is not None and row["subscription_status"] != expect:
        raise DomainError(
            "conflict", f"{name}'s plan is {row['subscription_status']}, not {expect}."
        )
    return row


async def pause(
    scope: OrgScope, membership_id: UUID, *, resume_on: date | None, today: date
) -> dict[str, Any]:
    if resume_on is not None and resume_on <= today:
        raise DomainError("invalid_args", "resumeOn must be a future date.")
    row = await live_subscription(scope, membership_id, expect="active")
    await scope.conn.execute(
        "UPDATE member_subscriptions SET status = 'paused', paused_at = now(), resume_on = %s,"
        " updated_at = now() WHERE id = %s AND organization_id = %s",
        (resume_on, row["subscription_id"], scope.org_id),
    )
    return {
        "id": str(membership_id),
        "subscriptionId": str(row["subscription_id"]),
        "status": "paused",
        "resumeOn": resume_on.isoformat() if resume_on else None,
    }


async def resume(scope: OrgScope, membership_id: UUID) -> dict[str, Any]:
    row = await live_subscription(scope, membership_id, expect="paused")
    await scope.conn.execute(
        "UPDATE member_subscriptions SET status = 'active', paused_at = NULL, resume_on = NULL,"
        " updated_at = now() WHERE id = %s AND organization_id = %s",
        (row["subscription_id"], scope.org_id),
    )
    return {"id": str(membership_id), "subscriptionId": str(row["subscription_id"]),
            "status": "active"}  # fmt: skip


async def cancel(scope: OrgScope, membership_id: UUID, *, reason: str | None) -> dict[str, Any]:
    row = await live_subscription(scope, membership_id)
    await scope.conn.execute(
        "UPDATE member_subscriptions SET status = 'cancelled', cancelled_at = now(),"
        " cancel_reason = %s, updated_at = now() WHERE id = %s AND organization_id = %s",
        (reason, row["subscription_id"], scope.org_id),
    )
    return {"id": str(membership_id), "subscriptionId": str(row["subscription_id"]),
            "planId": str(row["plan_id"]), "plan": row["plan_name"], "status": "cancelled",
            "previousStatus": row["subscription_status"]}  # fmt: skip


async def check_plan_change(
    scope: OrgScope, membership_id: UUID, plan_id: UUID
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The member and the plan they would move to; refused when already on it."""
    row = await member_row(scope, membership_id)
    plan = await get_plan(scope, plan_id)
    if row["plan_id"] == plan_id:
        raise DomainError("conflict", f"{row['full_name']} is already on {plan['name']}.")
    return row, plan


async def change_plan(scope: OrgScope, membership_id: UUID, plan_id: UUID) -> dict[str, Any]:
    """Start `plan_id` (a member with no plan simply starts it); the old row is cancelled."""
    row, plan = await check_plan_change(scope, membership_id, plan_id)
    if row["subscription_id"] is not None:
        await scope.conn.execute(
            "UPDATE member_subscriptions SET status = 'cancelled', cancelled_at = now(),"
            " cancel_reason = 'plan change', updated_at = now()"
            " WHERE id = %s AND organization_id = %s",
            (row["subscription_id"], scope.org_id),
        )
    cur = await scope.conn.execute(
        "INSERT INTO member_subscriptions (organization_id, membership_id, user_id, plan_id,"
        " status, replaces_id) VALUES (%s, %s, %s, %s, 'active', %s) RETURNING id",
        (scope.org_id, membership_id, row["user_id"], plan_id, row["subscription_id"]),
    )
    new = await cur.fetchone()
    assert new is not None
    return {
        "id": str(membership_id),
        "subscriptionId": str(new["id"]),
        "plan": plan_out(plan),
        "previousPlanId": str(row["plan_id"]) if row["plan_id"] else None,
        "previousPlan": row["plan_name"],
    }


async def check_credits(
    scope: OrgScope, membership_id: UUID, balance: int
) -> tuple[str, int | None]:
    """The member's name and current balance (None: unlimited); refused when nothing changes."""
    name = await member_name(scope, membership_id)
    current = await bookings.credit_balance(scope, membership_id)
    if balance == (current or 0):
        # also unlimited → 0: the ledger holds no zero change, and 0 credits on an unlimited
        # member would mean nothing to book with; say so instead of guessing
        raise DomainError("conflict", f"{name} already has {current or 0} credits to change from.")
    return name, current


async def set_credits(
    scope: OrgScope, membership_id: UUID, balance: int, *, reason: str
) -> dict[str, Any]:
    """Set the member's class-credit balance; the ledger records the difference."""
    _, current = await check_credits(scope, membership_id, balance)
    delta = balance - (current or 0)
    await bookings.adjust_credits(scope, membership_id, delta, reason)
    return {"id": str(membership_id), "balance": balance, "previousBalance": current}


# -- invitations -------------------------------------------------------------------------------


def invitation_out(row: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"id": str(row["id"]), "email": row["email"], "status": row["status"]}
    if row.get("full_name"):
        out["name"] = row["full_name"]
    out["sentCount"] = row["sent_count"]
    return out


async def _check_invitable(scope: OrgScope, email: str) -> None:
    cur = await scope.conn.execute(
        "SELECT 1 FROM org_memberships m JOIN users u ON u.id = m.user_id"
        " WHERE m.organization_id = %s AND lower(u.email) = lower(%s) AND m.status <> 'removed'",
        (scope.org_id, email),
    )
    if await cur.fetchone() is not None:
        raise DomainError("conflict", f"{email} is already a member of this gym.")
    cur = await scope.conn.execute(
        "SELECT 1 FROM member_invitations WHERE organization_id = %s AND lower(email) = lower(%s)"
        " AND status = 'pending'",
        (scope.org_id, email),
    )
    if await cur.fetchone() is not None:
        raise DomainError("conflict", f"{email} already has a pending invitation (resend it).")


async def invite(
    scope: OrgScope,
    *,
    email: str,
    full_name: str | None,
    plan_id: UUID | None,
    invited_by: UUID,
) -> dict[str, Any]:
    """Record a pending invitation (no mail: `send_invitations` emails it)."""
    email = email.strip()
    if not outbox.looks_like_email(email):
        raise DomainError("invalid_args", "That email address is not valid.")
    await _check_invitable(scope, email)
    if plan_id is not None:
        await get_plan(scope, plan_id)
    cur = await scope.conn.execute(
        "INSERT INTO member_invitations (organization_id, email, full_name, plan_id, invited_by)"
        " VALUES (%s, %s, %s, %s, %s) RETURNING id, email, full_name, status, sent_count",
        (scope.org_id, email, full_name, plan_id, invited_by),
    )
    row = await cur.fetchone()
    assert row is not None
    return invitation_out(row)


async def revoke_invitation(scope: OrgScope, invitation_id: UUID) -> dict[str, Any]:
    cur = await scope.conn.execute(
        "UPDATE member_invitations SET status = 'revoked', updated_at = now()"
        " WHERE id = %s AND organization_id = %s AND status = 'pending'"
        " RETURNING id, email, full_name, status, sent_count",
        (invitation_id, scope.org_id),
    )
    row = await cur.fetchone()
    if row is None:
        raise not_found("pending invitation")
    return invitation_out(row)


async def pending_invitations(scope: OrgScope, ids: list[UUID]) -> list[dict[str, Any]]:
    """These pending invitations, in order; not_found if any is missing, foreign or not pending."""
    cur = await scope.conn.execute(
        "SELECT id, email, full_name, status, sent_count FROM member_invitations"
        " WHERE organization_id = %s AND id = ANY(%s) AND status = 'pending'",
        (scope.org_id, ids),
    )
    rows = {r["id"]: r for r in await cur.fetchall()}
    if len(rows) != len(set(ids)):
        raise not_found("pending invitation")
    return [rows[i] for i in dict.fromkeys(ids)]


async def list_invitations(scope: OrgScope, *, status: str = "pending") -> list[dict[str, Any]]:
    cur = await scope.conn.execute(
        "SELECT id, email, full_name, status, sent_count FROM member_invitations"
        " WHERE organization_id = %s AND status = %s ORDER BY created_at DESC LIMIT 100",
        (scope.org_id, status),
    )
    return [invitation_out(r) for r in await cur.fetchall()]


def invitation_email(gym: str, name: str | None) -> tuple[str, str]:
    """The invitation's subject and body (the app's sign-up link is added by Clerk's flow)."""
    greeting = f"Hi {name}," if name else "Hi,"
    return (
        f"You're invited to join {gym}",
        f"{greeting}\n\n{gym} has invited you to join as a member. Accept the invitation from"
        " the email Clerk sends you, or ask the front desk for help.\n\nSee you in class!",
    )


async def send_invitations(
    scope: OrgScope,
    invitations: list[dict[str, Any]],
    *,
    gym: str,
    link: outbox.CallLink | None,
    now: datetime,
) -> list[dict[str, Any]]:
    """Queue one invitation email each (through the outbox) and count the send."""
    queued: list[dict[str, Any]] = []
    for inv in invitations:
        subject, body = invitation_email(gym, inv["full_name"])
        queued += await outbox.enqueue(
            scope,
            recipients=[outbox.Recipient(inv["email"], inv["full_name"], "address", inv["id"])],
            subject=subject,
            body=body,
            source="memberships.invitation",
            link=link,
        )
    await scope.conn.execute(
        "UPDATE member_invitations SET sent_count = sent_count + 1, last_sent_at = %s,"
        " updated_at = now() WHERE organization_id = %s AND id = ANY(%s)",
        (now, scope.org_id, [inv["id"] for inv in invitations]),
    )
    return queued
