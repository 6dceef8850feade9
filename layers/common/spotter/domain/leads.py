"""Leads: people who may join the gym, worked across a pipeline's stages until they convert.

Every change writes a `lead_activities` row beside it (the lead's timeline), in the caller's
transaction. People on the staff side are user ids here; tools translate membership ids.
A converted or archived lead no longer moves; `restore` brings an archived one back as it was.
"""

from __future__ import annotations

import re
from typing import Any
from uuid import UUID

from psycopg.types.json import Jsonb

from spotter.db.scope import OrgScope
from spotter.domain import lead_pipelines as pipelines
from spotter.domain.errors import DomainError, not_found
from spotter.domain.people import like_pattern
from spotter.domain.refusals import refused

LIVE = ("open", "won", "lost")
STATUSES = ("open", "won", "lost", "converted", "archived")
CONTACT_FIELDS = ("first_name", "last_name", "email", "phone", "source")
MAX_TAGS = 20
MAX_BULK = 200

_SELECT = (
    "SELECT l.id, l.first_name, l.last_name, l.email, l.phone, l.source, l.status,"
    " l.status_before_archive, l.lost_reason, l.tags, l.pipeline_id, l.stage_id,"
    " l.owner_user_id, l.converted_user_id, l.created_at, l.converted_at,"
    " s.name AS stage_name, p.name AS pipeline_name,"
    " om.id AS owner_membership_id, ou.full_name AS owner_name,"
    " cm.id AS member_membership_id"
    " FROM leads l"
    " JOIN lead_stages s ON s.id = l.stage_id"
    " JOIN lead_pipelines p ON p.id = l.pipeline_id"
    " LEFT JOIN org_memberships om"
    "   ON om.user_id = l.owner_user_id AND om.organization_id = l.organization_id"
    " LEFT JOIN users ou ON ou.id = l.owner_user_id"
    " LEFT JOIN org_memberships cm"
    "   ON cm.user_id = l.converted_user_id AND cm.organization_id = l.organization_id"
)


def full_name(row: dict[str, Any]) -> str:
    return " ".join(p for p in (row["first_name"], row.get("last_name")) if p)


def lead_out(row: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": str(row["id"]),
        "name": full_name(row),
        "status": row["status"],
        "pipeline": {"id": str(row["pipeline_id"]), "name": row["pipeline_name"]},
        "stage": {"id": str(row["stage_id"]), "name": row["stage_name"]},
    }
    for key, field in (("email", "email"), ("phone", "phone"), ("source", "source")):
        if row.get(field):
            out[key] = row[field]
    if row["tags"]:
        out["tags"] = list(row["tags"])
    if row.get("owner_membership_id"):
        out["owner"] = {"id": str(row["owner_membership_id"]), "name": row["owner_name"]}
    if row.get("lost_reason") and row["status"] == "lost":
        out["lostReason"] = row["lost_reason"]
    if row.get("member_membership_id"):
        out["memberId"] = str(row["member_membership_id"])
    out["createdAt"] = row["created_at"].isoformat()
    return out


def normalize_tag(tag: str) -> str:
    cleaned = re.sub(r"\s+", " ", tag.strip().lower())
    if not 1 <= len(cleaned) <= 40:
        raise DomainError("invalid_args", "A tag is 1 to 40 characters.")
    return cleaned


def normalize_tags(tags: list[str]) -> list[str]:
    return list(dict.fromkeys(normalize_tag(t) for t in tags))


async def _log(
    scope: OrgScope, lead_ids: list[UUID], actor: UUID | None, kind: str, detail: dict[str, Any]
) -> None:
    await scope.conn.execute(
        "INSERT INTO lead_activities (organization_id, lead_id, actor_user_id, kind, detail)"
        " SELECT %s, id, %s, %s, %s FROM unnest(%s::uuid[]) AS id",
        (scope.org_id, actor, kind, Jsonb(detail), lead_ids),
    )


async def get_lead_row(scope: OrgScope, lead_id: UUID, *, lock: bool = False) -> dict[str, Any]:
    if lock:
        await scope.conn.execute(
            "SELECT 1 FROM leads WHERE id = %s AND organization_id = %s FOR UPDATE",
            (lead_id, scope.org_id),
        )
    cur = await scope.conn.execute(
        f"{_SELECT} WHERE l.id = %s AND l.organization_id = %s", (lead_id, scope.org_id)
    )
    row = await cur.fetchone()
    if row is None:
        raise not_found("lead")
    return row


