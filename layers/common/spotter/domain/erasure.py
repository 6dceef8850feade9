"""Permanent member erasure: the person's personal data leaves every table; aggregates stay.

What stays is what counts, not who: the membership row (status 'removed', so bookings,
attendance, subscriptions and credit deltas still add up in analytics) and rows keyed by it —
internal ids that, once the person's own rows are anonymized, lead to no one. What goes is
everything that names or reaches the person: their name, email and Clerk id (on `users`,
anonymized unless another organization still has them), invitations and outbox mail to them,
their search document and embedding, group memberships, free-text reasons, their leads (and
with them their phone numbers), their own assistant conversations, and every mention of them
(`domain.mentions`: full and split names, email, Clerk id, phones as typed) in every column a
user, the model or a tool writes free text into — the gym's records (`FREE_TEXT`) and the
assistant's (conversations, messages and their page contexts, the stream log, tool calls of
every channel, undos), including the card that approved this erasure.

`STEPS` is the explicit list, run in order in the caller's transaction: all or nothing. Every
area with personal data adds its step here. The assistant's records are the agent's, which the
domain cannot import: `agent.erasure` registers that area (`register_area`), each table's
statement in the module that owns the table, and an erasure without it refuses to run
(`REQUIRED_AREAS`) rather than leave the person behind. The erasure test scans every text and
jsonb column of every table for every form of the person, and every column is classified, so
an area nobody wired fails it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any
from uuid import UUID

from spotter.db.scope import OrgScope
from spotter.domain import forms, inbox, leads, memberships, outbox, tasks
from spotter.domain.mentions import ERASED, ColumnType, Mentions, redact_columns

__all__ = [
    "ERASED",
    "FREE_TEXT",
    "REQUIRED_AREAS",
    "STEPS",
    "ErasedPerson",
    "by_user",
    "erase_member",
    "register_area",
]


@dataclass(frozen=True)
class ErasedPerson:
    membership_id: UUID
    user_id: UUID
    name: str
    email: str | None
    clerk_user_id: str | None = None
    phones: tuple[str, ...] = ()  # from their leads: what a form or a note may repeat
    name_pairs: tuple[tuple[str, str], ...] = ()  # (first, last) as their leads spell them
    lead_emails: tuple[str, ...] = ()

    @cached_property
    def mentions(self) -> Mentions:
        return Mentions.of(
            names=[self.name],
            name_pairs=self.name_pairs,
            emails=[self.email, *self.lead_emails],
            ids=[self.clerk_user_id],
            phones=self.phones,
        )


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


# The gym's columns a person may be named in as free text: what staff type (notes, reasons,
# subjects, templates), what a tool or the model wrote there. A column that holds another
# person's identity (a lead's or a signer's name, a recipient's address) is theirs, not a
# mention: those rows are the person's own steps' (leads, forms, outbox, invitations).
FREE_TEXT: dict[str, dict[str, ColumnType]] = {
    "class_sessions": {"location": "text", "notes": "text", "cancel_reason": "text"},
    "class_types": {"name": "text", "description": "text"},
    "email_automations": {"name": "text", "subject_template": "text", "body_template": "text"},
    "exercises": {"name": "text", "aliases": "text[]"},
    "form_submissions": {"answers": "jsonb"},
    "form_versions": {"title": "text", "body": "text", "fields": "jsonb"},
    "forms": {"name": "text"},
    "inbox_messages": {"body": "text"},
    "inbox_threads": {"subject": "text", "tags": "text[]"},
    "lead_activities": {"detail": "jsonb"},
    "lead_notes": {"body": "text"},
    "lead_pipelines": {"name": "text"},
    "lead_stages": {"name": "text"},
    "leads": {"lost_reason": "text", "source": "text", "tags": "text[]"},
    "member_credit_ledger": {"reason": "text"},
    "member_groups": {"name": "text"},
    "member_subscriptions": {"cancel_reason": "text"},
    "membership_plans": {"name": "text"},
    "outbox_messages": {"subject": "text", "body": "text"},
    "program_template_days": {"title": "text", "description": "text", "parts": "jsonb"},
    "program_templates": {"name": "text", "description": "text"},
    "programs": {"name": "text", "description": "text"},
    "staff_tasks": {"title": "text", "notes": "text"},
    "workouts": {
        "title": "text", "description": "text", "source_text": "text", "parts": "jsonb",
        "scores": "jsonb",
    },
}  # fmt: skip


async def _mentions(scope: OrgScope, p: ErasedPerson) -> None:
    """The gym's records that name the person keep their shape, each mention `[erased]`."""
    for table, columns in FREE_TEXT.items():
        await redact_columns(scope.conn, scope.org_id, table, columns, p.mentions)


# Areas above the domain (the assistant's records) register their step: it runs where the
# `mentions` step does, while the person is still readable.
REQUIRED_AREAS = frozenset({"agent"})
_AREAS: dict[str, Step] = {}


def register_area(name: str) -> Callable[[Step], Step]:
    def register(step: Step) -> Step:
        _AREAS[name] = step
        return step

    return register


async def _areas(scope: OrgScope, p: ErasedPerson) -> None:
    if missing := REQUIRED_AREAS - set(_AREAS):
        # never erase half a person: the caller's process did not load an area's records
        raise RuntimeError(f"erasure would miss the {', '.join(sorted(missing))} records")
    for _, step in sorted(_AREAS.items()):
        await step(scope, p)


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


async def _audit(scope: OrgScope, p: ErasedPerson) -> None:
    # the audit trail keeps what was done, not who (their Clerk id is an identity elsewhere)
    if p.clerk_user_id:
        await scope.conn.execute(
            "UPDATE audit_logs SET actor_clerk_id = %s"
            " WHERE organization_id = %s AND actor_clerk_id = %s",
            (f"erased_{p.user_id}", scope.org_id, p.clerk_user_id),
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
    ("mentions", _mentions),
    ("areas", _areas),
    ("audit", _audit),
    ("membership", _membership),
    ("user", _user),
)


async def _person(scope: OrgScope, membership_id: UUID) -> ErasedPerson:
    """Everything the person is known by, read before any step removes it."""
    row = await memberships.member_row(scope, membership_id)
    cur = await scope.conn.execute(
        "SELECT clerk_user_id FROM users WHERE id = %s", (row["user_id"],)
    )
    user = await cur.fetchone()
    known = await leads.contacts_of_person(scope, row["user_id"], row["email"])
    return ErasedPerson(
        membership_id,
        row["user_id"],
        row["full_name"],
        row["email"],
        clerk_user_id=user["clerk_user_id"] if user else None,
        phones=tuple(c["phone"] for c in known if c["phone"]),
        name_pairs=tuple(
            (c["first_name"], c["last_name"]) for c in known if c["first_name"] and c["last_name"]
        ),
        lead_emails=tuple(c["email"] for c in known if c["email"]),
    )


async def erase_member(scope: OrgScope, membership_id: UUID) -> dict[str, Any]:
    """Erase one member (role member, this org). Irreversible; the caller's transaction."""
    person = await _person(scope, membership_id)
    for _, step in STEPS:
        await step(scope, person)
    return {"id": str(membership_id), "erased": True, "steps": [name for name, _ in STEPS]}
