"""Forms: waivers, intake forms and health questionnaires, with versions and submissions.

A form is a family of versions (`forms` → `form_versions`). Members sign one exact version, so a
published version never changes: every edit lands in the form's one draft, opened from the
published version when there is none. Publishing lints the draft first and supersedes the
previous version. Archiving is family-wide (the form row); deleting is refused while any
submission exists (`form_has_submissions`). Signing happens in the member app, not here.

Every entry point applies the compliance org-type gate (`form_compliance`).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any
from uuid import UUID

from spotter.db.scope import OrgScope
from spotter.domain.errors import DomainError, not_found
from spotter.domain.form_compliance import is_health_field, require_forms, require_kind
from spotter.domain.form_fields import check_answers, check_field, lint

_FORM = (
    "f.id, f.kind, f.name, f.required, f.status, f.archived_at, f.created_at, f.updated_at,"
    " (SELECT max(v.version) FILTER (WHERE v.status = 'published') FROM form_versions v"
    "   WHERE v.form_id = f.id) AS published_version,"
    " (SELECT v.version FROM form_versions v WHERE v.form_id = f.id AND v.status = 'draft')"
    "   AS draft_version,"
    " (SELECT count(*) FROM form_submissions s WHERE s.form_id = f.id) AS submissions"
)
_VERSION = "id, form_id, version, title, body, fields, status, published_at, created_at, updated_at"


def form_out(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": str(row["id"]),
        "kind": row["kind"],
        "name": row["name"],
        "required": row["required"],
        "status": row["status"],
        "publishedVersion": row["published_version"],
        "draftVersion": row["draft_version"],
        "submissions": int(row["submissions"]),
    }


def version_out(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "version": row["version"],
        "status": row["status"],
        "title": row["title"],
        "body": row["body"],
        "fields": row["fields"],
        "publishedAt": row["published_at"].isoformat() if row["published_at"] else None,
    }


async def _one(scope: OrgScope, query: str, params: tuple[Any, ...]) -> dict[str, Any] | None:
    cur = await scope.conn.execute(query, params)
    return await cur.fetchone()


async def get_form(scope: OrgScope, form_id: UUID) -> dict[str, Any]:
    await require_forms(scope)
    row = await _one(
        scope,
        f"SELECT {_FORM} FROM forms f WHERE f.id = %s AND f.organization_id = %s",
        (form_id, scope.org_id),
    )
    if row is None:
        raise not_found("form")
    return row


async def _lock_form(scope: OrgScope, form_id: UUID) -> dict[str, Any]:
    """The form, locked for this transaction: version changes of one form run one at a time."""
    row = await _one(
        scope,
        "SELECT id FROM forms WHERE id = %s AND organization_id = %s FOR UPDATE",
        (form_id, scope.org_id),
    )
    if row is None:
        raise not_found("form")
    return await get_form(scope, form_id)


def _require_active(form: dict[str, Any]) -> None:
    if form["status"] != "active":
        raise DomainError("conflict", f"{form['name']} is archived; restore it first.")


async def list_forms(
    scope: OrgScope, *, kind: str | None = None, include_archived: bool = False
) -> list[dict[str, Any]]:
    await require_forms(scope)
    cur = await scope.conn.execute(
        f"SELECT {_FORM} FROM forms f WHERE f.organization_id = %s"
        " AND (%s::text IS NULL OR f.kind = %s) AND (%s OR f.status = 'active')"
        " ORDER BY f.status, lower(f.name)",
        (scope.org_id, kind, kind, include_archived),
    )
    return await cur.fetchall()


async def get_version(scope: OrgScope, form_id: UUID, version: int | None = None) -> dict[str, Any]:
    """One version; without a number, the draft if there is one, else the published version."""
    await get_form(scope, form_id)
    row = await _one(
        scope,
        f"SELECT {_VERSION} FROM form_versions WHERE form_id = %s AND organization_id = %s"
        " AND (%s::int IS NULL AND status IN ('draft', 'published') OR version = %s)"
        " ORDER BY (status = 'draft') DESC LIMIT 1",
        (form_id, scope.org_id, version, version),
    )
    if row is None:
        raise not_found("form version")
    return row


async def list_versions(scope: OrgScope, form_id: UUID) -> list[dict[str, Any]]:
    await get_form(scope, form_id)
    cur = await scope.conn.execute(
        "SELECT v.version, v.status, v.title, v.published_at,"
        " (SELECT count(*) FROM form_submissions s WHERE s.form_version_id = v.id) AS submissions"
        " FROM form_versions v WHERE v.form_id = %s AND v.organization_id = %s"
        " ORDER BY v.version DESC",
        (form_id, scope.org_id),
    )
    return await cur.fetchall()


async def _name_taken(scope: OrgScope, name: str, except_id: UUID | None) -> bool:
    row = await _one(
        scope,
        "SELECT 1 FROM forms WHERE organization_id = %s AND status = 'active'"
        " AND lower(name) = lower(%s) AND id IS DISTINCT FROM %s",
        (scope.org_id, name, except_id),
    )
    return row is not None


async def create_form(
    scope: OrgScope,
    *,
    kind: str,
    name: str,
    title: str | None = None,
    body: str = "",
    fields: list[dict[str, Any]] | None = None,
    required: bool = False,
    created_by: UUID | None = None,
) -> dict[str, Any]:
    """A new form with version 1 as its draft."""
    await require_kind(scope, kind)
    checked = [check_field(f) for f in fields or []]
    if await _name_taken(scope, name, None):
        raise DomainError("conflict", f"A form named {name!r} already exists.")
    form = await _one(
        scope,
        "INSERT INTO forms (organization_id, kind, name, required, created_by)"
        " VALUES (%s, %s, %s, %s, %s) RETURNING id",
        (scope.org_id, kind, name, required, created_by),
    )
    assert form is not None
    await scope.conn.execute(
        "INSERT INTO form_versions (organization_id, form_id, version, title, body, fields)"
        " VALUES (%s, %s, 1, %s, %s, %s)",
        (scope.org_id, form["id"], title or name, body, json.dumps(checked)),
    )
    return await get_form(scope, form["id"])


async def _draft(scope: OrgScope, form: dict[str, Any]) -> dict[str, Any]:
    """The form's draft, opened as the next version (a copy of the published one) if missing."""
    _require_active(form)
    found = await _one(
        scope,
        f"SELECT {_VERSION} FROM form_versions WHERE form_id = %s AND organization_id = %s"
        " AND status = 'draft'",
        (form["id"], scope.org_id),
    )
    if found is not None:
        return found
    opened = await _one(
        scope,
        "INSERT INTO form_versions (organization_id, form_id, version, title, body, fields)"
        " SELECT organization_id, form_id, version + 1, title, body, fields FROM form_versions"
        " WHERE form_id = %s AND organization_id = %s AND status = 'published'"
        f" RETURNING {_VERSION}",
        (form["id"], scope.org_id),
    )
    assert opened is not None  # a form always has a draft or a published version
    return opened


