"""Assignments of programs and workouts to members and groups, and the groups themselves.

A group's assignment is one row for the group plus one derived row per active member
(`parent_id`); the derived rows follow the group row (pause, resume, end, cancel, reschedule) and
are ended when the member leaves the group. A member never holds the same program (or workout)
twice over overlapping dates while live; the database refuses it too (exclusion constraint).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any
from uuid import UUID

from spotter.db.scope import OrgScope
from spotter.domain import programs
from spotter.domain.errors import DomainError, not_found

LIVE = ["active", "paused"]


@dataclass(frozen=True)
class Subject:
    """What is assigned: exactly one of a program or a workout."""

    program_id: UUID | None = None
    workout_id: UUID | None = None


@dataclass(frozen=True)
class Assignee:
    """Who it is assigned to: exactly one of a member (membership id) or a group."""

    member_id: UUID | None = None
    group_id: UUID | None = None


# ---- people and groups -------------------------------------------------------------------


async def require_org_people(scope: OrgScope, member_ids: list[UUID]) -> None:
    cur = await scope.conn.execute(
        "SELECT id FROM org_memberships WHERE organization_id = %s AND id = ANY(%s)",
        (scope.org_id, member_ids),
    )
    if {r["id"] for r in await cur.fetchall()} != set(member_ids):
        raise not_found("member")


async def require_active_members(scope: OrgScope, member_ids: list[UUID]) -> None:
    """Every id is a gym member of this org (not_found otherwise) and an active one."""
    cur = await scope.conn.execute(
        "SELECT id, role, status FROM org_memberships WHERE organization_id = %s AND id = ANY(%s)",
        (scope.org_id, member_ids),
    )
    rows = await cur.fetchall()
    if {r["id"] for r in rows} != set(member_ids):
        raise not_found("member")
    inactive = [str(r["id"]) for r in rows if r["role"] != "member" or r["status"] != "active"]
    if inactive:
        raise DomainError(
            "conflict", "Only active gym members can be assigned or grouped.", memberIds=inactive
        )


async def member_names(scope: OrgScope, member_ids: list[UUID]) -> list[str]:
    cur = await scope.conn.execute(
        "SELECT u.full_name FROM org_memberships m JOIN users u ON u.id = m.user_id"
        " WHERE m.organization_id = %s AND m.id = ANY(%s) ORDER BY lower(u.full_name)",
        (scope.org_id, member_ids),
    )
    return [str(r["full_name"]) for r in await cur.fetchall()]


async def get_group(scope: OrgScope, group_id: UUID) -> dict[str, Any]:
    cur = await scope.conn.execute(
        "SELECT id, name FROM member_groups"
        " WHERE id = %s AND organization_id = %s AND deleted_at IS NULL",
        (group_id, scope.org_id),
    )
    row = await cur.fetchone()
    if row is None:
        raise not_found("group")
    return row


async def group_member_ids(
    scope: OrgScope, group_id: UUID, *, active_only: bool = False
) -> list[UUID]:
    cur = await scope.conn.execute(
        "SELECT gm.membership_id FROM member_group_members gm"
        " JOIN org_memberships m ON m.id = gm.membership_id"
        "  AND m.organization_id = gm.organization_id"
        " WHERE gm.group_id = %s AND gm.organization_id = %s"
        " AND (NOT %s OR (m.status = 'active' AND m.role = 'member'))"
        " ORDER BY gm.added_at, gm.membership_id",
        (group_id, scope.org_id, active_only),
    )
    return [r["membership_id"] for r in await cur.fetchall()]


async def group_out(scope: OrgScope, group_id: UUID) -> dict[str, Any]:
    group = await get_group(scope, group_id)
    cur = await scope.conn.execute(
        "SELECT m.id, u.full_name, m.status FROM member_group_members gm"
        " JOIN org_memberships m ON m.id = gm.membership_id"
        "  AND m.organization_id = gm.organization_id"
        " JOIN users u ON u.id = m.user_id"
        " WHERE gm.group_id = %s AND gm.organization_id = %s ORDER BY lower(u.full_name)",
        (group_id, scope.org_id),
    )
    members = [
        {"id": str(r["id"]), "name": r["full_name"], "status": r["status"]}
        for r in await cur.fetchall()
    ]
    return {"id": str(group["id"]), "name": group["name"], "members": members}


async def list_groups(scope: OrgScope, query: str | None) -> list[dict[str, Any]]:
    cur = await scope.conn.execute(
        "SELECT g.id, g.name,"
        " (SELECT count(*) FROM member_group_members gm"
        "   WHERE gm.group_id = g.id AND gm.organization_id = g.organization_id) AS member_count,"
        " (SELECT count(*) FROM assignments a WHERE a.group_id = g.id"
        "   AND a.organization_id = g.organization_id AND a.status = ANY(%s)) AS live_assignments"
        " FROM member_groups g WHERE g.organization_id = %s AND g.deleted_at IS NULL"
        " AND (%s::text IS NULL OR g.name ILIKE '%%' || %s || '%%') ORDER BY lower(g.name)",
        (LIVE, scope.org_id, query, query),
    )
    return [
        {
            "id": str(r["id"]),
            "name": r["name"],
            "memberCount": r["member_count"],
            "liveAssignments": r["live_assignments"],
        }
        for r in await cur.fetchall()
    ]


async def _ensure_group_name_free(scope: OrgScope, name: str, except_id: UUID | None) -> None:
    cur = await scope.conn.execute(
        "SELECT 1 FROM member_groups WHERE organization_id = %s AND deleted_at IS NULL"
        " AND lower(name) = lower(%s) AND id IS DISTINCT FROM %s",
        (scope.org_id, name, except_id),
    )
    if await cur.fetchone() is not None:
        raise DomainError("conflict", f"A group named {name!r} already exists.")


async def create_group(
    scope: OrgScope, name: str, member_ids: list[UUID], *, user_id: UUID
) -> UUID:
    await _ensure_group_name_free(scope, name, None)
    cur = await scope.conn.execute(
        "INSERT INTO member_groups (organization_id, name) VALUES (%s, %s) RETURNING id",
        (scope.org_id, name),
    )
    row = await cur.fetchone()
    assert row is not None
    group_id: UUID = row["id"]
    if member_ids:
        await add_members(scope, group_id, member_ids, user_id=user_id)
    return group_id


async def rename_group(scope: OrgScope, group_id: UUID, name: str) -> str:
    """Rename; returns the previous name."""
    group = await get_group(scope, group_id)
    await _ensure_group_name_free(scope, name, group_id)
    await scope.conn.execute(
        "UPDATE member_groups SET name = %s, updated_at = now()"
        " WHERE id = %s AND organization_id = %s",
        (name, group_id, scope.org_id),
    )
    return str(group["name"])


async def live_group_assignments(scope: OrgScope, group_id: UUID) -> list[dict[str, Any]]:
    cur = await scope.conn.execute(
        "SELECT id, program_id, workout_id, starts_on, ends_on, status FROM assignments"
        " WHERE organization_id = %s AND group_id = %s AND status = ANY(%s)",
        (scope.org_id, group_id, LIVE),
    )
    return await cur.fetchall()


async def _finish(scope: OrgScope, where: str, params: tuple[Any, ...], on: date) -> int:
    """End live assignments matched by `where` on `on`; those not started by then are cancelled."""
    cur = await scope.conn.execute(
        "UPDATE assignments SET"
        " status = CASE WHEN starts_on > %s THEN 'cancelled' ELSE 'ended' END,"
        " ends_on = CASE WHEN starts_on > %s THEN ends_on"
        "  ELSE least(coalesce(ends_on, %s), %s) END,"
        " updated_at = now()"
        f" WHERE organization_id = %s AND status = ANY(%s) AND ({where}) RETURNING id",
        (on, on, on, on, scope.org_id, LIVE, *params),
    )
    return len(await cur.fetchall())


async def delete_group(scope: OrgScope, group_id: UUID, today: date) -> int:
    """Soft-delete; ends its live assignments (and its members' copies). Returns how many."""
    await get_group(scope, group_id)
    ended = await _finish(
        scope,
        "group_id = %s OR parent_id IN"
        " (SELECT id FROM assignments WHERE group_id = %s AND organization_id = %s)",
        (group_id, group_id, scope.org_id),
        today,
    )
    await scope.conn.execute(
        "UPDATE member_groups SET deleted_at = now() WHERE id = %s AND organization_id = %s",
        (group_id, scope.org_id),
    )
    return ended


async def add_members(
    scope: OrgScope, group_id: UUID, member_ids: list[UUID], *, user_id: UUID
) -> list[UUID]:
    """Add members (already there: ignored); they get the group's live assignments."""
    await get_group(scope, group_id)
    await require_active_members(scope, member_ids)
    added: list[UUID] = []
    for member_id in member_ids:
        cur = await scope.conn.execute(
            "INSERT INTO member_group_members (organization_id, group_id, membership_id)"
            " VALUES (%s, %s, %s) ON CONFLICT DO NOTHING RETURNING membership_id",
            (scope.org_id, group_id, member_id),
        )
        if await cur.fetchone() is not None:
            added.append(member_id)
    for parent in await live_group_assignments(scope, group_id):
        await _derive(scope, parent, added, user_id=user_id)
    return added


async def remove_members(
    scope: OrgScope, group_id: UUID, member_ids: list[UUID], today: date
) -> list[UUID]:
    """Remove members; their assignments that came from this group end today."""
    await get_group(scope, group_id)
    await require_org_people(scope, member_ids)
    cur = await scope.conn.execute(
        "DELETE FROM member_group_members WHERE organization_id = %s AND group_id = %s"
        " AND membership_id = ANY(%s) RETURNING membership_id",
        (scope.org_id, group_id, member_ids),
    )
    removed = [r["membership_id"] for r in await cur.fetchall()]
    if removed:
        await _finish(
            scope,
            "membership_id = ANY(%s) AND parent_id IN"
            " (SELECT id FROM assignments WHERE group_id = %s AND organization_id = %s)",
            (removed, group_id, scope.org_id),
            today,
        )
    return sorted(removed, key=member_ids.index)


async def derived_live_count(scope: OrgScope, group_id: UUID, member_ids: list[UUID]) -> int:
    cur = await scope.conn.execute(
        "SELECT count(*) AS n FROM assignments WHERE organization_id = %s AND status = ANY(%s)"
        " AND membership_id = ANY(%s)"
        " AND parent_id IN"
        " (SELECT id FROM assignments WHERE group_id = %s AND organization_id = %s)",
        (scope.org_id, LIVE, member_ids, group_id, scope.org_id),
    )
    row = await cur.fetchone()
    return int(row["n"]) if row else 0


# ---- assignments ---------------------------------------------------------------------------

_SELECT = (
    "SELECT a.id, a.program_id, a.workout_id, a.membership_id, a.group_id, a.parent_id,"
    " a.starts_on, a.ends_on, a.status, coalesce(p.name, w.title) AS subject,"
    " u.full_name AS member_name, g.name AS group_name, vg.name AS via_group,"
    " (SELECT count(*) FROM assignments c WHERE c.parent_id = a.id"
    "   AND c.organization_id = a.organization_id AND c.status = a.status) AS member_count"
    " FROM assignments a"
    " LEFT JOIN programs p ON p.id = a.program_id AND p.organization_id = a.organization_id"
    " LEFT JOIN workouts w ON w.id = a.workout_id AND w.organization_id = a.organization_id"
    " LEFT JOIN org_memberships m ON m.id = a.membership_id"
    "  AND m.organization_id = a.organization_id"
    " LEFT JOIN users u ON u.id = m.user_id"
    " LEFT JOIN member_groups g ON g.id = a.group_id AND g.organization_id = a.organization_id"
    " LEFT JOIN assignments pa ON pa.id = a.parent_id AND pa.organization_id = a.organization_id"
    " LEFT JOIN member_groups vg ON vg.id = pa.group_id AND vg.organization_id = a.organization_id"
    " WHERE a.organization_id = %s"
)


def assignment_out(row: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": str(row["id"]),
        "programId": row["program_id"] and str(row["program_id"]),
        "workoutId": row["workout_id"] and str(row["workout_id"]),
        "subject": row["subject"],
        "memberId": row["membership_id"] and str(row["membership_id"]),
        "memberName": row["member_name"],
        "groupId": row["group_id"] and str(row["group_id"]),
        "groupName": row["group_name"],
        "viaGroup": row["via_group"],
        "startsOn": row["starts_on"].isoformat(),
        "endsOn": row["ends_on"] and row["ends_on"].isoformat(),
        "status": row["status"],
    }
    if row["group_id"] is not None:
        out["memberCount"] = row["member_count"]
    return {k: v for k, v in out.items() if v is not None}


async def _select(scope: OrgScope, where: str, params: tuple[Any, ...]) -> list[dict[str, Any]]:
    cur = await scope.conn.execute(
        f"{_SELECT} AND ({where}) ORDER BY a.starts_on, lower(coalesce(p.name, w.title)), a.id",
        (scope.org_id, *params),
    )
    return await cur.fetchall()


async def get_assignment(scope: OrgScope, assignment_id: UUID) -> dict[str, Any]:
    rows = await _select(scope, "a.id = %s", (assignment_id,))
    if not rows:
        raise not_found("assignment")
    return rows[0]


async def assignment_label(scope: OrgScope, assignment_id: UUID) -> str:
    """`<program or workout> → <member or group>`: bare names for confirmation cards."""
    row = await get_assignment(scope, assignment_id)
    return f"{row['subject']} → {row['member_name'] or row['group_name']}"


async def _overlapping(
    scope: OrgScope,
    subject: Subject,
    assignee: Assignee,
    starts_on: date,
    ends_on: date | None,
    except_ids: list[UUID],
) -> bool:
    cur = await scope.conn.execute(
        "SELECT 1 FROM assignments WHERE organization_id = %s AND status = ANY(%s)"
        " AND membership_id IS NOT DISTINCT FROM %s AND group_id IS NOT DISTINCT FROM %s"
        " AND program_id IS NOT DISTINCT FROM %s AND workout_id IS NOT DISTINCT FROM %s"
        " AND daterange(starts_on, ends_on, '[]') && daterange(%s::date, %s::date, '[]')"
        " AND NOT (id = ANY(%s))",
        (
            scope.org_id,
            LIVE,
            assignee.member_id,
            assignee.group_id,
            subject.program_id,
            subject.workout_id,
            starts_on,
            ends_on,
            except_ids,
        ),
    )
    return await cur.fetchone() is not None


async def _insert(
    scope: OrgScope,
    subject: Subject,
    assignee: Assignee,
    starts_on: date,
    ends_on: date | None,
    *,
    user_id: UUID,
    parent_id: UUID | None = None,
    status: str = "active",
) -> UUID:
    cur = await scope.conn.execute(
        "INSERT INTO assignments (organization_id, program_id, workout_id, membership_id,"
        " group_id, parent_id, starts_on, ends_on, status, created_by)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING id",
        (
            scope.org_id,
            subject.program_id,
            subject.workout_id,
            assignee.member_id,
            assignee.group_id,
            parent_id,
            starts_on,
            ends_on,
            status,
            user_id,
        ),
    )
    row = await cur.fetchone()
    assert row is not None
    return UUID(str(row["id"]))


async def _derive(
    scope: OrgScope, parent: dict[str, Any], member_ids: list[UUID], *, user_id: UUID
) -> list[UUID]:
    """Copy a group row to each member; a member who already has it over those dates is skipped."""
    subject = Subject(parent["program_id"], parent["workout_id"])
    skipped: list[UUID] = []
    for member_id in member_ids:
        assignee = Assignee(member_id=member_id)
        if await _overlapping(scope, subject, assignee, parent["starts_on"], parent["ends_on"], []):
            skipped.append(member_id)
            continue
        await _insert(
            scope,
            subject,
            assignee,
            parent["starts_on"],
            parent["ends_on"],
            user_id=user_id,
            parent_id=parent["id"],
            status=parent["status"],
        )
    return skipped


async def _check_subject(scope: OrgScope, subject: Subject) -> None:
    if subject.program_id is not None:
        program = await programs.get_program(scope, subject.program_id)
        if program["status"] != "active":
            raise DomainError("conflict", "The program is archived.")
        return
    cur = await scope.conn.execute(
        "SELECT 1 FROM workouts WHERE id = %s AND organization_id = %s AND deleted_at IS NULL",
        (subject.workout_id, scope.org_id),
    )
    if await cur.fetchone() is None:
        raise not_found("workout")


async def workout_date(scope: OrgScope, workout_id: UUID) -> date | None:
    cur = await scope.conn.execute(
        "SELECT scheduled_on FROM workouts"
        " WHERE id = %s AND organization_id = %s AND deleted_at IS NULL",
        (workout_id, scope.org_id),
    )
    row = await cur.fetchone()
    if row is None:
        raise not_found("workout")
    on: date | None = row["scheduled_on"]
    return on


def _already(subject: Subject) -> DomainError:
    what = "program" if subject.program_id else "workout"
    return DomainError("conflict", f"Already assigned that {what} over overlapping dates.")


async def assign(
    scope: OrgScope,
    subject: Subject,
    assignee: Assignee,
    starts_on: date,
    ends_on: date | None,
    *,
    user_id: UUID,
) -> tuple[UUID, list[UUID]]:
    """Returns the new assignment's id and, for a group, the members skipped as already assigned."""
    await _check_subject(scope, subject)
    if assignee.member_id is not None:
        await require_active_members(scope, [assignee.member_id])
    else:
        assert assignee.group_id is not None
        await get_group(scope, assignee.group_id)
    if await _overlapping(scope, subject, assignee, starts_on, ends_on, []):
        raise _already(subject)
    new_id = await _insert(scope, subject, assignee, starts_on, ends_on, user_id=user_id)
    skipped: list[UUID] = []
    if assignee.group_id is not None:
        members = await group_member_ids(scope, assignee.group_id, active_only=True)
        parent = {
            "id": new_id,
            "program_id": subject.program_id,
            "workout_id": subject.workout_id,
            "starts_on": starts_on,
            "ends_on": ends_on,
            "status": "active",
        }
        skipped = await _derive(scope, parent, members, user_id=user_id)
    return new_id, skipped


async def bulk_assign(
    scope: OrgScope,
    program_id: UUID,
    member_ids: list[UUID],
    starts_on: date,
    ends_on: date | None,
    *,
    user_id: UUID,
) -> tuple[list[UUID], list[UUID]]:
    """Assign a program to many members; those who already have it then are skipped."""
    subject = Subject(program_id=program_id)
    await _check_subject(scope, subject)
    await require_active_members(scope, member_ids)
    created: list[UUID] = []
    skipped: list[UUID] = []
    for member_id in dict.fromkeys(member_ids):
        assignee = Assignee(member_id=member_id)
        if await _overlapping(scope, subject, assignee, starts_on, ends_on, []):
            skipped.append(member_id)
            continue
        created.append(await _insert(scope, subject, assignee, starts_on, ends_on, user_id=user_id))
    return created, skipped


async def _own_row(scope: OrgScope, assignment_id: UUID) -> dict[str, Any]:
    """An assignment that may be changed directly: not a member's copy of a group's."""
    row = await get_assignment(scope, assignment_id)
    if row["parent_id"] is not None:
        raise DomainError(
            "conflict",
            f"This follows the group {row['via_group']!r}'s assignment;"
            " change that one, or remove the member from the group.",
        )
    return row


async def set_status(scope: OrgScope, assignment_id: UUID, *, expected: str, to: str) -> None:
    """Pause (active -> paused) or resume (paused -> active), with the group's copies."""
    row = await _own_row(scope, assignment_id)
    if row["status"] != expected:
        raise DomainError("conflict", f"The assignment is {row['status']}, not {expected}.")
    await scope.conn.execute(
        "UPDATE assignments SET status = %s, updated_at = now() WHERE organization_id = %s"
        " AND (id = %s OR parent_id = %s) AND status = %s",
        (to, scope.org_id, assignment_id, assignment_id, expected),
    )


async def end_assignment(scope: OrgScope, assignment_id: UUID, on: date, today: date) -> None:
    """End now (on today or earlier), or set a later last day and let it run until then."""
    row = await _own_row(scope, assignment_id)
    if row["status"] not in LIVE:
        raise DomainError("conflict", f"The assignment is already {row['status']}.")
    if on < row["starts_on"]:
        raise DomainError("conflict", "It would end before it starts; unassign it instead.")
    if on <= today:
        await _finish(scope, "id = %s OR parent_id = %s", (assignment_id, assignment_id), on)
        return
    await scope.conn.execute(
        "UPDATE assignments SET ends_on = least(coalesce(ends_on, %s), %s), updated_at = now()"
        " WHERE organization_id = %s AND (id = %s OR parent_id = %s) AND status = ANY(%s)",
        (on, on, scope.org_id, assignment_id, assignment_id, LIVE),
    )


async def cancel(scope: OrgScope, assignment_ids: list[UUID]) -> int:
    """Unassign: cancel each (and a group's copies). Returns how many rows were cancelled."""
    for assignment_id in assignment_ids:
        row = await _own_row(scope, assignment_id)
        if row["status"] == "cancelled":
            raise DomainError("conflict", "That assignment is already unassigned.")
    cur = await scope.conn.execute(
        "UPDATE assignments SET status = 'cancelled', updated_at = now()"
        " WHERE organization_id = %s AND (id = ANY(%s) OR parent_id = ANY(%s))"
        " AND status <> 'cancelled' RETURNING id",
        (scope.org_id, assignment_ids, assignment_ids),
    )
    return len(await cur.fetchall())


async def reschedule(
    scope: OrgScope, assignment_id: UUID, starts_on: date, ends_on: date | None
) -> None:
    row = await _own_row(scope, assignment_id)
    if row["status"] not in LIVE:
        raise DomainError("conflict", f"The assignment is {row['status']}.")
    subject = Subject(row["program_id"], row["workout_id"])
    own = Assignee(row["membership_id"], row["group_id"])
    if await _overlapping(scope, subject, own, starts_on, ends_on, [assignment_id]):
        raise _already(subject)
    cur = await scope.conn.execute(
        "SELECT id, membership_id FROM assignments WHERE organization_id = %s AND parent_id = %s"
        " AND status = ANY(%s)",
        (scope.org_id, assignment_id, LIVE),
    )
    copies = await cur.fetchall()
    copy_ids = [c["id"] for c in copies]
    for copy in copies:
        member = Assignee(member_id=copy["membership_id"])
        if await _overlapping(scope, subject, member, starts_on, ends_on, copy_ids):
            names = await member_names(scope, [copy["membership_id"]])
            raise DomainError(
                "conflict", f"{names[0]} already has it over those dates.", memberName=names[0]
            )
    await scope.conn.execute(
        "UPDATE assignments SET starts_on = %s, ends_on = %s, updated_at = now()"
        " WHERE organization_id = %s AND (id = %s OR id = ANY(%s))",
        (starts_on, ends_on, scope.org_id, assignment_id, copy_ids),
    )


async def list_assignments(
    scope: OrgScope,
    *,
    member_id: UUID | None = None,
    program_id: UUID | None = None,
    group_id: UUID | None = None,
    include_ended: bool = False,
) -> list[dict[str, Any]]:
    """By member (their own and group copies), by program (not the copies), or by group."""
    if member_id is not None:
        await require_org_people(scope, [member_id])
        where, params = "a.membership_id = %s", (member_id,)
    elif program_id is not None:
        await programs.get_program(scope, program_id)
        where, params = "a.program_id = %s AND a.parent_id IS NULL", (program_id,)
    else:
        assert group_id is not None
        await get_group(scope, group_id)
        where, params = "a.group_id = %s", (group_id,)
    if not include_ended:
        where += " AND a.status IN ('active', 'paused')"
    return await _select(scope, where, params)