def _require_movable(row: dict[str, Any]) -> None:
    if row["status"] == "converted":
        raise refused("lead_converted", "This lead is already a member.")
    if row["status"] == "archived":
        raise refused("lead_archived", "This lead is archived; restore it first.")


async def lead_name(scope: OrgScope, lead_id: UUID) -> str:
    return full_name(await get_lead_row(scope, lead_id))


async def get_lead(scope: OrgScope, lead_id: UUID, *, history: int = 20) -> dict[str, Any]:
    """The lead with its latest notes and activity, newest first."""
    out = lead_out(await get_lead_row(scope, lead_id))
    cur = await scope.conn.execute(
        "SELECT n.id, n.body, n.created_at, u.full_name AS author FROM lead_notes n"
        " LEFT JOIN users u ON u.id = n.author_user_id"
        " WHERE n.lead_id = %s AND n.organization_id = %s ORDER BY n.created_at DESC, n.id"
        " LIMIT %s",
        (lead_id, scope.org_id, history),
    )
    out["notes"] = [
        {"id": str(r["id"]), "body": r["body"], "author": r["author"],
         "at": r["created_at"].isoformat()}
        for r in await cur.fetchall()
    ]  # fmt: skip
    cur = await scope.conn.execute(
        "SELECT a.kind, a.detail, a.created_at, u.full_name AS actor FROM lead_activities a"
        " LEFT JOIN users u ON u.id = a.actor_user_id"
        " WHERE a.lead_id = %s AND a.organization_id = %s ORDER BY a.created_at DESC, a.id"
        " LIMIT %s",
        (lead_id, scope.org_id, history),
    )
    out["activity"] = [
        {"kind": r["kind"], **r["detail"], "by": r["actor"], "at": r["created_at"].isoformat()}
        for r in await cur.fetchall()
    ]
    return out


async def list_leads(
    scope: OrgScope,
    *,
    pipeline_id: UUID | None = None,
    stage_id: UUID | None = None,
    statuses: tuple[str, ...] = LIVE,
    owner_user_id: UUID | None = None,
    tag: str | None = None,
    query: str | None = None,
    limit: int = 50,
) -> dict[str, Any]:
    where = (
        " WHERE l.organization_id = %(org)s AND l.status = ANY(%(statuses)s)"
        " AND (%(pipeline)s::uuid IS NULL OR l.pipeline_id = %(pipeline)s)"
        " AND (%(stage)s::uuid IS NULL OR l.stage_id = %(stage)s)"
        " AND (%(owner)s::uuid IS NULL OR l.owner_user_id = %(owner)s)"
        " AND (%(tag)s::text IS NULL OR %(tag)s = ANY(l.tags))"
        " AND (%(q)s::text IS NULL OR concat_ws(' ', l.first_name, l.last_name) ILIKE %(like)s"
        "      OR l.email ILIKE %(like)s OR l.phone ILIKE %(like)s)"
    )
    params = {
        "org": scope.org_id,
        "statuses": list(statuses),
        "pipeline": pipeline_id,
        "stage": stage_id,
        "owner": owner_user_id,
        "tag": normalize_tag(tag) if tag else None,
        "q": query,
        "like": like_pattern(query or ""),
        "limit": limit,
    }
    cur = await scope.conn.execute(
        f"{_SELECT}{where} ORDER BY p.name, s.position, l.created_at DESC, l.id LIMIT %(limit)s",
        params,
    )
    rows = await cur.fetchall()
    cur = await scope.conn.execute(f"SELECT count(*)::int AS n FROM leads l{where}", params)
    total = await cur.fetchone()
    return {"leads": [lead_out(r) for r in rows], "total": total["n"] if total else 0}


async def _duplicate_of(scope: OrgScope, email: str, except_id: UUID | None) -> UUID | None:
    cur = await scope.conn.execute(
        "SELECT id FROM leads WHERE organization_id = %s AND lower(email) = lower(%s)"
        " AND status = ANY(%s) AND id IS DISTINCT FROM %s",
        (scope.org_id, email, list(LIVE), except_id),
    )
    row = await cur.fetchone()
    return None if row is None else row["id"]


