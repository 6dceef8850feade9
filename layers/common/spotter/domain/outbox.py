"""The outbox: mail that leaves our database, queued with the tool's effect and delivered once.

`enqueue` writes rows in the caller's transaction (a tool's own), so a message exists exactly
when the tool's execution committed. `deliver` runs after that commit, one row at a time:
claim (queued → sending, a conditional update committed on its own), call the sender outside any
transaction, record the answer fenced on the claim. A row left `sending` past `CLAIM_WINDOW` was
interrupted mid-call: `expire_interrupted` makes it `outcome_unknown`, and nothing ever moves a
row back to `queued`, so an interrupted send is never re-sent.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Literal
from uuid import UUID

from psycopg.types.json import Jsonb

from spotter.db import Database
from spotter.db.scope import OrgScope
from spotter.domain.errors import DomainError
from spotter.observability import log_event
from spotter.providers.email import EmailSender, OutboundEmail, SendRejected

RecipientKind = Literal["member", "lead", "staff", "address"]
# Longer than any sender call can take (SES: 5 s connect + 10 s read, no retries).
CLAIM_WINDOW = timedelta(minutes=2)
MAX_RECIPIENTS = 1000
# A broadcast's sends run this many at a time (SES's default rate is well above it).
PARALLEL_SENDS = 8
MAX_SUBJECT = 200
MAX_BODY = 20_000
OUTCOME_UNKNOWN_ERROR = {
    "code": "outcome_unknown",
    "message": "Delivery was interrupted mid-call; the message may or may not have been sent."
    " It is never re-sent automatically.",
}
# Deliberately loose: one @, no spaces, a dot in the domain. The provider is the real judge.
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def looks_like_email(address: str) -> bool:
    return len(address) <= 320 and _EMAIL.match(address) is not None


@dataclass(frozen=True)
class Recipient:
    address: str
    name: str | None = None
    kind: RecipientKind = "address"
    id: UUID | None = None  # the member's membership id, the lead's id, ...


@dataclass(frozen=True)
class CallLink:
    """The tool call that queued the messages: its execution row (delivery after the commit
    finds them by it, on every channel), and an agent call's conversation and tool_use id (the
    conversation loader shows each call's delivery by them)."""

    execution_id: UUID
    conversation_id: UUID | None = None
    tool_use_id: str | None = None


def _validated(
    recipients: Sequence[Recipient], subject: str, body: str
) -> tuple[list[Recipient], str, str]:
    subject, body = subject.strip(), body.strip()
    if not subject or len(subject) > MAX_SUBJECT:
        raise DomainError("invalid_args", f"A subject needs 1 to {MAX_SUBJECT} characters.")
    if not body or len(body) > MAX_BODY:
        raise DomainError("invalid_args", f"A body needs 1 to {MAX_BODY} characters.")
    unique: dict[str, Recipient] = {}
    for r in recipients:
        address = r.address.strip()
        if not looks_like_email(address):
            raise DomainError("invalid_args", "A recipient's email address is not valid.")
        # one copy per address, however many ways it was selected
        unique.setdefault(address.lower(), Recipient(address, r.name, r.kind, r.id))
    if not unique:
        raise DomainError("conflict", "Nobody to send to: no recipient has an email address.")
    if len(unique) > MAX_RECIPIENTS:
        raise DomainError("invalid_args", f"At most {MAX_RECIPIENTS} recipients per send.")
    return list(unique.values()), subject, body


def _queued_out(row: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"id": str(row["id"]), "to": row["to_address"], "status": row["status"]}
    if row.get("to_name"):
        out["name"] = row["to_name"]
    return out


