"""Staff tasks: a title, an optional due date and assignee, optionally about a lead or member."""

from __future__ import annotations

from datetime import date
from typing import Any
from uuid import UUID

from spotter.db.scope import OrgScope
from spotter.domain.errors import DomainError, not_found

EDITABLE = ("title", "notes", "due_on", "assignee_user_id")

_SELECT = (
    "SELECT t.id, t.title, t.notes, t.due_on, t.status, t.lead_id, t.membership_id,"
    " t.assignee_user_id, t.completed_at,"
    " am.id AS assignee_membership_id, au.full_name AS assignee_name,"
    " concat_ws(' ', l.first_name, l.last_name) AS lead_name, mu.full_name AS member_name"
    " FROM staff_tasks t"
    " LEFT JOIN org_memberships am"
    "   ON am.user_id = t.assignee_user_id AND am.organization_id = t.organization_id"
    " LEFT JOIN users au ON au.id = t.assignee_user_id"
    " LEFT JOIN leads l ON l.id = t.lead_id"
    " LEFT JOIN org_memberships m ON m.id = t.membership_id"
    " LEFT JOIN users mu ON mu.id = m.user_id"
)


def task_out(row: dict[str, Any], today: date) -> dict[str, Any]:
    out: dict[str, Any] = {"id": str(row["id"]), "title": row["title"], "status": row["status"]}
    if row["notes"]:
        out["notes"] = row["notes"]
    if row["due_on"]:
        out["dueOn"] = row["due_on"].isoformat()
        out["overdue"] = row["status"] == "open" and row["due_on"] < today
    if row["assignee_membership_id"]:
        out["assignee"] = {"id": str(row["assignee_membership_id"]), "name": row["assignee_name"]}
    if row["lead_id"]:
        out["lead"] = {"id": str(row["lead_id"]), "name": row["lead_name"]}
    if row["membership_id"]:
        out["member"] = {"id": str(row["membership_id"]), "name": row["member_name"]}
    return out


async def _task_row(scope: OrgScope, task_id: UUID, *, lock: bool = False) -> dict[str, Any]:
    if lock:
        await scope.conn.execute(
            "SELECT 1 FROM staff_tasks WHERE id = %s AND organization_id = %s FOR UPDATE",
            (task_id, scope.org_id),
        )
    cur = await scope.conn.execute(
        f"{_SELECT} WHERE t.id = %s AND t.organization_id = %s AND t.deleted_at IS NULL",
        (task_id, scope.org_id),
    )
    row = await cur.fetchone()
    if row is None:
        raise not_found("task")
    return row


async def task_title(scope: OrgScope, task_id: UUID) -> str:
    return str((await _task_row(scope, task_id))["title"])


async def list_tasks(
    scope: OrgScope,
    today: date,
    *,
    status: str | None = "open",
    assignee_user_id: UUID | None = None,
    lead_id: UUID | None = None,
    membership_id: UUID | None = None,
    due_by: date | None = None,
    limit: int = 50,
) -> list[dict[str, Any]]:
    """Soonest due first (undated last)."""
    cur = await scope.conn.execute(
        f"{_SELECT} WHERE t.organization_id = %(org)s AND t.deleted_at IS NULL"
        " AND (%(status)s::text IS NULL OR t.status = %(status)s)"
        " AND (%(assignee)s::uuid IS NULL OR t.assignee_user_id = %(assignee)s)"
        " AND (%(lead)s::uuid IS NULL OR t.lead_id = %(lead)s)"
        " AND (%(member)s::uuid IS NULL OR t.membership_id = %(member)s)"
        " AND (%(due_by)s::date IS NULL OR t.due_on <= %(due_by)s)"
        " ORDER BY t.due_on NULLS LAST, t.created_at, t.id LIMIT %(limit)s",
        {
            "org": scope.org_id,
            "status": status,
            "assignee": assignee_user_id,
            "lead": lead_id,
            "member": membership_id,
            "due_by": due_by,
            "limit": limit,
        },
    )
    return [task_out(r, today) for r in await cur.fetchall()]