async def _refuse_duplicate(scope: OrgScope, email: str | None, except_id: UUID | None) -> None:
    if email is None:
        return
    existing = await _duplicate_of(scope, email, except_id)
    if existing is not None:
        raise refused("duplicate_lead", "A live lead already has this email.", leadId=str(existing))


async def create_lead(
    scope: OrgScope,
    actor: UUID | None,
    *,
    contact: dict[str, str | None],
    pipeline_id: UUID | None,
    stage_id: UUID | None,
    owner_user_id: UUID | None,
    tags: list[str],
) -> dict[str, Any]:
    """`contact` holds CONTACT_FIELDS; email or phone is required."""
    if not contact.get("email") and not contact.get("phone"):
        raise DomainError("invalid_args", "A lead needs an email or a phone number.")
    if stage_id is not None:
        stage = await pipelines.get_stage(scope, stage_id)
        if pipeline_id is not None and stage["pipeline_id"] != pipeline_id:
            raise DomainError("invalid_args", "That stage belongs to another pipeline.")
    else:
        stage = await pipelines.first_stage(scope, pipeline_id)
    await _refuse_duplicate(scope, contact.get("email"), None)
    normalized = normalize_tags(tags)
    if len(normalized) > MAX_TAGS:
        raise DomainError("invalid_args", f"A lead has at most {MAX_TAGS} tags.")
    cur = await scope.conn.execute(
        "INSERT INTO leads (organization_id, pipeline_id, stage_id, first_name, last_name, email,"
        " phone, source, owner_user_id, tags) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
        " RETURNING id",
        (
            scope.org_id, stage["pipeline_id"], stage["id"], contact["first_name"],
            contact.get("last_name"), contact.get("email"), contact.get("phone"),
            contact.get("source"), owner_user_id, normalized,
        ),
    )  # fmt: skip
    row = await cur.fetchone()
    assert row is not None
    await _log(scope, [row["id"]], actor, "created", {"stage": stage["name"]})
    return lead_out(await get_lead_row(scope, row["id"]))


async def update_lead(
    scope: OrgScope, actor: UUID | None, lead_id: UUID, changes: dict[str, str]
) -> dict[str, Any]:
    """Set contact fields; the output's `previous` holds the values replaced."""
    current = await get_lead_row(scope, lead_id, lock=True)
    if current["status"] == "archived":
        raise refused("lead_archived", "This lead is archived; restore it first.")
    unknown = set(changes) - set(CONTACT_FIELDS)
    if unknown or not changes:
        raise DomainError("invalid_args", "Change at least one contact field.")
    if "email" in changes and current["status"] in LIVE:
        await _refuse_duplicate(scope, changes["email"], lead_id)
    assignments = ", ".join(f"{field} = %({field})s" for field in changes)
    await scope.conn.execute(
        f"UPDATE leads SET {assignments}, updated_at = now()"
        " WHERE id = %(id)s AND organization_id = %(org)s",
        {**changes, "id": lead_id, "org": scope.org_id},
    )
    await _log(scope, [lead_id], actor, "updated", {"fields": sorted(changes)})
    out = lead_out(await get_lead_row(scope, lead_id))
    out["previous"] = {field: current[field] for field in changes}
    return out


async def move_lead(
    scope: OrgScope, actor: UUID | None, lead_id: UUID, stage_id: UUID
) -> dict[str, Any]:
    """To any stage of any active pipeline; the output's `previousStageId` moves it back."""
    current = await get_lead_row(scope, lead_id, lock=True)
    _require_movable(current)
    stage = await pipelines.get_stage(scope, stage_id)
    await scope.conn.execute(
        "UPDATE leads SET pipeline_id = %s, stage_id = %s, updated_at = now()"
        " WHERE id = %s AND organization_id = %s",
        (stage["pipeline_id"], stage_id, lead_id, scope.org_id),
    )
    await _log(scope, [lead_id], actor, "moved",
               {"from": current["stage_name"], "to": stage["name"]})  # fmt: skip
    out = lead_out(await get_lead_row(scope, lead_id))
    out["previousStageId"] = str(current["stage_id"])
    return out