async def _save_draft(
    scope: OrgScope, draft: dict[str, Any], *, title: str, body: str, fields: list[dict[str, Any]]
) -> dict[str, Any]:
    row = await _one(
        scope,
        "UPDATE form_versions SET title = %s, body = %s, fields = %s, updated_at = now()"
        " WHERE id = %s AND organization_id = %s AND status = 'draft'"
        f" RETURNING {_VERSION}",
        (title, body, json.dumps(fields), draft["id"], scope.org_id),
    )
    assert row is not None
    return row


async def update_form(
    scope: OrgScope,
    form_id: UUID,
    *,
    name: str | None = None,
    required: bool | None = None,
    title: str | None = None,
    body: str | None = None,
) -> dict[str, Any]:
    """Rename or (un)require the form; retitle or rewrite the draft (opened if needed)."""
    form = await _lock_form(scope, form_id)
    _require_active(form)
    if name is not None and await _name_taken(scope, name, form_id):
        raise DomainError("conflict", f"A form named {name!r} already exists.")
    if name is not None or required is not None:
        await scope.conn.execute(
            "UPDATE forms SET name = coalesce(%s, name), required = coalesce(%s, required),"
            " updated_at = now() WHERE id = %s AND organization_id = %s",
            (name, required, form_id, scope.org_id),
        )
    if title is not None or body is not None:
        draft = await _draft(scope, form)
        await _save_draft(
            scope,
            draft,
            title=title if title is not None else draft["title"],
            body=body if body is not None else draft["body"],
            fields=draft["fields"],
        )
    return await get_form(scope, form_id)


def _position(fields: list[dict[str, Any]], key: str) -> int:
    for index, field in enumerate(fields):
        if field["key"] == key:
            return index
    raise DomainError("not_found", f"The draft has no field {key!r}.", field=key)


