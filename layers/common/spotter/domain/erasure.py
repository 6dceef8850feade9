"""Permanent member erasure: the person's personal data leaves every table; aggregates stay.

What stays is what counts, not who: the membership row (status 'removed', so bookings,
attendance, subscriptions and credit deltas still add up in analytics) and rows keyed by it.
What goes is everything that names or reaches the person: their name and email (on `users`,
anonymized unless another organization still has them), invitations and outbox mail to them,
their search document and embedding, group memberships, free-text reasons, their own
assistant conversations, and every mention of their name or email in agent records (messages,
tool calls, cards, titles) — including the card that approved this erasure.

`STEPS` is the explicit list, run in order in the caller's transaction: all or nothing. Every
area with personal data adds its step here; the erasure test scans every text and jsonb column
of every table for the person's name and email, so an area nobody wired fails it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from spotter.db.scope import OrgScope
from spotter.domain import forms, inbox, leads, memberships, outbox, tasks

ERASED = "[erased]"


@dataclass(frozen=True)
class ErasedPerson:
    membership_id: UUID
    user_id: UUID
    name: str
    email: str | None


Step = Callable[[OrgScope, ErasedPerson], Awaitable[None]]


async def _subscriptions(scope: OrgScope, p: ErasedPerson) -> None:
    # kept for plan and churn counts; the live one ends, the free-text reason goes
    await scope.conn.execute(
        "UPDATE member_subscriptions SET status = 'cancelled',"
        " cancelled_at = coalesce(cancelled_at, now()), cancel_reason = NULL, updated_at = now()"
        " WHERE organization_id = %s AND membership_id = %s",
        (scope.org_id, p.membership_id),
    )


async def _credit_ledger(scope: OrgScope, p: ErasedPerson) -> None:
    await scope.conn.execute(
        "UPDATE member_credit_ledger SET reason = 'erased'"
        " WHERE organization_id = %s AND membership_id = %s",
        (scope.org_id, p.membership_id),
    )


async def _programming(scope: OrgScope, p: ErasedPerson) -> None:
    # assignments and bookings carry no personal text; they stay (attendance, programming
    # history) keyed by the anonymous membership. Live assignments end: nobody trains them now.
    await scope.conn.execute(
        "UPDATE assignments SET status = 'cancelled', updated_at = now()"
        " WHERE organization_id = %s AND membership_id = %s AND status IN ('active', 'paused')",
        (scope.org_id, p.membership_id),
    )
    await scope.conn.execute(
        "DELETE FROM member_group_members WHERE organization_id = %s AND membership_id = %s",
        (scope.org_id, p.membership_id),
    )


async def _invitations(scope: OrgScope, p: ErasedPerson) -> None:
    if p.email is None:
        return
    await scope.conn.execute(
        "UPDATE member_invitations SET email = 'erased@invalid', full_name = NULL,"
        " status = CASE WHEN status = 'pending' THEN 'revoked' ELSE status END, updated_at = now()"
        " WHERE organization_id = %s AND lower(email) = lower(%s)",
        (scope.org_id, p.email),
    )


async def _outbox(scope: OrgScope, p: ErasedPerson) -> None:
    await outbox.erase_recipient(scope, kind="member", recipient_id=p.membership_id)
    if p.email is not None:
        await outbox.erase_address(scope, p.email)


async def _own_conversations(scope: OrgScope, p: ErasedPerson) -> None:
    # a member's own assistant conversations (and their usage rows) are theirs entirely
    await scope.conn.execute(
        "DELETE FROM ai_conversations WHERE organization_id = %s AND user_id = %s",
        (scope.org_id, p.user_id),
    )


def _pattern(p: ErasedPerson) -> str:
    """A case-insensitive regex matching the name or email as they appear inside JSON text."""
    needles = [p.name] + ([p.email] if p.email else [])
    escaped = [re.escape(json.dumps(n, ensure_ascii=False)[1:-1]) for n in needles if n.strip()]
    return "|".join(escaped)


_MENTION_COLUMNS = (
    ("ai_messages", ("content",)),
    ("ai_tool_executions", ("input", "output", "error", "confirmation")),
    ("ai_tool_undos", ("input", "output", "error")),
    ("ai_conversations", ("title",)),
)


async def _mentions(scope: OrgScope, p: ErasedPerson) -> None:
    """Staff conversations that named the person keep their shape, with the name redacted."""
    pattern = _pattern(p)
    for table, columns in _MENTION_COLUMNS:
        for column in columns:
            cast = "" if column == "title" else "::jsonb"
            text = f"{column}::text" if cast else column
            redacted = f"regexp_replace({text}, %(p)s, %(erased)s, 'gi'){cast}"
            await scope.conn.execute(
                f"UPDATE {table} SET {column} = {redacted}"
                f" WHERE organization_id = %(org)s AND {text} ~* %(p)s",
                {"p": pattern, "erased": ERASED, "org": scope.org_id},
            )


async def _membership(scope: OrgScope, p: ErasedPerson) -> None:
    # status 'removed' drops the member's search document (and its embedding) by trigger;
    # the explicit delete says so here, whatever the trigger does later
    await scope.conn.execute(
        "UPDATE org_memberships SET status = 'removed' WHERE organization_id = %s AND id = %s",
        (scope.org_id, p.membership_id),
    )
    await scope.conn.execute(
        "DELETE FROM search_documents WHERE organization_id = %s AND entity = 'member'"
        " AND entity_id = %s",
        (scope.org_id, p.membership_id),
    )


async def _user(scope: OrgScope, p: ErasedPerson) -> None:
    await scope.conn.execute("SELECT spotter_anonymize_user(%s)", (p.user_id,))


def by_user(erase_person: Callable[[OrgScope, UUID], Awaitable[None]]) -> Step:
    """A step from another area's `erase_person(scope, user_id)`."""

    async def step(scope: OrgScope, p: ErasedPerson) -> None:
        await erase_person(scope, p.user_id)

    return step


# In order. The other areas' steps (`async def erase_person(scope, user_id) -> None` in their
# domain modules) join this list as `("leads", by_user(leads.erase_person))`: leads converted
# from the member and their activity (domain.leads), inbox threads and messages (domain.inbox),
# staff tasks (domain.tasks), form submissions (domain.forms). They run before `mentions`,
# `membership` and `user`, while the person (their email, their membership) is still readable.
STEPS: tuple[tuple[str, Step], ...] = (
    ("subscriptions", _subscriptions),
    ("credit_ledger", _credit_ledger),
    ("programming", _programming),
    ("invitations", _invitations),
    ("outbox", _outbox),
    # leads first: deleting a lead cascades to its threads and tasks
    ("leads", by_user(leads.erase_person)),
    ("inbox", by_user(inbox.erase_person)),
    ("tasks", by_user(tasks.erase_person)),
    ("forms", by_user(forms.erase_person)),
    ("own_conversations", _own_conversations),
    ("mentions", _mentions),
    ("membership", _membership),
    ("user", _user),
)


async def erase_member(scope: OrgScope, membership_id: UUID) -> dict[str, Any]:
    """Erase one member (role member, this org). Irreversible; the caller's transaction."""
    row = await memberships.member_row(scope, membership_id)
    person = ErasedPerson(membership_id, row["user_id"], row["full_name"], row["email"])
    for _, step in STEPS:
        await step(scope, person)
    return {"id": str(membership_id), "erased": True, "steps": [name for name, _ in STEPS]}