async def assign_lead(
    scope: OrgScope, actor: UUID | None, lead_id: UUID, owner_user_id: UUID | None
) -> dict[str, Any]:
    """Give the lead an owner (None: nobody); `previousOwnerId` is the old owner's membership."""
    current = await get_lead_row(scope, lead_id, lock=True)
    if current["status"] == "archived":
        raise refused("lead_archived", "This lead is archived; restore it first.")
    await scope.conn.execute(
        "UPDATE leads SET owner_user_id = %s, updated_at = now()"
        " WHERE id = %s AND organization_id = %s",
        (owner_user_id, lead_id, scope.org_id),
    )
    out = lead_out(await get_lead_row(scope, lead_id))
    await _log(scope, [lead_id], actor, "assigned", {"to": out.get("owner", {}).get("name")})
    previous = current["owner_membership_id"]
    out["previousOwnerId"] = str(previous) if previous else None
    return out


async def set_status(
    scope: OrgScope, actor: UUID | None, lead_id: UUID, status: str, reason: str | None
) -> dict[str, Any]:
    """open / won / lost (with an optional reason); `previousStatus` undoes it."""
    if status not in LIVE:
        raise DomainError("invalid_args", "Status is open, won or lost.")
    current = await get_lead_row(scope, lead_id, lock=True)
    _require_movable(current)
    await scope.conn.execute(
        "UPDATE leads SET status = %s, lost_reason = %s, updated_at = now()"
        " WHERE id = %s AND organization_id = %s",
        (status, reason if status == "lost" else None, lead_id, scope.org_id),
    )
    await _log(scope, [lead_id], actor, "status", {"from": current["status"], "to": status})
    out = lead_out(await get_lead_row(scope, lead_id))
    out["previousStatus"] = current["status"]
    return out


async def archive_lead(scope: OrgScope, actor: UUID | None, lead_id: UUID) -> dict[str, Any]:
    current = await get_lead_row(scope, lead_id, lock=True)
    _require_movable(current)
    await scope.conn.execute(
        "UPDATE leads SET status = 'archived', status_before_archive = status,"
        " archived_at = now(), updated_at = now() WHERE id = %s AND organization_id = %s",
        (lead_id, scope.org_id),
    )
    await _log(scope, [lead_id], actor, "archived", {})
    return lead_out(await get_lead_row(scope, lead_id))


async def restore_lead(scope: OrgScope, actor: UUID | None, lead_id: UUID) -> dict[str, Any]:
    current = await get_lead_row(scope, lead_id, lock=True)
    if current["status"] != "archived":
        raise refused("lead_not_archived", "This lead is not archived.")
    await _refuse_duplicate(scope, current["email"], lead_id)
    await scope.conn.execute(
        "UPDATE leads SET status = status_before_archive, status_before_archive = NULL,"
        " archived_at = NULL, updated_at = now() WHERE id = %s AND organization_id = %s",
        (lead_id, scope.org_id),
    )
    await _log(scope, [lead_id], actor, "restored", {})
    return lead_out(await get_lead_row(scope, lead_id))


async def add_note(scope: OrgScope, actor: UUID | None, lead_id: UUID, body: str) -> dict[str, Any]:
    await get_lead_row(scope, lead_id)
    cur = await scope.conn.execute(
        "INSERT INTO lead_notes (organization_id, lead_id, author_user_id, body)"
        " VALUES (%s, %s, %s, %s) RETURNING id, created_at",
        (scope.org_id, lead_id, actor, body),
    )
    row = await cur.fetchone()
    assert row is not None
    await _log(scope, [lead_id], actor, "note", {"noteId": str(row["id"])})
    return {"id": str(row["id"]), "leadId": str(lead_id), "at": row["created_at"].isoformat()}


async def tag_lead(
    scope: OrgScope, actor: UUID | None, lead_id: UUID, tags: list[str]
) -> dict[str, Any]:
    current = await get_lead_row(scope, lead_id, lock=True)
    wanted = normalize_tags(tags)
    added = [t for t in wanted if t not in current["tags"]]
    if len(current["tags"]) + len(added) > MAX_TAGS:
        raise DomainError("invalid_args", f"A lead has at most {MAX_TAGS} tags.")
    if added:
        await scope.conn.execute(
            "UPDATE leads SET tags = tags || %s::text[], updated_at = now()"
            " WHERE id = %s AND organization_id = %s",
            (added, lead_id, scope.org_id),
        )
        await _log(scope, [lead_id], actor, "tagged", {"tags": added})
    return {**lead_out(await get_lead_row(scope, lead_id)), "added": added}