async def _edit_fields(
    scope: OrgScope, form_id: UUID, edit: Any
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Apply `edit(fields) -> fields` to the draft's fields; returns (form, saved draft)."""
    form = await _lock_form(scope, form_id)
    draft = await _draft(scope, form)
    fields = edit([dict(f) for f in draft["fields"]])
    saved = await _save_draft(scope, draft, title=draft["title"], body=draft["body"], fields=fields)
    return await get_form(scope, form_id), saved


async def add_field(
    scope: OrgScope, form_id: UUID, field: dict[str, Any], *, position: int | None = None
) -> dict[str, Any]:
    checked = check_field(field)

    def edit(fields: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if any(f["key"] == checked["key"] for f in fields):
            raise DomainError("conflict", f"The draft already has a field {checked['key']!r}.")
        at = len(fields) if position is None else max(0, min(position, len(fields)))
        return [*fields[:at], checked, *fields[at:]]

    return (await _edit_fields(scope, form_id, edit))[1]


async def replace_field(scope: OrgScope, form_id: UUID, field: dict[str, Any]) -> dict[str, Any]:
    """Replace the draft's field that has `field["key"]` (label, type, options... all anew)."""
    checked = check_field(field)

    def edit(fields: list[dict[str, Any]]) -> list[dict[str, Any]]:
        fields[_position(fields, checked["key"])] = checked
        return fields

    return (await _edit_fields(scope, form_id, edit))[1]


async def remove_field(scope: OrgScope, form_id: UUID, key: str) -> dict[str, Any]:
    def edit(fields: list[dict[str, Any]]) -> list[dict[str, Any]]:
        del fields[_position(fields, key)]
        return fields

    return (await _edit_fields(scope, form_id, edit))[1]


async def move_field(scope: OrgScope, form_id: UUID, key: str, position: int) -> dict[str, Any]:
    def edit(fields: list[dict[str, Any]]) -> list[dict[str, Any]]:
        moved = fields.pop(_position(fields, key))
        fields.insert(max(0, min(position, len(fields))), moved)
        return fields

    return (await _edit_fields(scope, form_id, edit))[1]


async def lint_draft(scope: OrgScope, form_id: UUID) -> dict[str, Any]:
    """What keeps the draft from publishing (problems), or that there is no draft to publish."""
    form = await get_form(scope, form_id)
    draft = await _one(
        scope,
        f"SELECT {_VERSION} FROM form_versions WHERE form_id = %s AND organization_id = %s"
        " AND status = 'draft'",
        (form_id, scope.org_id),
    )
    if draft is None:
        return {"version": None, "publishable": False, "problems": [_NO_DRAFT]}
    problems = [p.out() for p in lint(form["kind"], draft["title"], draft["body"], draft["fields"])]
    return {"version": draft["version"], "publishable": not problems, "problems": problems}


_NO_DRAFT = {"code": "no_draft", "message": "Nothing to publish: the form has no draft."}


async def publish(scope: OrgScope, form_id: UUID, *, published_by: UUID | None) -> dict[str, Any]:
    """Lint the draft, then make it the version members sign (the previous one is superseded)."""
    form = await _lock_form(scope, form_id)
    _require_active(form)
    await require_kind(scope, form["kind"])
    report = await lint_draft(scope, form_id)
    if report["version"] is None:
        raise DomainError("conflict", "The form has no draft to publish.")
    if report["problems"]:
        raise DomainError(
            "form_lint_failed", "The draft is not ready to publish.", problems=report["problems"]
        )
    await scope.conn.execute(
        "UPDATE form_versions SET status = 'superseded', updated_at = now()"
        " WHERE form_id = %s AND organization_id = %s AND status = 'published'",
        (form_id, scope.org_id),
    )
    await scope.conn.execute(
        "UPDATE form_versions SET status = 'published', published_at = now(), published_by = %s,"
        " updated_at = now() WHERE form_id = %s AND organization_id = %s AND status = 'draft'",
        (published_by, form_id, scope.org_id),
    )
    return await get_form(scope, form_id)


async def discard_draft(scope: OrgScope, form_id: UUID) -> dict[str, Any]:
    """Drop the draft's unpublished edits; a form that was never published keeps its draft."""
    form = await _lock_form(scope, form_id)
    if form["draft_version"] is None:
        raise DomainError("conflict", "The form has no draft.")
    if form["published_version"] is None:
        raise DomainError(
            "conflict", "The form was never published: delete it instead of its only version."
        )
    await scope.conn.execute(
        "DELETE FROM form_versions WHERE form_id = %s AND organization_id = %s"
        " AND status = 'draft'",
        (form_id, scope.org_id),
    )
    return await get_form(scope, form_id)


async def duplicate(
    scope: OrgScope, form_id: UUID, *, name: str, created_by: UUID | None
) -> dict[str, Any]:
    """A new form whose draft copies this one's latest version (draft, else published)."""
    form = await get_form(scope, form_id)
    source = await get_version(scope, form_id)
    return await create_form(
        scope,
        kind=form["kind"],
        name=name,
        title=source["title"],
        body=source["body"],
        fields=source["fields"],
        required=False,
        created_by=created_by,
    )


async def archive_impact(scope: OrgScope, form_id: UUID) -> dict[str, Any]:
    form = await get_form(scope, form_id)
    versions = await _one(
        scope,
        "SELECT count(*) AS n FROM form_versions WHERE form_id = %s AND organization_id = %s",
        (form_id, scope.org_id),
    )
    return {"form": form, "versions": int(versions["n"]) if versions else 0}


async def set_archived(scope: OrgScope, form_id: UUID, archived: bool) -> dict[str, Any]:
    """Archive the whole family (every version stops being signable), or restore it."""
    form = await _lock_form(scope, form_id)
    if archived and form["status"] == "archived":
        raise DomainError("conflict", f"{form['name']} is already archived.")
    if not archived:
        if form["status"] == "active":
            raise DomainError("conflict", f"{form['name']} is not archived.")
        if await _name_taken(scope, form["name"], form_id):
            raise DomainError("conflict", f"An active form is already named {form['name']!r}.")
    await scope.conn.execute(
        "UPDATE forms SET status = %s, archived_at = CASE WHEN %s THEN now() END,"
        " updated_at = now() WHERE id = %s AND organization_id = %s",
        ("archived" if archived else "active", archived, form_id, scope.org_id),
    )
    return await get_form(scope, form_id)


def require_no_submissions(form: dict[str, Any]) -> None:
    """Signed forms are records: a form with any submission is archived, never deleted."""
    if form["submissions"]:
        raise DomainError(
            "form_has_submissions",
            f"{form['name']} has {form['submissions']} submission(s); archive it instead.",
            submissions=int(form["submissions"]),
        )


async def delete_form(scope: OrgScope, form_id: UUID) -> dict[str, Any]:
    """Delete a form and all its versions; refused while any submission exists."""
    form = await _lock_form(scope, form_id)
    require_no_submissions(form)
    await scope.conn.execute(
        "DELETE FROM forms WHERE id = %s AND organization_id = %s", (form_id, scope.org_id)
    )
    return {"id": str(form_id), "name": form["name"], "deleted": True}


def submission_out(row: dict[str, Any], *, with_answers: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": str(row["id"]),
        "formId": str(row["form_id"]),
        "formName": row["form_name"],
        "formKind": row["form_kind"],
        "version": row["version"],
        "memberId": str(row["membership_id"]) if row["membership_id"] else None,
        "signer": row["signer_name"],
        "signedAt": row["signed_at"].isoformat(),
        "erased": row["erased_at"] is not None,
    }
    if with_answers:
        # each answer says whether it is health data (`form_compliance`): whoever shows it later
        # (a stored output re-read) withholds it from a coach by the same mark
        fields = {f["key"]: f for f in row["fields"]}
        out["answers"] = [
            {
                "field": key,
                "label": fields[key]["label"] if key in fields else key,
                "value": value,
                "health": is_health_field(row["form_kind"], fields.get(key, {"key": key})),
            }
            for key, value in row["answers"].items()
        ]
    return out


_SUBMISSION = (
    "SELECT s.id, s.form_id, f.name AS form_name, f.kind AS form_kind, v.version, v.fields,"
    " s.membership_id,"
    " s.signer_name, s.answers, s.signed_at, s.erased_at"
    " FROM form_submissions s JOIN forms f ON f.id = s.form_id"
    " JOIN form_versions v ON v.id = s.form_version_id WHERE s.organization_id = %(org)s"
)


async def list_submissions(
    scope: OrgScope,
    *,
    form_id: UUID | None = None,
    membership_id: UUID | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    limit: int = 50,
) -> list[dict[str, Any]]:
    await require_forms(scope)
    if form_id is not None:
        await get_form(scope, form_id)
    cur = await scope.conn.execute(
        _SUBMISSION + " AND (%(form)s::uuid IS NULL OR s.form_id = %(form)s)"
        " AND (%(member)s::uuid IS NULL OR s.membership_id = %(member)s)"
        " AND (%(since)s::timestamptz IS NULL OR s.signed_at >= %(since)s)"
        " AND (%(until)s::timestamptz IS NULL OR s.signed_at < %(until)s)"
        " ORDER BY s.signed_at DESC, s.id LIMIT %(limit)s",
        {
            "org": scope.org_id,
            "form": form_id,
            "member": membership_id,
            "since": since,
            "until": until,
            "limit": limit,
        },
    )
    return await cur.fetchall()


async def get_submission(scope: OrgScope, submission_id: UUID) -> dict[str, Any]:
    await require_forms(scope)
    cur = await scope.conn.execute(
        _SUBMISSION + " AND s.id = %(id)s", {"org": scope.org_id, "id": submission_id}
    )
    row = await cur.fetchone()
    if row is None:
        raise not_found("submission")
    return row


async def unsigned_members(scope: OrgScope, form_id: UUID) -> dict[str, Any]:
    """Active members who have not signed the published version (and who signed an older one)."""
    form = await get_form(scope, form_id)
    if form["published_version"] is None:
        raise DomainError("conflict", f"{form['name']} has no published version yet.")
    cur = await scope.conn.execute(
        "SELECT m.id, u.full_name,"
        " EXISTS (SELECT 1 FROM form_submissions s WHERE s.form_id = %(form)s"
        "         AND s.membership_id = m.id) AS signed_older"
        " FROM org_memberships m JOIN users u ON u.id = m.user_id"
        " WHERE m.organization_id = %(org)s AND m.role = 'member' AND m.status = 'active'"
        " AND NOT EXISTS (SELECT 1 FROM form_submissions s JOIN form_versions v"
        "   ON v.id = s.form_version_id WHERE s.membership_id = m.id AND s.form_id = %(form)s"
        "   AND v.status = 'published')"
        " ORDER BY lower(u.full_name)",
        {"org": scope.org_id, "form": form_id},
    )
    rows = await cur.fetchall()
    members = await _one(
        scope,
        "SELECT count(*) AS n FROM org_memberships WHERE organization_id = %s"
        " AND role = 'member' AND status = 'active'",
        (scope.org_id,),
    )
    return {
        "form": form,
        "activeMembers": int(members["n"]) if members else 0,
        "unsigned": [
            {
                "memberId": str(r["id"]),
                "name": r["full_name"],
                "signedOlderVersion": r["signed_older"],
            }
            for r in rows
        ],
    }


async def record_submission(
    scope: OrgScope,
    form_id: UUID,
    membership_id: UUID,
    answers: dict[str, Any],
    *,
    signed_at: datetime | None = None,
) -> dict[str, Any]:
    """A member's signing of the published version (the member app's path, never a tool's)."""
    form = await get_form(scope, form_id)
    _require_active(form)
    version = await _one(
        scope,
        "SELECT id, fields FROM form_versions WHERE form_id = %s AND organization_id = %s"
        " AND status = 'published'",
        (form_id, scope.org_id),
    )
    if version is None:
        raise DomainError("conflict", f"{form['name']} has no published version yet.")
    person = await _one(
        scope,
        "SELECT u.full_name, u.email FROM org_memberships m JOIN users u ON u.id = m.user_id"
        " WHERE m.id = %s AND m.organization_id = %s AND m.status = 'active'",
        (membership_id, scope.org_id),
    )
    if person is None:
        raise not_found("member")
    stored = check_answers(version["fields"], answers)
    row = await _one(
        scope,
        "INSERT INTO form_submissions (organization_id, form_id, form_version_id, membership_id,"
        " signer_name, signer_email, answers, signed_at)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s, coalesce(%s, now())) RETURNING id",
        (
            scope.org_id,
            form_id,
            version["id"],
            membership_id,
            person["full_name"],
            person["email"],
            json.dumps(stored),
            signed_at,
        ),
    )
    assert row is not None
    return await get_submission(scope, row["id"])


async def erase_person(scope: OrgScope, user_id: UUID) -> None:
    """Member erasure's forms step: clear every personal column of the person's submissions in
    this org, keeping the rows (a form's submission counts stay true). Call it before the
    membership row is removed: the submissions are found through it."""
    await scope.conn.execute(
        "UPDATE form_submissions SET membership_id = NULL, signer_name = NULL,"
        " signer_email = NULL, answers = '{}'::jsonb, erased_at = now()"
        " WHERE organization_id = %s AND membership_id IN"
        " (SELECT id FROM org_memberships WHERE organization_id = %s AND user_id = %s)",
        (scope.org_id, scope.org_id, user_id),
    )