async def enqueue(
    scope: OrgScope,
    *,
    recipients: Sequence[Recipient],
    subject: str,
    body: str,
    source: str,
    link: CallLink | None = None,
) -> list[dict[str, Any]]:
    """Queue one email per distinct address in the caller's transaction; what was queued."""
    unique, subject, body = _validated(recipients, subject, body)
    cur = await scope.conn.execute(
        "INSERT INTO outbox_messages (organization_id, source, execution_id, conversation_id,"
        " tool_use_id, recipient_kind, recipient_id, to_address, to_name, subject, body)"
        " SELECT %(org)s, %(source)s, %(execution)s, %(conversation)s, %(tool_use)s, r.kind,"
        " r.rid, r.address, r.name, %(subject)s, %(body)s"
        " FROM unnest(%(kinds)s::text[], %(ids)s::uuid[], %(addresses)s::text[], %(names)s::text[])"
        " WITH ORDINALITY AS r(kind, rid, address, name, n)"
        " ORDER BY r.n RETURNING id, to_address, to_name, status",
        {
            "org": scope.org_id,
            "source": source,
            "execution": link.execution_id if link else None,
            "conversation": link.conversation_id if link else None,
            "tool_use": link.tool_use_id if link else None,
            "kinds": [r.kind for r in unique],
            "ids": [r.id for r in unique],
            "addresses": [r.address for r in unique],
            "names": [r.name for r in unique],
            "subject": subject,
            "body": body,
        },
    )
    return [_queued_out(row) for row in await cur.fetchall()]


@dataclass(frozen=True)
class Delivery:
    id: UUID
    status: str  # delivered | failed | outcome_unknown; skipped when another worker had it


async def _claim(db: Database, org_id: UUID, outbox_id: UUID) -> dict[str, Any] | None:
    async with db.org_tx(org_id) as conn:
        cur = await conn.execute(
            "UPDATE outbox_messages SET status = 'sending', claimed_at = clock_timestamp(),"
            " updated_at = now() WHERE id = %s AND organization_id = %s AND status = 'queued'"
            " RETURNING id, to_address, to_name, subject, body, claimed_at",
            (outbox_id, org_id),
        )
        return await cur.fetchone()


async def _record(
    db: Database,
    org_id: UUID,
    claimed: dict[str, Any],
    status: str,
    *,
    provider_id: str | None = None,
    error: dict[str, Any] | None = None,
) -> None:
    # Fenced on the claim; a row the expiry already called unknown takes the provider's answer,
    # since that answer is the truth the guess stood in for.
    async with db.org_tx(org_id) as conn:
        await conn.execute(
            "UPDATE outbox_messages SET status = %s, provider_message_id = %s, error = %s,"
            " delivered_at = CASE WHEN %s = 'delivered' THEN clock_timestamp() END,"
            " updated_at = now()"
            " WHERE id = %s AND organization_id = %s AND claimed_at = %s"
            " AND status IN ('sending', 'outcome_unknown')",
            (
                status,
                provider_id,
                Jsonb(error) if error is not None else None,
                status,
                claimed["id"],
                org_id,
                claimed["claimed_at"],
            ),
        )


async def deliver_one(db: Database, org_id: UUID, sender: EmailSender, outbox_id: UUID) -> Delivery:
    """Claim, send, record. Only a `queued` row is ever sent; the claim commits before the call."""
    claimed = await _claim(db, org_id, outbox_id)
    if claimed is None:
        return Delivery(outbox_id, "skipped")
    email = OutboundEmail(
        to_address=claimed["to_address"],
        to_name=claimed["to_name"],
        subject=claimed["subject"],
        body=claimed["body"],
        outbox_id=str(claimed["id"]),
    )
    try:
        provider_id = await sender.send(email)
    except SendRejected as exc:
        await _record(
            db, org_id, claimed, "failed", error={"code": exc.code, "message": exc.message}
        )
        log_event("outbox.rejected", level="warning", outbox_id=str(outbox_id), code=exc.code)
        return Delivery(outbox_id, "failed")
    except Exception as exc:
        # timeout, dropped connection, a 5xx: the provider may have it — never guess "not sent"
        await _record(db, org_id, claimed, "outcome_unknown", error=OUTCOME_UNKNOWN_ERROR)
        log_event(
            "outbox.outcome_unknown",
            level="warning",
            outbox_id=str(outbox_id),
            error=type(exc).__name__,
        )
        return Delivery(outbox_id, "outcome_unknown")
    await _record(db, org_id, claimed, "delivered", provider_id=provider_id)
    return Delivery(outbox_id, "delivered")