async def _check_links(scope: OrgScope, lead_id: UUID | None, membership_id: UUID | None) -> None:
    if lead_id is not None:
        cur = await scope.conn.execute(
            "SELECT 1 FROM leads WHERE id = %s AND organization_id = %s", (lead_id, scope.org_id)
        )
        if await cur.fetchone() is None:
            raise not_found("lead")
    if membership_id is not None:
        cur = await scope.conn.execute(
            "SELECT 1 FROM org_memberships WHERE id = %s AND organization_id = %s"
            " AND status <> 'removed'",
            (membership_id, scope.org_id),
        )
        if await cur.fetchone() is None:
            raise not_found("member")


async def create_task(
    scope: OrgScope,
    actor: UUID | None,
    today: date,
    *,
    title: str,
    notes: str | None,
    due_on: date | None,
    assignee_user_id: UUID | None,
    lead_id: UUID | None,
    membership_id: UUID | None,
) -> dict[str, Any]:
    await _check_links(scope, lead_id, membership_id)
    cur = await scope.conn.execute(
        "INSERT INTO staff_tasks (organization_id, title, notes, due_on, assignee_user_id,"
        " lead_id, membership_id, created_by_user_id) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
        " RETURNING id",
        (scope.org_id, title, notes, due_on, assignee_user_id, lead_id, membership_id, actor),
    )
    row = await cur.fetchone()
    assert row is not None
    return task_out(await _task_row(scope, row["id"]), today)


async def update_task(
    scope: OrgScope, task_id: UUID, today: date, changes: dict[str, Any]
) -> dict[str, Any]:
    """`changes` keys are EDITABLE (a None value clears notes, due date or assignee)."""
    if not changes or set(changes) - set(EDITABLE):
        raise DomainError("invalid_args", "Change the title, notes, due date or assignee.")
    if changes.get("title", "") is None:
        raise DomainError("invalid_args", "A task keeps a title.")
    await _task_row(scope, task_id, lock=True)
    assignments = ", ".join(f"{field} = %({field})s" for field in changes)
    await scope.conn.execute(
        f"UPDATE staff_tasks SET {assignments}, updated_at = now()"
        " WHERE id = %(id)s AND organization_id = %(org)s",
        {**changes, "id": task_id, "org": scope.org_id},
    )
    return task_out(await _task_row(scope, task_id), today)


async def complete_task(scope: OrgScope, task_id: UUID, today: date, done: bool) -> dict[str, Any]:
    current = await _task_row(scope, task_id, lock=True)
    if (current["status"] == "done") == done:
        raise DomainError("conflict", f"This task is already {current['status']}.")
    await scope.conn.execute(
        "UPDATE staff_tasks SET status = %s, completed_at = CASE WHEN %s THEN now() END,"
        " updated_at = now() WHERE id = %s AND organization_id = %s",
        ("done" if done else "open", done, task_id, scope.org_id),
    )
    return task_out(await _task_row(scope, task_id), today)


async def delete_task(scope: OrgScope, task_id: UUID) -> dict[str, Any]:
    row = await _task_row(scope, task_id, lock=True)
    await scope.conn.execute(
        "UPDATE staff_tasks SET deleted_at = now(), updated_at = now()"
        " WHERE id = %s AND organization_id = %s",
        (task_id, scope.org_id),
    )
    return {"id": str(task_id), "title": row["title"], "deleted": True}


async def erase_person(scope: OrgScope, user_id: UUID) -> None:
    """Member erasure: tasks about the person go (their text may name them); staff refs clear."""
    await scope.conn.execute(
        "DELETE FROM staff_tasks t USING org_memberships m"
        " WHERE t.organization_id = %s AND m.id = t.membership_id AND m.user_id = %s",
        (scope.org_id, user_id),
    )
    for column in ("assignee_user_id", "created_by_user_id"):
        await scope.conn.execute(
            f"UPDATE staff_tasks SET {column} = NULL WHERE organization_id = %s AND {column} = %s",
            (scope.org_id, user_id),
        )