async def untag_lead(
    scope: OrgScope, actor: UUID | None, lead_id: UUID, tags: list[str]
) -> dict[str, Any]:
    current = await get_lead_row(scope, lead_id, lock=True)
    removed = [t for t in normalize_tags(tags) if t in current["tags"]]
    if removed:
        await scope.conn.execute(
            "UPDATE leads SET tags = ARRAY(SELECT t FROM unnest(tags) AS t"
            "   WHERE NOT t = ANY(%s::text[])), updated_at = now()"
            " WHERE id = %s AND organization_id = %s",
            (removed, lead_id, scope.org_id),
        )
        await _log(scope, [lead_id], actor, "untagged", {"tags": removed})
    return {**lead_out(await get_lead_row(scope, lead_id)), "removed": removed}


async def list_tags(scope: OrgScope) -> list[dict[str, Any]]:
    """Every tag on a lead that is not archived, with how many carry it."""
    cur = await scope.conn.execute(
        "SELECT t AS tag, count(*)::int AS leads FROM leads, unnest(tags) AS t"
        " WHERE organization_id = %s AND status <> 'archived' GROUP BY t ORDER BY t",
        (scope.org_id,),
    )
    return list(await cur.fetchall())


async def count_tagged(scope: OrgScope, tag: str) -> int:
    cur = await scope.conn.execute(
        "SELECT count(*)::int AS n FROM leads WHERE organization_id = %s AND %s = ANY(tags)",
        (scope.org_id, normalize_tag(tag)),
    )
    row = await cur.fetchone()
    return int(row["n"]) if row else 0


async def rename_tag(scope: OrgScope, old: str, new: str) -> dict[str, Any]:
    """On every lead (archived ones too); a lead that has both keeps one."""
    old_tag, new_tag = normalize_tag(old), normalize_tag(new)
    if old_tag == new_tag:
        raise DomainError("invalid_args", "The new tag is the same as the old one.")
    cur = await scope.conn.execute(
        "UPDATE leads SET tags = ARRAY(SELECT DISTINCT ON (t) t FROM unnest("
        "   array_replace(tags, %s, %s)) WITH ORDINALITY AS x(t, n) ORDER BY t, n),"
        " updated_at = now() WHERE organization_id = %s AND %s = ANY(tags)",
        (old_tag, new_tag, scope.org_id, old_tag),
    )
    if cur.rowcount == 0:
        raise not_found("tag")
    return {"tag": new_tag, "previousTag": old_tag, "leads": cur.rowcount}


async def delete_tag(scope: OrgScope, tag: str) -> dict[str, Any]:
    normalized = normalize_tag(tag)
    cur = await scope.conn.execute(
        "UPDATE leads SET tags = array_remove(tags, %s), updated_at = now()"
        " WHERE organization_id = %s AND %s = ANY(tags)",
        (normalized, scope.org_id, normalized),
    )
    if cur.rowcount == 0:
        raise not_found("tag")
    return {"tag": normalized, "deleted": True, "leads": cur.rowcount}


async def _existing_member(scope: OrgScope, email: str | None) -> dict[str, Any] | None:
    if not email:
        return None
    cur = await scope.conn.execute(
        "SELECT m.id AS membership_id, m.user_id FROM org_memberships m"
        " JOIN users u ON u.id = m.user_id WHERE m.organization_id = %s"
        " AND m.status <> 'removed' AND lower(u.email) = lower(%s) ORDER BY m.created_at LIMIT 1",
        (scope.org_id, email),
    )
    return await cur.fetchone()


async def convert_preview(scope: OrgScope, lead_id: UUID) -> dict[str, Any]:
    """What converting would do: the lead, and the existing member it would link to (if any)."""
    row = await get_lead_row(scope, lead_id)
    _require_convertible(row)
    return {"name": full_name(row), "existing": await _existing_member(scope, row["email"])}


def _require_convertible(row: dict[str, Any]) -> None:
    _require_movable(row)
    if row["status"] == "lost":
        raise refused("lead_lost", "Reopen this lost lead before converting it.")


