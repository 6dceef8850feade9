"""The staff inbox: email threads with leads and members, read, assigned, tagged, answered.

A reply is queued in the outbox in the caller's transaction (delivery happens after commit) and
stored as the thread's outbound message, linked to its outbox row.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from spotter.db.scope import OrgScope
from spotter.domain import outbox
from spotter.domain.errors import DomainError, not_found
from spotter.domain.leads import normalize_tags
from spotter.domain.refusals import refused

MAX_TAGS = 10
EXCERPT = 160

_SELECT = (
    "SELECT t.id, t.subject, t.status, t.tags, t.last_message_at, t.last_read_at, t.lead_id,"
    " t.membership_id, t.assignee_user_id,"
    " concat_ws(' ', l.first_name, l.last_name) AS lead_name, l.email AS lead_email,"
    " mu.full_name AS member_name, mu.email AS member_email,"
    " am.id AS assignee_membership_id, au.full_name AS assignee_name,"
    " (t.last_read_at IS NULL OR EXISTS (SELECT 1 FROM inbox_messages x WHERE x.thread_id = t.id"
    "   AND x.direction = 'inbound' AND x.created_at > t.last_read_at)) AS unread,"
    " (SELECT left(x.body, %(excerpt)s) FROM inbox_messages x WHERE x.thread_id = t.id"
    "   ORDER BY x.created_at DESC, x.id LIMIT 1) AS last_excerpt"
    " FROM inbox_threads t"
    " LEFT JOIN leads l ON l.id = t.lead_id"
    " LEFT JOIN org_memberships m ON m.id = t.membership_id"
    " LEFT JOIN users mu ON mu.id = m.user_id"
    " LEFT JOIN org_memberships am"
    "   ON am.user_id = t.assignee_user_id AND am.organization_id = t.organization_id"
    " LEFT JOIN users au ON au.id = t.assignee_user_id"
)


def thread_out(row: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": str(row["id"]),
        "subject": row["subject"],
        "status": row["status"],
        "unread": row["unread"],
        "lastMessageAt": row["last_message_at"].isoformat(),
    }
    if row["lead_id"]:
        out["lead"] = {"id": str(row["lead_id"]), "name": row["lead_name"]}
    if row["membership_id"]:
        out["member"] = {"id": str(row["membership_id"]), "name": row["member_name"]}
    if row["assignee_membership_id"]:
        out["assignee"] = {"id": str(row["assignee_membership_id"]), "name": row["assignee_name"]}
    if row["tags"]:
        out["tags"] = list(row["tags"])
    if row.get("last_excerpt"):
        out["lastMessage"] = row["last_excerpt"]
    return out


async def _thread_row(scope: OrgScope, thread_id: UUID, *, lock: bool = False) -> dict[str, Any]:
    if lock:
        await scope.conn.execute(
            "SELECT 1 FROM inbox_threads WHERE id = %s AND organization_id = %s FOR UPDATE",
            (thread_id, scope.org_id),
        )
    cur = await scope.conn.execute(
        f"{_SELECT} WHERE t.id = %(id)s AND t.organization_id = %(org)s",
        {"id": thread_id, "org": scope.org_id, "excerpt": EXCERPT},
    )
    row = await cur.fetchone()
    if row is None:
        raise not_found("inbox thread")
    return row


async def thread_subject(scope: OrgScope, thread_id: UUID) -> str:
    row = await _thread_row(scope, thread_id)
    who = row["member_name"] or row["lead_name"]
    return f"{row['subject']} · {who}"


async def list_threads(
    scope: OrgScope,
    *,
    status: str | None = "open",
    assignee_user_id: UUID | None = None,
    tag: str | None = None,
    unread_only: bool = False,
    lead_id: UUID | None = None,
    membership_id: UUID | None = None,
    limit: int = 30,
) -> list[dict[str, Any]]:
    cur = await scope.conn.execute(
        f"SELECT * FROM ({_SELECT} WHERE t.organization_id = %(org)s"
        " AND (%(status)s::text IS NULL OR t.status = %(status)s)"
        " AND (%(assignee)s::uuid IS NULL OR t.assignee_user_id = %(assignee)s)"
        " AND (%(tag)s::text IS NULL OR %(tag)s = ANY(t.tags))"
        " AND (%(lead)s::uuid IS NULL OR t.lead_id = %(lead)s)"
        " AND (%(member)s::uuid IS NULL OR t.membership_id = %(member)s)) q"
        " WHERE NOT %(unread)s OR q.unread ORDER BY q.last_message_at DESC, q.id LIMIT %(limit)s",
        {
            "org": scope.org_id,
            "excerpt": EXCERPT,
            "status": status,
            "assignee": assignee_user_id,
            "tag": normalize_tags([tag])[0] if tag else None,
            "lead": lead_id,
            "member": membership_id,
            "unread": unread_only,
            "limit": limit,
        },
    )
    return [thread_out(r) for r in await cur.fetchall()]


async def read_thread(scope: OrgScope, thread_id: UUID, *, limit: int = 50) -> dict[str, Any]:
    """The thread and its latest messages (oldest first); marks it read."""
    out = thread_out(await _thread_row(scope, thread_id))
    cur = await scope.conn.execute(
        "SELECT * FROM (SELECT x.id, x.direction, x.body, x.created_at, u.full_name AS author,"
        "   o.status AS delivery FROM inbox_messages x"
        "   LEFT JOIN users u ON u.id = x.author_user_id"
        "   LEFT JOIN outbox_messages o ON o.id = x.outbox_message_id"
        "   WHERE x.thread_id = %s AND x.organization_id = %s"
        "   ORDER BY x.created_at DESC, x.id DESC LIMIT %s) q ORDER BY created_at, id",
        (thread_id, scope.org_id, limit),
    )
    messages = []
    for r in await cur.fetchall():
        message = {"id": str(r["id"]), "direction": r["direction"], "body": r["body"],
                   "at": r["created_at"].isoformat()}  # fmt: skip
        if r["author"]:
            message["by"] = r["author"]
        if r["delivery"]:
            message["delivery"] = r["delivery"]
        messages.append(message)
    await scope.conn.execute(
        "UPDATE inbox_threads SET last_read_at = now() WHERE id = %s AND organization_id = %s",
        (thread_id, scope.org_id),
    )
    out["unread"] = False
    out.pop("lastMessage", None)
    return {**out, "messages": messages}


async def assign_thread(
    scope: OrgScope, thread_id: UUID, assignee_user_id: UUID | None
) -> dict[str, Any]:
    current = await _thread_row(scope, thread_id, lock=True)
    await scope.conn.execute(
        "UPDATE inbox_threads SET assignee_user_id = %s WHERE id = %s AND organization_id = %s",
        (assignee_user_id, thread_id, scope.org_id),
    )
    out = thread_out(await _thread_row(scope, thread_id))
    previous = current["assignee_membership_id"]
    out["previousAssigneeId"] = str(previous) if previous else None
    return out


async def tag_thread(
    scope: OrgScope, thread_id: UUID, *, add: list[str], remove: list[str]
) -> dict[str, Any]:
    """The output's `added` / `removed` are what changed, so an undo swaps exactly those."""
    adding, removing = normalize_tags(add), normalize_tags(remove)
    if not adding and not removing:
        raise DomainError("invalid_args", "Give tags to add or remove.")
    if set(adding) & set(removing):
        raise DomainError("invalid_args", "A tag cannot be both added and removed.")
    current = await _thread_row(scope, thread_id, lock=True)
    tags = list(current["tags"])
    added = [t for t in adding if t not in tags]
    removed = [t for t in removing if t in tags]
    new_tags = [t for t in tags if t not in removed] + added
    if len(new_tags) > MAX_TAGS:
        raise DomainError("invalid_args", f"A thread has at most {MAX_TAGS} tags.")
    await scope.conn.execute(
        "UPDATE inbox_threads SET tags = %s WHERE id = %s AND organization_id = %s",
        (new_tags, thread_id, scope.org_id),
    )
    out = thread_out(await _thread_row(scope, thread_id))
    return {**out, "added": added, "removed": removed}