async def deliver(
    db: Database, org_id: UUID, sender: EmailSender, ids: Sequence[UUID]
) -> list[Delivery]:
    """Deliver these rows (the ones a tool call just queued); results in the given order.

    Up to `PARALLEL_SENDS` at once: each row is claimed and recorded on its own, and a
    connection is held only for those two short updates, never across the provider call.
    """
    gate = asyncio.Semaphore(PARALLEL_SENDS)

    async def one(outbox_id: UUID) -> Delivery:
        async with gate:
            return await deliver_one(db, org_id, sender, outbox_id)

    return list(await asyncio.gather(*(one(i) for i in ids)))


async def deliver_queued(
    db: Database, org_id: UUID, sender: EmailSender, *, limit: int = 100
) -> list[Delivery]:
    """Deliver the org's oldest queued rows (the sweep's pass: rows no request delivered)."""
    async with db.org_tx(org_id) as conn:
        cur = await conn.execute(
            "SELECT id FROM outbox_messages WHERE organization_id = %s AND status = 'queued'"
            " ORDER BY created_at, lower(to_address), id LIMIT %s",
            (org_id, limit),
        )
        ids = [r["id"] for r in await cur.fetchall()]
    return await deliver(db, org_id, sender, ids)


async def expire_interrupted(scope: OrgScope, *, window: timedelta = CLAIM_WINDOW) -> int:
    """Rows claimed longer ago than `window` and still `sending`: interrupted mid-call, so
    `outcome_unknown` (shown so, never re-sent). Returns how many."""
    cur = await scope.conn.execute(
        "UPDATE outbox_messages SET status = 'outcome_unknown', error = %s, updated_at = now()"
        " WHERE organization_id = %s AND status = 'sending'"
        " AND claimed_at < clock_timestamp() - %s",
        (Jsonb(OUTCOME_UNKNOWN_ERROR), scope.org_id, window),
    )
    return cur.rowcount


async def orgs_with_work(db: Database) -> list[UUID]:
    async with db.system_tx() as conn:
        cur = await conn.execute("SELECT spotter_orgs_with_outbox_work() AS org_id")
        return [r["org_id"] for r in await cur.fetchall()]


async def sweep_outbox(db: Database, sender: EmailSender) -> int:
    """Every org: expire interrupted sends, then deliver what is still queued. How many sent."""
    delivered = 0
    for org_id in await orgs_with_work(db):
        async with db.org_tx(org_id) as conn:
            await expire_interrupted(OrgScope(conn, org_id))
        done = await deliver_queued(db, org_id, sender)
        delivered += sum(1 for d in done if d.status == "delivered")
    return delivered


def delivery_out(row: dict[str, Any]) -> dict[str, Any]:
    out = _queued_out(row)
    if row.get("delivered_at"):
        out["deliveredAt"] = row["delivered_at"].isoformat()
    if row.get("error"):
        out["error"] = row["error"]
    return out


async def statuses_for_conversation(
    scope: OrgScope, conversation_id: UUID
) -> dict[str, list[dict[str, Any]]]:
    """tool_use_id → its messages and their delivery status (what the loader shows)."""
    cur = await scope.conn.execute(
        "SELECT id, tool_use_id, to_address, to_name, status, delivered_at, error"
        " FROM outbox_messages WHERE organization_id = %s AND conversation_id = %s"
        " ORDER BY created_at, lower(to_address), id",
        (scope.org_id, conversation_id),
    )
    by_call: dict[str, list[dict[str, Any]]] = {}
    for row in await cur.fetchall():
        by_call.setdefault(row["tool_use_id"], []).append(delivery_out(row))
    return by_call