async def convert_lead(scope: OrgScope, actor: UUID | None, lead_id: UUID) -> dict[str, Any]:
    """Make the lead a member: an invited membership (or the existing one with that email).

    The lead stays (status converted) and its inbox threads gain the member.
    """
    row = await get_lead_row(scope, lead_id, lock=True)
    _require_convertible(row)
    existing = await _existing_member(scope, row["email"])
    if existing is None:
        cur = await scope.conn.execute(
            "SELECT membership_id, user_id FROM spotter_create_invited_member(%s, %s)",
            (full_name(row), row["email"]),
        )
        member = await cur.fetchone()
        assert member is not None
    else:
        member = existing
    await scope.conn.execute(
        "UPDATE leads SET status = 'converted', converted_user_id = %s, converted_at = now(),"
        " updated_at = now() WHERE id = %s AND organization_id = %s",
        (member["user_id"], lead_id, scope.org_id),
    )
    await scope.conn.execute(
        "UPDATE inbox_threads SET membership_id = %s"
        " WHERE lead_id = %s AND organization_id = %s AND membership_id IS NULL",
        (member["membership_id"], lead_id, scope.org_id),
    )
    await _log(scope, [lead_id], actor, "converted", {"existingMember": existing is not None})
    out = lead_out(await get_lead_row(scope, lead_id))
    out["existingMember"] = existing is not None
    return out


# ---- bulk -----------------------------------------------------------------------------------


async def _live_ids(scope: OrgScope, lead_ids: list[UUID]) -> list[UUID]:
    """All of `lead_ids`, locked, if each is this org's and movable; else the batch is refused."""
    unique = list(dict.fromkeys(lead_ids))
    if not 1 <= len(unique) <= MAX_BULK:
        raise DomainError("invalid_args", f"Give 1 to {MAX_BULK} leads.")
    cur = await scope.conn.execute(
        "SELECT id, status FROM leads WHERE organization_id = %s AND id = ANY(%s)"
        " ORDER BY id FOR UPDATE",
        (scope.org_id, unique),
    )
    rows = {r["id"]: r["status"] for r in await cur.fetchall()}
    missing = [str(i) for i in unique if i not in rows]
    if missing:
        raise DomainError("not_found", "No such lead in this organization.", leadIds=missing)
    closed = [str(i) for i in unique if rows[i] not in LIVE]
    if closed:
        raise refused("lead_not_live", "Converted or archived leads cannot change.", leadIds=closed)
    return unique


async def bulk_preview_count(scope: OrgScope, lead_ids: list[UUID]) -> int:
    """How many leads a bulk change would touch; refuses as the change itself would."""
    return len(await _live_ids(scope, lead_ids))


async def bulk_update(
    scope: OrgScope,
    actor: UUID | None,
    lead_ids: list[UUID],
    *,
    owner_user_id: UUID | None,
    source: str | None,
    status: str | None,
) -> dict[str, Any]:
    if owner_user_id is None and source is None and status is None:
        raise DomainError("invalid_args", "Set an owner, a source or a status.")
    if status is not None and status not in LIVE:
        raise DomainError("invalid_args", "Status is open, won or lost.")
    ids = await _live_ids(scope, lead_ids)
    await scope.conn.execute(
        "UPDATE leads SET owner_user_id = coalesce(%s, owner_user_id),"
        " source = coalesce(%s, source), status = coalesce(%s, status),"
        " lost_reason = CASE WHEN %s::text IS NULL THEN lost_reason END, updated_at = now()"
        " WHERE organization_id = %s AND id = ANY(%s)",
        (owner_user_id, source, status, status, scope.org_id, ids),
    )
    changed = [k for k, v in (("owner", owner_user_id), ("source", source), ("status", status))
               if v is not None]  # fmt: skip
    await _log(scope, ids, actor, "updated", {"fields": changed, "bulk": True})
    return {"updated": len(ids), "leadIds": [str(i) for i in ids]}


