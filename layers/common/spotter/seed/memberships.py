"""The demo gym's memberships and automations: plans, a subscription for every demo member (a
few paused, one cancelled earlier), a pending invitation, and three email automations.

Idempotent: every row is found before it is written. Runs after the schedule seed, which
creates the members. The demo org (tier growth) gets the email_automations feature flag so the
automations router is visible in the demo.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from psycopg import AsyncConnection

Conn = AsyncConnection[Any]

# name -> (price in cents, interval, credits per interval or None for unlimited)
PLANS = {
    "Unlimited": (18000, "month", None),
    "8 Classes": (11000, "month", 8),
    "Annual Unlimited": (180000, "year", None),
    "Twice a Week": (3500, "week", 2),
}
# member -> plan; members not listed get Unlimited. Members paying by credit pack (the schedule
# seed's CREDIT_PACKS) are on class plans.
MEMBER_PLANS = {
    "Saar Levi": "8 Classes",
    "Maya Rosen": "8 Classes",
    "Noa Friedman": "Annual Unlimited",
    "Tamar Azulay": "Annual Unlimited",
    "Omer Biton": "Twice a Week",
    "Gal Dahan": "Twice a Week",
    "Dana Levi": "8 Classes",
}
PAUSED = ("Hila Segal", "Tom Harel")
# on Unlimited, cancelled, now on Twice a Week: a plan change with history
CHANGED = ("Keren Tal", "Unlimited", "Twice a Week")
INVITATION = ("avi.newman@example.com", "Avi Newman", "Unlimited")
AUTOMATIONS = (
    (
        "Welcome",
        "member_joined",
        0,
        "Welcome to {{gym_name}}, {{first_name}}!",
        "Hi {{first_name}},\n\nWelcome to {{gym_name}}. Book your first class from the app;"
        " your coach will meet you 10 minutes early.\n\nSee you soon!",
        "active",
    ),
    (
        "We miss you",
        "member_inactive",
        336,
        "We miss you at {{gym_name}}",
        "Hi {{first_name}},\n\nWe haven't seen you in two weeks. Your {{plan_name}} plan is"
        " waiting; reply to this email if we can help you get back on track.",
        "active",
    ),
    (
        "Pause check-in",
        "membership_paused",
        504,
        "How are you doing, {{first_name}}?",
        "Hi {{first_name}},\n\nYour membership has been paused for three weeks. Ready to come"
        " back? Reply and we'll resume it for you.",
        "draft",
    ),
)


async def _one(conn: Conn, query: str, params: tuple[Any, ...]) -> Any:
    cur = await conn.execute(query, params)
    row = await cur.fetchone()
    return row[0] if row else None


async def _plans(conn: Conn, org_id: UUID) -> dict[str, UUID]:
    ids: dict[str, UUID] = {}
    for name, (price, interval, credits) in PLANS.items():
        found = await _one(
            conn,
            "SELECT id FROM membership_plans WHERE organization_id = %s AND lower(name) = lower(%s)"
            " AND status = 'active'",
            (org_id, name),
        )
        ids[name] = found or await _one(
            conn,
            "INSERT INTO membership_plans (organization_id, name, price_cents, interval,"
            " credits_per_interval) VALUES (%s, %s, %s, %s, %s) RETURNING id",
            (org_id, name, price, interval, credits),
        )
    return ids


async def _subscribe(
    conn: Conn, org_id: UUID, member: dict[str, Any], plan_id: UUID, status: str
) -> None:
    await conn.execute(
        "INSERT INTO member_subscriptions (organization_id, membership_id, user_id, plan_id,"
        " status, started_at, paused_at)"
        " VALUES (%s, %s, %s, %s, %s, %s, CASE WHEN %s = 'paused' THEN now() END)",
        (org_id, member["id"], member["user_id"], plan_id, status, member["created_at"], status),
    )


async def _subscriptions(conn: Conn, org_id: UUID, plans: dict[str, UUID]) -> None:
    cur = await conn.execute(
        "SELECT m.id, m.user_id, m.created_at, u.full_name FROM org_memberships m"
        " JOIN users u ON u.id = m.user_id"
        " WHERE m.organization_id = %s AND m.role = 'member' AND m.status = 'active'"
        " AND NOT EXISTS (SELECT 1 FROM member_subscriptions s WHERE s.membership_id = m.id)"
        " ORDER BY u.full_name",
        (org_id,),
    )
    columns = ("id", "user_id", "created_at", "full_name")
    for values in await cur.fetchall():
        row = dict(zip(columns, values, strict=True))
        name = row["full_name"]
        if name == CHANGED[0]:
            old = await _one(
                conn,
                "INSERT INTO member_subscriptions (organization_id, membership_id, user_id,"
                " plan_id, status, started_at, cancelled_at, cancel_reason)"
                " VALUES (%s, %s, %s, %s, 'cancelled', %s, now() - interval '10 days',"
                " 'plan change') RETURNING id",
                (org_id, row["id"], row["user_id"], plans[CHANGED[1]], row["created_at"]),
            )
            await conn.execute(
                "INSERT INTO member_subscriptions (organization_id, membership_id, user_id,"
                " plan_id, status, started_at, replaces_id)"
                " VALUES (%s, %s, %s, %s, 'active', now() - interval '10 days', %s)",
                (org_id, row["id"], row["user_id"], plans[CHANGED[2]], old),
            )
            continue
        status = "paused" if name in PAUSED else "active"
        await _subscribe(conn, org_id, row, plans[MEMBER_PLANS.get(name, "Unlimited")], status)


async def _invitation(conn: Conn, org_id: UUID, plans: dict[str, UUID]) -> None:
    email, name, plan = INVITATION
    await conn.execute(
        "INSERT INTO member_invitations (organization_id, email, full_name, plan_id)"
        " SELECT %s, %s, %s, %s WHERE NOT EXISTS (SELECT 1 FROM member_invitations"
        "  WHERE organization_id = %s AND lower(email) = lower(%s))",
        (org_id, email, name, plans[plan], org_id, email),
    )


async def _automations(conn: Conn, org_id: UUID) -> None:
    for name, trigger, delay, subject, body, status in AUTOMATIONS:
        await conn.execute(
            "INSERT INTO email_automations (organization_id, name, trigger, delay_hours,"
            " subject_template, body_template, status, activated_at)"
            " SELECT %s, %s, %s, %s, %s, %s, %s, CASE WHEN %s = 'active' THEN now() END"
            " WHERE NOT EXISTS (SELECT 1 FROM email_automations WHERE organization_id = %s"
            "  AND lower(name) = lower(%s) AND deleted_at IS NULL)",
            (org_id, name, trigger, delay, subject, body, status, status, org_id, name),
        )


async def seed_memberships(conn: Conn, org_id: UUID) -> None:
    plans = await _plans(conn, org_id)
    await _subscriptions(conn, org_id, plans)
    await _invitation(conn, org_id, plans)
    await _automations(conn, org_id)
    await conn.execute(
        "UPDATE organizations SET feature_flags = feature_flags || '{\"email_automations\": true}'"
        " WHERE id = %s AND NOT feature_flags ? 'email_automations'",
        (org_id,),
    )
