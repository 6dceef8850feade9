"""Email automations: when a trigger happens to a member, wait, then send a rendered template.

Templates use `{{placeholder}}` from a fixed set, checked when an automation is written (an
unknown placeholder would go out verbatim to every member). Only `active` automations send;
a test send renders with the caller as the sample member and mails only the caller.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal
from uuid import UUID

from spotter.db.scope import OrgScope
from spotter.domain import outbox
from spotter.domain.errors import DomainError, not_found

Trigger = Literal[
    "member_joined",
    "membership_paused",
    "membership_cancelled",
    "member_inactive",
    "invitation_pending",
]
Status = Literal["draft", "active", "inactive"]
PLACEHOLDERS = frozenset({"first_name", "full_name", "gym_name", "plan_name"})
_PLACEHOLDER = re.compile(r"\{\{\s*([^{}]*?)\s*\}\}")
_COLUMNS = (
    "id, name, trigger, delay_hours, subject_template, body_template, status, activated_at,"
    " created_at, updated_at"
)
# what update may change, and the output key each is reported under
EDITABLE = {
    "name": "name",
    "trigger": "trigger",
    "delay_hours": "delayHours",
    "subject_template": "subject",
    "body_template": "body",
}


def automation_out(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": str(row["id"]),
        "name": row["name"],
        "trigger": row["trigger"],
        "delayHours": row["delay_hours"],
        "subject": row["subject_template"],
        "body": row["body_template"],
        "status": row["status"],
    }


def check_template(*texts: str) -> None:
    unknown = sorted({m for t in texts for m in _PLACEHOLDER.findall(t)} - PLACEHOLDERS)
    if unknown:
        raise DomainError(
            "invalid_args",
            "Unknown placeholders: " + ", ".join(f"{{{{{u}}}}}" for u in unknown),
            allowed=sorted(PLACEHOLDERS),
        )


def render(template: str, values: dict[str, str]) -> str:
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)


async def get(scope: OrgScope, automation_id: UUID) -> dict[str, Any]:
    cur = await scope.conn.execute(
        f"SELECT {_COLUMNS} FROM email_automations"
        " WHERE id = %s AND organization_id = %s AND deleted_at IS NULL",
        (automation_id, scope.org_id),
    )
    row = await cur.fetchone()
    if row is None:
        raise not_found("automation")
    return row


async def list_automations(scope: OrgScope, *, status: str | None = None) -> list[dict[str, Any]]:
    cur = await scope.conn.execute(
        f"SELECT {_COLUMNS} FROM email_automations WHERE organization_id = %s"
        " AND deleted_at IS NULL AND (%s::text IS NULL OR status = %s) ORDER BY lower(name), id",
        (scope.org_id, status, status),
    )
    return [automation_out(r) for r in await cur.fetchall()]


async def _name_free(scope: OrgScope, name: str, *, except_id: UUID | None = None) -> None:
    cur = await scope.conn.execute(
        "SELECT 1 FROM email_automations WHERE organization_id = %s AND lower(name) = lower(%s)"
        " AND deleted_at IS NULL AND (%s::uuid IS NULL OR id <> %s)",
        (scope.org_id, name, except_id, except_id),
    )
    if await cur.fetchone() is not None:
        raise DomainError("conflict", f"An automation named {name} exists already.")


async def create(
    scope: OrgScope,
    *,
    name: str,
    trigger: Trigger,
    delay_hours: int,
    subject: str,
    body: str,
    created_by: UUID,
) -> dict[str, Any]:
    """A draft automation (activate it to send)."""
    check_template(subject, body)
    await _name_free(scope, name)
    cur = await scope.conn.execute(
        "INSERT INTO email_automations (organization_id, name, trigger, delay_hours,"
        f" subject_template, body_template, created_by) VALUES (%s, %s, %s, %s, %s, %s, %s)"
        f" RETURNING {_COLUMNS}",
        (scope.org_id, name, trigger, delay_hours, subject, body, created_by),
    )
    row = await cur.fetchone()
    assert row is not None
    return automation_out(row)


async def update(scope: OrgScope, automation_id: UUID, changes: dict[str, Any]) -> dict[str, Any]:
    """Change the given fields (column name → value); the output says what they were."""
    before = await get(scope, automation_id)
    changes = {k: v for k, v in changes.items() if k in EDITABLE and v != before[k]}
    if not changes:
        raise DomainError("invalid_args", "Nothing to change: every value is already so.")
    check_template(
        changes.get("subject_template", before["subject_template"]),
        changes.get("body_template", before["body_template"]),
    )
    if "name" in changes:
        await _name_free(scope, changes["name"], except_id=automation_id)
    assignments = ", ".join(f"{column} = %({column})s" for column in changes)
    cur = await scope.conn.execute(
        f"UPDATE email_automations SET {assignments}, updated_at = now()"
        f" WHERE id = %(id)s AND organization_id = %(org)s RETURNING {_COLUMNS}",
        {**changes, "id": automation_id, "org": scope.org_id},
    )
    row = await cur.fetchone()
    assert row is not None
    out = automation_out(row)
    out["previous"] = {EDITABLE[c]: before[c] for c in changes}
    return out


async def check_status_change(
    scope: OrgScope, automation_id: UUID, status: Literal["active", "inactive"]
) -> dict[str, Any]:
    row = await get(scope, automation_id)
    if row["status"] == status:
        raise DomainError("conflict", f"{row['name']} is already {status}.")
    return row


async def set_status(
    scope: OrgScope, automation_id: UUID, status: Literal["active", "inactive"]
) -> dict[str, Any]:
    row = await check_status_change(scope, automation_id, status)
    cur = await scope.conn.execute(
        "UPDATE email_automations SET status = %s, updated_at = now(),"
        " activated_at = CASE WHEN %s = 'active' THEN now() ELSE activated_at END"
        f" WHERE id = %s AND organization_id = %s RETURNING {_COLUMNS}",
        (status, status, automation_id, scope.org_id),
    )
    updated = await cur.fetchone()
    assert updated is not None
    return {**automation_out(updated), "previousStatus": row["status"]}


async def delete(scope: OrgScope, automation_id: UUID) -> dict[str, Any]:
    row = await get(scope, automation_id)
    await scope.conn.execute(
        "UPDATE email_automations SET deleted_at = now(), status = 'inactive', updated_at = now()"
        " WHERE id = %s AND organization_id = %s",
        (automation_id, scope.org_id),
    )
    return {"id": str(automation_id), "name": row["name"], "deleted": True}


async def restore(scope: OrgScope, automation_id: UUID) -> dict[str, Any]:
    """Undo a delete: back as an inactive automation (activating it again is a decision)."""
    cur = await scope.conn.execute(
        "SELECT name FROM email_automations WHERE id = %s AND organization_id = %s"
        " AND deleted_at IS NOT NULL",
        (automation_id, scope.org_id),
    )
    row = await cur.fetchone()
    if row is None:
        raise not_found("deleted automation")
    await _name_free(scope, row["name"])
    cur = await scope.conn.execute(
        "UPDATE email_automations SET deleted_at = NULL, updated_at = now()"
        f" WHERE id = %s AND organization_id = %s RETURNING {_COLUMNS}",
        (automation_id, scope.org_id),
    )
    restored = await cur.fetchone()
    assert restored is not None
    return automation_out(restored)


def template_values(full_name: str, gym: str, plan_name: str) -> dict[str, str]:
    """What the placeholders stand for, for one recipient."""
    return {
        "first_name": full_name.split()[0] if full_name.strip() else "",
        "full_name": full_name,
        "gym_name": gym,
        "plan_name": plan_name,
    }


@dataclass(frozen=True)
class SampleEmail:
    to_address: str
    to_name: str
    subject: str
    body: str


async def sample_email(
    scope: OrgScope, automation_id: UUID, user_id: UUID, *, gym: str
) -> SampleEmail:
    """The automation rendered for the caller (the sample member), addressed to the caller."""
    row = await get(scope, automation_id)
    cur = await scope.conn.execute(
        "SELECT u.full_name, u.email FROM users u JOIN org_memberships m ON m.user_id = u.id"
        " WHERE u.id = %s AND m.organization_id = %s",
        (user_id, scope.org_id),
    )
    me = await cur.fetchone()
    if me is None or not me["email"]:
        raise DomainError("conflict", "Your account has no email address to send a test to.")
    values = template_values(me["full_name"], gym, "Unlimited")  # a sample plan
    return SampleEmail(
        to_address=me["email"],
        to_name=me["full_name"],
        subject="[Test] " + render(row["subject_template"], values),
        body=render(row["body_template"], values),
    )


async def send_test(
    scope: OrgScope,
    automation_id: UUID,
    *,
    user_id: UUID,
    gym: str,
    link: outbox.CallLink | None,
) -> dict[str, Any]:
    """Queue the caller's sample to the caller only (never a member)."""
    email = await sample_email(scope, automation_id, user_id, gym=gym)
    queued = await outbox.enqueue(
        scope,
        recipients=[outbox.Recipient(email.to_address, email.to_name, "staff", user_id)],
        subject=email.subject,
        body=email.body,
        source="automations.test_send",
        link=link,
    )
    return outbox.call_output(queued, id=str(automation_id), test=True)