async def bulk_tag(
    scope: OrgScope, actor: UUID | None, lead_ids: list[UUID], *, add: list[str],
    remove: list[str],
) -> dict[str, Any]:  # fmt: skip
    adding, removing = normalize_tags(add), normalize_tags(remove)
    if not adding and not removing:
        raise DomainError("invalid_args", "Give tags to add or remove.")
    if set(adding) & set(removing):
        raise DomainError("invalid_args", "A tag cannot be both added and removed.")
    ids = await _live_ids(scope, lead_ids)
    cur = await scope.conn.execute(
        "UPDATE leads SET tags = ARRAY(SELECT DISTINCT ON (t) t FROM unnest(tags || %s::text[])"
        "   WITH ORDINALITY AS x(t, n) WHERE NOT t = ANY(%s::text[]) ORDER BY t, n),"
        " updated_at = now() WHERE organization_id = %s AND id = ANY(%s)"
        " AND cardinality(ARRAY(SELECT DISTINCT t FROM unnest(tags || %s::text[]) AS t)) <= %s",
        (adding, removing, scope.org_id, ids, adding, MAX_TAGS),
    )
    if cur.rowcount != len(ids):
        raise DomainError("invalid_args", f"A lead has at most {MAX_TAGS} tags.")
    await _log(scope, ids, actor, "tagged", {"tags": adding, "removed": removing, "bulk": True})
    return {"updated": len(ids), "added": adding, "removed": removing}


async def bulk_move(
    scope: OrgScope, actor: UUID | None, lead_ids: list[UUID], stage_id: UUID
) -> dict[str, Any]:
    stage = await pipelines.get_stage(scope, stage_id)
    ids = await _live_ids(scope, lead_ids)
    await scope.conn.execute(
        "UPDATE leads SET pipeline_id = %s, stage_id = %s, updated_at = now()"
        " WHERE organization_id = %s AND id = ANY(%s)",
        (stage["pipeline_id"], stage_id, scope.org_id, ids),
    )
    await _log(scope, ids, actor, "moved", {"to": stage["name"], "bulk": True})
    return {"moved": len(ids), "stage": {"id": str(stage_id), "name": stage["name"]}}


async def email_recipients(scope: OrgScope, lead_ids: list[UUID]) -> dict[str, Any]:
    """Who a bulk email reaches: this org's leads (not archived) that have an email."""
    unique = list(dict.fromkeys(lead_ids))
    if not 1 <= len(unique) <= MAX_BULK:
        raise DomainError("invalid_args", f"Give 1 to {MAX_BULK} leads.")
    cur = await scope.conn.execute(
        "SELECT id, first_name, last_name, email, status FROM leads"
        " WHERE organization_id = %s AND id = ANY(%s) ORDER BY id",
        (scope.org_id, unique),
    )
    rows = {r["id"]: r for r in await cur.fetchall()}
    missing = [str(i) for i in unique if i not in rows]
    if missing:
        raise DomainError("not_found", "No such lead in this organization.", leadIds=missing)
    reachable = [r for r in rows.values() if r["email"] and r["status"] != "archived"]
    if not reachable:
        raise refused("no_recipients", "None of these leads has an email address.")
    return {"recipients": reachable, "skipped": len(unique) - len(reachable)}


async def log_emailed(
    scope: OrgScope, actor: UUID | None, lead_ids: list[UUID], subject: str
) -> None:
    await _log(scope, lead_ids, actor, "emailed", {"subjectChars": len(subject)})


async def contacts_of_person(
    scope: OrgScope, user_id: UUID, email: str | None
) -> list[dict[str, Any]]:
    """The contact fields of the leads that are this person (converted into them, or carrying
    their email): how else they may be named (erasure reads them before `erase_person`)."""
    cur = await scope.conn.execute(
        "SELECT first_name, last_name, email, phone FROM leads WHERE organization_id = %s"
        " AND (converted_user_id = %s OR lower(email) = lower(%s))",
        (scope.org_id, user_id, email),
    )
    return list(await cur.fetchall())


async def erase_person(scope: OrgScope, user_id: UUID) -> None:
    """Member erasure: the leads converted into this person or carrying their email go (with
    their notes, activity, inbox threads and tasks); their staff references are cleared."""
    await scope.conn.execute(
        "DELETE FROM leads WHERE organization_id = %s AND (converted_user_id = %s"
        " OR lower(email) = (SELECT lower(email) FROM users WHERE id = %s))",
        (scope.org_id, user_id, user_id),
    )
    await scope.conn.execute(
        "UPDATE leads SET owner_user_id = NULL WHERE organization_id = %s AND owner_user_id = %s",
        (scope.org_id, user_id),
    )
    for table, column in (("lead_notes", "author_user_id"), ("lead_activities", "actor_user_id")):
        await scope.conn.execute(
            f"UPDATE {table} SET {column} = NULL WHERE organization_id = %s AND {column} = %s",
            (scope.org_id, user_id),
        )