async def set_thread_status(scope: OrgScope, thread_id: UUID, status: str) -> dict[str, Any]:
    current = await _thread_row(scope, thread_id, lock=True)
    if current["status"] == status:
        raise DomainError("conflict", f"This thread is already {status}.")
    await scope.conn.execute(
        "UPDATE inbox_threads SET status = %s,"
        " closed_at = CASE WHEN %s = 'closed' THEN now() END"
        " WHERE id = %s AND organization_id = %s",
        (status, status, thread_id, scope.org_id),
    )
    return thread_out(await _thread_row(scope, thread_id))


async def reply_recipient(scope: OrgScope, thread_id: UUID) -> dict[str, Any]:
    """Who a reply goes to (the member when there is one, else the lead), and the subject."""
    row = await _thread_row(scope, thread_id)
    if row["membership_id"] and row["member_email"]:
        recipient = outbox.Recipient(
            row["member_email"], row["member_name"], "member", row["membership_id"]
        )
    elif row["lead_id"] and row["lead_email"]:
        recipient = outbox.Recipient(row["lead_email"], row["lead_name"], "lead", row["lead_id"])
    else:
        raise refused("no_recipients", "Nobody on this thread has an email address.")
    subject = (
        row["subject"] if row["subject"].lower().startswith("re:") else f"Re: {row['subject']}"
    )
    return {"recipient": recipient, "subject": subject[:200], "thread": row}


async def reply(
    scope: OrgScope,
    actor: UUID,
    thread_id: UUID,
    body: str,
    *,
    link: outbox.CallLink | None,
) -> dict[str, Any]:
    """Queue the reply in the outbox and store it on the thread, in the caller's transaction."""
    await _thread_row(scope, thread_id, lock=True)
    target = await reply_recipient(scope, thread_id)
    queued = await outbox.enqueue(
        scope,
        recipients=[target["recipient"]],
        subject=target["subject"],
        body=body,
        source="inbox.reply",
        link=link,
    )
    cur = await scope.conn.execute(
        "INSERT INTO inbox_messages (organization_id, thread_id, direction, author_user_id, body,"
        " outbox_message_id) VALUES (%s, %s, 'outbound', %s, %s, %s) RETURNING id",
        (scope.org_id, thread_id, actor, body.strip(), UUID(queued[0]["id"])),
    )
    row = await cur.fetchone()
    assert row is not None
    await scope.conn.execute(
        "UPDATE inbox_threads SET last_message_at = now(), last_read_at = now()"
        " WHERE id = %s AND organization_id = %s",
        (thread_id, scope.org_id),
    )
    return outbox.call_output(queued, id=str(row["id"]), threadId=str(thread_id))


async def erase_person(scope: OrgScope, user_id: UUID) -> None:
    """Member erasure: every thread with the person goes, with its messages."""
    await scope.conn.execute(
        "DELETE FROM inbox_threads t USING org_memberships m"
        " WHERE t.organization_id = %s AND m.id = t.membership_id AND m.user_id = %s",
        (scope.org_id, user_id),
    )
    await scope.conn.execute(
        "UPDATE inbox_threads SET assignee_user_id = NULL"
        " WHERE organization_id = %s AND assignee_user_id = %s",
        (scope.org_id, user_id),
    )