async def statuses(scope: OrgScope, ids: Sequence[UUID]) -> list[dict[str, Any]]:
    """These rows' delivery status, in the given order (missing or foreign ids are left out)."""
    cur = await scope.conn.execute(
        "SELECT id, to_address, to_name, status, delivered_at, error FROM outbox_messages"
        " WHERE organization_id = %s AND id = ANY(%s)",
        (scope.org_id, list(ids)),
    )
    rows = {r["id"]: r for r in await cur.fetchall()}
    return [delivery_out(rows[i]) for i in ids if i in rows]


def summary(deliveries: Sequence[dict[str, Any]]) -> dict[str, int]:
    """Counts per status, e.g. {"queued": 2, "delivered": 10}."""
    counts: dict[str, int] = {}
    for d in deliveries:
        counts[d["status"]] = counts.get(d["status"], 0) + 1
    return counts


async def erase_recipient(scope: OrgScope, *, kind: RecipientKind, recipient_id: UUID) -> int:
    """Erasure: the person's messages keep their status and time (aggregates), lose their
    address, name and text."""
    cur = await scope.conn.execute(
        "UPDATE outbox_messages SET to_address = 'erased@invalid', to_name = NULL,"
        " subject = '[erased]', body = '[erased]', error = NULL, updated_at = now()"
        " WHERE organization_id = %s AND recipient_kind = %s AND recipient_id = %s",
        (scope.org_id, kind, recipient_id),
    )
    return cur.rowcount


# A tool's result lists at most this many messages one by one; a broadcast states counts.
LISTED_MESSAGES = 20


def call_output(queued: Sequence[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """What an outbound tool returns: what was queued (delivery fills in what was delivered)."""
    out: dict[str, Any] = dict(extra)
    out["recipientCount"] = len(queued)
    out["messages"] = list(queued[:LISTED_MESSAGES])
    out["delivery"] = summary(queued)
    return out


def with_delivery(output: Any, delivered: Sequence[dict[str, Any]]) -> Any:
    """The tool's result once delivery is known: each listed message's status, and counts."""
    if not isinstance(output, dict) or not delivered:
        return output
    return {
        **output,
        "messages": list(delivered[:LISTED_MESSAGES]),
        "delivery": summary(delivered),
    }


async def deliveries_by_execution(
    scope: OrgScope, execution_ids: Sequence[UUID]
) -> dict[UUID, list[dict[str, Any]]]:
    """Each call's messages and their delivery status now, in the order they were queued."""
    cur = await scope.conn.execute(
        "SELECT id, execution_id, to_address, to_name, status, delivered_at, error"
        " FROM outbox_messages WHERE organization_id = %s AND execution_id = ANY(%s)"
        " ORDER BY created_at, lower(to_address), id",
        (scope.org_id, list(execution_ids)),
    )
    by_call: dict[UUID, list[dict[str, Any]]] = {}
    for row in await cur.fetchall():
        by_call.setdefault(row["execution_id"], []).append(delivery_out(row))
    return by_call


async def ids_for_execution(scope: OrgScope, execution_id: UUID) -> list[UUID]:
    """The rows one tool call queued, in the order they were queued."""
    cur = await scope.conn.execute(
        "SELECT id FROM outbox_messages WHERE organization_id = %s AND execution_id = %s"
        " ORDER BY created_at, lower(to_address), id",
        (scope.org_id, execution_id),
    )
    return [r["id"] for r in await cur.fetchall()]


async def erase_address(scope: OrgScope, address: str) -> int:
    """Erasure: every message to this address (however it was selected) loses its text."""
    cur = await scope.conn.execute(
        "UPDATE outbox_messages SET to_address = 'erased@invalid', to_name = NULL,"
        " subject = '[erased]', body = '[erased]', error = NULL, updated_at = now()"
        " WHERE organization_id = %s AND lower(to_address) = lower(%s)",
        (scope.org_id, address),
    )
    return cur.rowcount
