"""Class types and class sessions: the gym's timetable.

People speak in the org's local time; sessions are stored in UTC. Every conversion goes through
`local_to_utc` / `local_day_bounds` with the org's zone, so DST shifts the UTC instant and never
the wall-clock time a member sees. A session is `draft` (staff only), `published` (bookable) or
`cancelled`; deletion is soft (`deleted_at`) and only for sessions nobody booked.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from uuid import UUID
from zoneinfo import ZoneInfo

from spotter.db.scope import OrgScope
from spotter.domain.errors import DomainError, not_found

MAX_RANGE_DAYS = 31
MAX_BULK_SESSIONS = 200
# Statuses that hold a spot in a session (a no-show still used it).
SPOT_STATUSES = ("booked", "checked_in", "no_show")


# --- local time -------------------------------------------------------------------------------


def local_to_utc(day: date, at: time, tz: ZoneInfo) -> datetime:
    """The UTC instant of a wall-clock time; a time skipped by a DST jump is refused."""
    local = datetime.combine(day, at.replace(tzinfo=None), tzinfo=tz)
    utc = local.astimezone(UTC)
    if utc.astimezone(tz).replace(tzinfo=None) != local.replace(tzinfo=None):
        raise DomainError(
            "invalid_time", f"{day} {at:%H:%M} does not exist in {tz.key} (the clocks jump)."
        )
    return utc


def local_day_bounds(first: date, last: date, tz: ZoneInfo) -> tuple[datetime, datetime]:
    """[first 00:00, last+1 00:00) local, as UTC instants."""
    if last < first:
        raise DomainError("invalid_args", "The end date is before the start date.")
    if (last - first).days >= MAX_RANGE_DAYS:
        raise DomainError("invalid_args", f"A range spans at most {MAX_RANGE_DAYS} days.")
    start = datetime.combine(first, time(0), tzinfo=tz).astimezone(UTC)
    end = datetime.combine(last + timedelta(days=1), time(0), tzinfo=tz).astimezone(UTC)
    return start, end


def local_parts(instant: datetime, tz: ZoneInfo) -> tuple[date, str]:
    local = instant.astimezone(tz)
    return local.date(), f"{local:%H:%M}"


# --- class types ------------------------------------------------------------------------------

_TYPE_COLUMNS = "id, name, description, default_duration_minutes, default_capacity, color"


def class_type_out(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": str(row["id"]),
        "name": row["name"],
        "minutes": row["default_duration_minutes"],
        "capacity": row["default_capacity"],
        "description": row["description"],
    }


async def get_class_type(scope: OrgScope, class_type_id: UUID) -> dict[str, Any]:
    cur = await scope.conn.execute(
        f"SELECT {_TYPE_COLUMNS} FROM class_types"
        " WHERE id = %s AND organization_id = %s AND deleted_at IS NULL",
        (class_type_id, scope.org_id),
    )
    row = await cur.fetchone()
    if row is None:
        raise not_found("class type")
    return row


async def list_class_types(scope: OrgScope) -> list[dict[str, Any]]:
    cur = await scope.conn.execute(
        f"SELECT {_TYPE_COLUMNS} FROM class_types"
        " WHERE organization_id = %s AND deleted_at IS NULL ORDER BY lower(name)",
        (scope.org_id,),
    )
    return await cur.fetchall()


async def create_class_type(
    scope: OrgScope,
    *,
    name: str,
    minutes: int,
    capacity: int | None,
    description: str | None,
) -> dict[str, Any]:
    cur = await scope.conn.execute(
        "SELECT 1 FROM class_types WHERE organization_id = %s AND deleted_at IS NULL"
        " AND lower(name) = lower(%s)",
        (scope.org_id, name),
    )
    if await cur.fetchone() is not None:
        raise DomainError("conflict", f"A class type named {name!r} already exists.")
    cur = await scope.conn.execute(
        "INSERT INTO class_types (organization_id, name, description, default_duration_minutes,"
        f" default_capacity) VALUES (%s, %s, %s, %s, %s) RETURNING {_TYPE_COLUMNS}",
        (scope.org_id, name, description, minutes, capacity),
    )
    row = await cur.fetchone()
    assert row is not None
    return row


# --- sessions: reading ------------------------------------------------------------------------

_SESSION_SELECT = """
SELECT s.id, s.class_type_id, t.name AS class_type, s.starts_at, s.ends_at, s.status,
       s.capacity AS own_capacity, COALESCE(s.capacity, t.default_capacity) AS capacity,
       s.location, s.notes, s.workouts_override, s.cancel_reason,
       (SELECT count(*) FROM bookings b WHERE b.session_id = s.id
          AND b.organization_id = s.organization_id
          AND b.status IN ('booked', 'checked_in', 'no_show')) AS booked,
       (SELECT count(*) FROM bookings b WHERE b.session_id = s.id
          AND b.organization_id = s.organization_id AND b.status = 'waitlisted') AS waitlisted,
       COALESCE((SELECT json_agg(json_build_object('id', c.membership_id, 'name', u.full_name)
                                 ORDER BY u.full_name)
                 FROM class_session_coaches c
                 JOIN org_memberships m
                   ON m.id = c.membership_id AND m.organization_id = c.organization_id
                 JOIN users u ON u.id = m.user_id
                 WHERE c.session_id = s.id AND c.organization_id = s.organization_id),
                '[]'::json) AS coaches
  FROM class_sessions s
  JOIN class_types t ON t.id = s.class_type_id AND t.organization_id = s.organization_id
 WHERE s.organization_id = %s AND s.deleted_at IS NULL
"""


def session_out(row: dict[str, Any], tz: ZoneInfo) -> dict[str, Any]:
    day, start = local_parts(row["starts_at"], tz)
    out: dict[str, Any] = {
        "id": str(row["id"]),
        "classType": row["class_type"],
        "classTypeId": str(row["class_type_id"]),
        "date": day.isoformat(),
        "start": start,
        "end": local_parts(row["ends_at"], tz)[1],
        "status": row["status"],
        "booked": row["booked"],
        "capacity": row["capacity"],
        "waitlisted": row["waitlisted"],
        "coaches": row["coaches"],
    }
    for key in ("location", "notes"):
        if row[key]:
            out[key] = row[key]
    return out


def minutes_of(row: dict[str, Any]) -> int:
    return int((row["ends_at"] - row["starts_at"]).total_seconds() // 60)


async def get_session(scope: OrgScope, session_id: UUID, *, lock: bool = False) -> dict[str, Any]:
    """One live session; `lock` serializes writers on it (bookings, capacity changes)."""
    if lock:
        await scope.conn.execute(
            "SELECT 1 FROM class_sessions WHERE id = %s AND organization_id = %s FOR UPDATE",
            (session_id, scope.org_id),
        )
    cur = await scope.conn.execute(_SESSION_SELECT + " AND s.id = %s", (scope.org_id, session_id))
    row = await cur.fetchone()
    if row is None:
        raise not_found("class session")
    return row


async def get_sessions(scope: OrgScope, session_ids: Sequence[UUID]) -> list[dict[str, Any]]:
    """All of them, in start order, or not_found if any is missing or another org's."""
    cur = await scope.conn.execute(
        _SESSION_SELECT + " AND s.id = ANY(%s) ORDER BY s.starts_at",
        (scope.org_id, list(session_ids)),
    )
    rows = await cur.fetchall()
    if len(rows) != len(set(session_ids)):
        raise not_found("class session")
    return rows


async def list_sessions(
    scope: OrgScope,
    tz: ZoneInfo,
    first: date,
    last: date,
    *,
    class_type_id: UUID | None = None,
    status: str | None = None,
) -> list[dict[str, Any]]:
    start, end = local_day_bounds(first, last, tz)
    cur = await scope.conn.execute(
        _SESSION_SELECT + " AND s.starts_at >= %s AND s.starts_at < %s"
        " AND (%s::uuid IS NULL OR s.class_type_id = %s)"
        " AND (%s::text IS NULL OR s.status = %s)"
        " ORDER BY s.starts_at, t.name",
        (scope.org_id, start, end, class_type_id, class_type_id, status, status),
    )
    return await cur.fetchall()


# --- sessions: rules --------------------------------------------------------------------------


@dataclass(frozen=True)
class SessionDraft:
    """A session about to be written: its type, UTC span and details."""

    class_type_id: UUID
    starts_at: datetime
    ends_at: datetime
    capacity: int | None
    location: str | None
    notes: str | None
    coach_ids: tuple[UUID, ...] = ()


async def validate_coaches(scope: OrgScope, coach_ids: Iterable[UUID]) -> None:
    ids = list(dict.fromkeys(coach_ids))
    if not ids:
        return
    cur = await scope.conn.execute(
        "SELECT id, role FROM org_memberships"
        " WHERE organization_id = %s AND id = ANY(%s) AND status = 'active'",
        (scope.org_id, ids),
    )
    rows = await cur.fetchall()
    if len(rows) != len(ids):
        raise not_found("coach")
    if any(r["role"] == "member" for r in rows):
        raise DomainError("invalid_args", "Only staff (coach, admin, owner) can coach a class.")


async def clash(
    scope: OrgScope, draft: SessionDraft, except_ids: Sequence[UUID] = ()
) -> tuple[str, str] | None:
    """The first overlap with a live session: (`duplicate` | `coach` | `location`, message)."""
    cur = await scope.conn.execute(
        """
        SELECT t.name, s.starts_at,
               (s.class_type_id = %s AND s.starts_at = %s) AS duplicate,
               (SELECT u.full_name FROM class_session_coaches c
                  JOIN org_memberships m
                    ON m.id = c.membership_id AND m.organization_id = c.organization_id
                  JOIN users u ON u.id = m.user_id
                 WHERE c.session_id = s.id AND c.organization_id = s.organization_id
                   AND c.membership_id = ANY(%s) LIMIT 1) AS coach,
               (%s::text IS NOT NULL AND lower(s.location) = lower(%s)) AS same_location
          FROM class_sessions s
          JOIN class_types t ON t.id = s.class_type_id AND t.organization_id = s.organization_id
         WHERE s.organization_id = %s AND s.deleted_at IS NULL AND s.status <> 'cancelled'
           AND s.starts_at < %s AND s.ends_at > %s AND NOT (s.id = ANY(%s))
         ORDER BY s.starts_at
        """,
        (
            draft.class_type_id,
            draft.starts_at,
            list(draft.coach_ids),
            draft.location,
            draft.location,
            scope.org_id,
            draft.ends_at,
            draft.starts_at,
            list(except_ids),
        ),
    )
    for row in await cur.fetchall():
        at = row["starts_at"].isoformat()
        if row["duplicate"]:
            return "duplicate", f"{row['name']} already runs at {at}."
        if row["coach"]:
            return "coach", f"{row['coach']} already coaches {row['name']} at {at}."
        if row["same_location"]:
            return "location", f"{draft.location} is taken by {row['name']} at {at}."
    return None


async def _insert(scope: OrgScope, draft: SessionDraft) -> UUID:
    cur = await scope.conn.execute(
        "INSERT INTO class_sessions (organization_id, class_type_id, starts_at, ends_at, capacity,"
        " location, notes) VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING id",
        (
            scope.org_id,
            draft.class_type_id,
            draft.starts_at,
            draft.ends_at,
            draft.capacity,
            draft.location,
            draft.notes,
        ),
    )
    row = await cur.fetchone()
    assert row is not None
    for coach_id in dict.fromkeys(draft.coach_ids):
        await scope.conn.execute(
            "INSERT INTO class_session_coaches (organization_id, session_id, membership_id)"
            " VALUES (%s, %s, %s)",
            (scope.org_id, row["id"], coach_id),
        )
    return UUID(str(row["id"]))


async def create_sessions(
    scope: OrgScope, drafts: Sequence[SessionDraft], *, skip_duplicates: bool
) -> tuple[list[UUID], int]:
    """Insert drafts (status draft). Any clash is a conflict, except duplicates when skipped."""
    if len(drafts) > MAX_BULK_SESSIONS:
        raise DomainError("invalid_args", f"At most {MAX_BULK_SESSIONS} sessions at once.")
    for class_type_id in {d.class_type_id for d in drafts}:
        await get_class_type(scope, class_type_id)
    await validate_coaches(scope, [c for d in drafts for c in d.coach_ids])
    created: list[UUID] = []
    skipped = 0
    for draft in drafts:
        found = await clash(scope, draft)
        if found and found[0] == "duplicate" and skip_duplicates:
            skipped += 1
            continue
        if found:
            raise DomainError("conflict", found[1], clash=found[0])
        created.append(await _insert(scope, draft))
    return created, skipped


async def draft_for(
    scope: OrgScope,
    tz: ZoneInfo,
    class_type_id: UUID,
    day: date,
    at: time,
    *,
    minutes: int | None,
    capacity: int | None,
    location: str | None,
    notes: str | None,
    coach_ids: Sequence[UUID],
) -> SessionDraft:
    """A draft at a local date and time, with the class type's defaults for what is not given."""
    class_type = await get_class_type(scope, class_type_id)
    starts = local_to_utc(day, at, tz)
    length = minutes or class_type["default_duration_minutes"]
    return SessionDraft(
        class_type_id=class_type_id,
        starts_at=starts,
        ends_at=starts + timedelta(minutes=length),
        capacity=capacity if capacity is not None else class_type["default_capacity"],
        location=location,
        notes=notes,
        coach_ids=tuple(coach_ids),
    )


async def copy_days(
    scope: OrgScope,
    tz: ZoneInfo,
    pairs: Sequence[tuple[date, date]],
    class_type_id: UUID | None,
) -> tuple[list[UUID], int]:
    """Copy each live session of `from` day to `to` day at the same local time, as drafts."""
    drafts: list[SessionDraft] = []
    for source_day, target_day in pairs:
        rows = await list_sessions(scope, tz, source_day, source_day, class_type_id=class_type_id)
        for row in rows:
            if row["status"] == "cancelled":
                continue
            starts = local_to_utc(target_day, row["starts_at"].astimezone(tz).time(), tz)
            drafts.append(
                SessionDraft(
                    class_type_id=row["class_type_id"],
                    starts_at=starts,
                    ends_at=starts + (row["ends_at"] - row["starts_at"]),
                    capacity=row["own_capacity"],
                    location=row["location"],
                    notes=row["notes"],
                    coach_ids=tuple(UUID(str(c["id"])) for c in row["coaches"]),
                )
            )
    return await create_sessions(scope, drafts, skip_duplicates=True)


# --- sessions: changes ------------------------------------------------------------------------


async def set_status(scope: OrgScope, session_ids: Sequence[UUID], status: str) -> list[UUID]:
    """Publish (draft → published) or unpublish (published → draft); returns the changed ids."""
    rows = await get_sessions(scope, session_ids)
    if any(r["status"] == "cancelled" for r in rows):
        raise DomainError("conflict", "A cancelled session cannot be published or unpublished.")
    if status == "draft" and any(r["booked"] or r["waitlisted"] for r in rows):
        raise DomainError("conflict", "A session with bookings cannot go back to draft.")
    source = "published" if status == "draft" else "draft"
    cur = await scope.conn.execute(
        "UPDATE class_sessions SET status = %s, updated_at = now(),"
        " published_at = CASE WHEN %s = 'published' THEN now() ELSE published_at END"
        " WHERE organization_id = %s AND id = ANY(%s) AND status = %s AND deleted_at IS NULL"
        " RETURNING id",
        (status, status, scope.org_id, list(session_ids), source),
    )
    return [UUID(str(r["id"])) for r in await cur.fetchall()]


async def draft_ids_in_range(
    scope: OrgScope, tz: ZoneInfo, first: date, last: date, class_type_id: UUID | None
) -> list[UUID]:
    rows = await list_sessions(scope, tz, first, last, class_type_id=class_type_id, status="draft")
    return [UUID(str(r["id"])) for r in rows]


async def soft_delete(scope: OrgScope, session_ids: Sequence[UUID]) -> list[UUID]:
    rows = await get_sessions(scope, session_ids)
    if any(r["booked"] or r["waitlisted"] for r in rows):
        raise DomainError("conflict", "Sessions with bookings are cancelled, not deleted.")
    await scope.conn.execute(
        "UPDATE class_sessions SET deleted_at = now(), updated_at = now()"
        " WHERE organization_id = %s AND id = ANY(%s)",
        (scope.org_id, list(session_ids)),
    )
    return [UUID(str(r["id"])) for r in rows]


async def restore(scope: OrgScope, session_ids: Sequence[UUID]) -> list[UUID]:
    """Undelete; refused if the slot was taken meanwhile (same class, coach or location)."""
    cur = await scope.conn.execute(
        "SELECT s.id, s.class_type_id, s.starts_at, s.ends_at, s.location, s.status,"
        " ARRAY(SELECT c.membership_id FROM class_session_coaches c"
        "       WHERE c.session_id = s.id AND c.organization_id = s.organization_id) AS coaches"
        " FROM class_sessions s WHERE s.organization_id = %s AND s.id = ANY(%s)"
        " AND s.deleted_at IS NOT NULL",
        (scope.org_id, list(session_ids)),
    )
    for row in await cur.fetchall():
        if row["status"] == "cancelled":
            continue
        draft = SessionDraft(
            row["class_type_id"],
            row["starts_at"],
            row["ends_at"],
            None,
            row["location"],
            None,
            tuple(row["coaches"]),
        )
        found = await clash(scope, draft, list(session_ids))
        if found:
            raise DomainError("conflict", found[1], clash=found[0])
    cur = await scope.conn.execute(
        "UPDATE class_sessions SET deleted_at = NULL, updated_at = now()"
        " WHERE organization_id = %s AND id = ANY(%s) AND deleted_at IS NOT NULL RETURNING id",
        (scope.org_id, list(session_ids)),
    )
    restored = [UUID(str(r["id"])) for r in await cur.fetchall()]
    if len(restored) != len(set(session_ids)):
        raise not_found("deleted class session")
    return restored


async def cancellable(
    scope: OrgScope, session_ids: Sequence[UUID], now: datetime
) -> list[dict[str, Any]]:
    """The sessions, if every one can still be cancelled (not cancelled, not started)."""
    rows = await get_sessions(scope, session_ids)
    if any(r["status"] == "cancelled" for r in rows):
        raise DomainError("conflict", "A session in the list is already cancelled.")
    if any(r["starts_at"] <= now for r in rows):
        raise DomainError("conflict", "A session that has started cannot be cancelled.")
    return rows


async def mark_cancelled(
    scope: OrgScope, session_ids: Sequence[UUID], reason: str | None, now: datetime
) -> None:
    await cancellable(scope, session_ids, now)
    await scope.conn.execute(
        "UPDATE class_sessions SET status = 'cancelled', cancelled_at = now(), cancel_reason = %s,"
        " updated_at = now() WHERE organization_id = %s AND id = ANY(%s)",
        (reason, scope.org_id, list(session_ids)),
    )


async def plan_move(
    scope: OrgScope, tz: ZoneInfo, row: dict[str, Any], day: date, at: time, minutes: int
) -> SessionDraft:
    """Where a session would go (same coaches and location), if nothing clashes there."""
    if row["status"] == "cancelled":
        raise DomainError("conflict", "A cancelled session cannot be rescheduled.")
    starts = local_to_utc(day, at, tz)
    draft = SessionDraft(
        class_type_id=row["class_type_id"],
        starts_at=starts,
        ends_at=starts + timedelta(minutes=minutes),
        capacity=None,
        location=row["location"],
        notes=None,
        coach_ids=tuple(UUID(str(c["id"])) for c in row["coaches"]),
    )
    found = await clash(scope, draft, [row["id"]])
    if found:
        raise DomainError("conflict", found[1], clash=found[0])
    return draft


async def move(
    scope: OrgScope, tz: ZoneInfo, session_id: UUID, day: date, at: time, minutes: int
) -> dict[str, Any]:
    """Reschedule to a local date and time; returns the previous slot (for undo)."""
    row = await get_session(scope, session_id, lock=True)
    draft = await plan_move(scope, tz, row, day, at, minutes)
    await scope.conn.execute(
        "UPDATE class_sessions SET starts_at = %s, ends_at = %s, updated_at = now()"
        " WHERE id = %s AND organization_id = %s",
        (draft.starts_at, draft.ends_at, session_id, scope.org_id),
    )
    old_day, old_start = local_parts(row["starts_at"], tz)
    return {"day": old_day.isoformat(), "start": old_start, "minutes": minutes_of(row)}


async def update_details(
    scope: OrgScope,
    session_id: UUID,
    *,
    capacity: int | None,
    location: str | None,
    notes: str | None,
) -> None:
    row = await get_session(scope, session_id, lock=True)
    if row["status"] == "cancelled":
        raise DomainError("conflict", "A cancelled session cannot be changed.")
    if capacity is not None and capacity < row["booked"]:
        raise DomainError(
            "conflict", f"{row['booked']} members are booked; capacity cannot go below that."
        )
    if location is not None:
        draft = SessionDraft(
            row["class_type_id"], row["starts_at"], row["ends_at"], None, location, None
        )
        found = await clash(scope, draft, [session_id])
        if found and found[0] == "location":
            raise DomainError("conflict", found[1], clash="location")
    await scope.conn.execute(
        "UPDATE class_sessions SET capacity = COALESCE(%s, capacity),"
        " location = COALESCE(%s, location), notes = COALESCE(%s, notes), updated_at = now()"
        " WHERE id = %s AND organization_id = %s",
        (capacity, location, notes, session_id, scope.org_id),
    )


async def check_coaches(scope: OrgScope, row: dict[str, Any], coach_ids: Sequence[UUID]) -> None:
    """Whether these staff may coach this session: active staff, none coaching elsewhere then."""
    await validate_coaches(scope, coach_ids)
    draft = SessionDraft(
        row["class_type_id"], row["starts_at"], row["ends_at"], None, None, None, tuple(coach_ids)
    )
    found = await clash(scope, draft, [row["id"]])
    if found and found[0] == "coach":
        raise DomainError("conflict", found[1], clash="coach")


async def replace_coaches(
    scope: OrgScope, session_id: UUID, coach_ids: Sequence[UUID]
) -> list[str]:
    """Set a session's coaches (overlaps refused); returns the previous coach ids."""
    row = await get_session(scope, session_id, lock=True)
    await check_coaches(scope, row, coach_ids)
    await scope.conn.execute(
        "DELETE FROM class_session_coaches WHERE session_id = %s AND organization_id = %s",
        (session_id, scope.org_id),
    )
    for coach_id in dict.fromkeys(coach_ids):
        await scope.conn.execute(
            "INSERT INTO class_session_coaches (organization_id, session_id, membership_id)"
            " VALUES (%s, %s, %s)",
            (scope.org_id, session_id, coach_id),
        )
    return [str(c["id"]) for c in row["coaches"]]


async def substitute_coach(
    scope: OrgScope,
    tz: ZoneInfo,
    from_coach: UUID,
    to_coach: UUID,
    first: date,
    last: date,
) -> list[UUID]:
    """Hand `from_coach`'s live sessions in the range to `to_coach`; returns the sessions moved."""
    await validate_coaches(scope, [from_coach, to_coach])
    moved: list[UUID] = []
    for row in await list_sessions(scope, tz, first, last):
        coach_ids = [UUID(str(c["id"])) for c in row["coaches"]]
        if row["status"] == "cancelled" or from_coach not in coach_ids:
            continue
        new_ids = [to_coach if c == from_coach else c for c in coach_ids]
        await replace_coaches(scope, UUID(str(row["id"])), new_ids)
        moved.append(UUID(str(row["id"])))
    return moved


async def problems(scope: OrgScope, tz: ZoneInfo, first: date, last: date) -> list[dict[str, Any]]:
    """What needs attention in a range: drafts, sessions without a coach, coach overlaps."""
    found: list[dict[str, Any]] = []
    for row in await list_sessions(scope, tz, first, last):
        if row["status"] == "cancelled":
            continue
        kinds = []
        if row["status"] == "draft":
            kinds.append("draft")
        if not row["coaches"]:
            kinds.append("no_coach")
        else:
            draft = SessionDraft(
                row["class_type_id"],
                row["starts_at"],
                row["ends_at"],
                None,
                None,
                None,
                tuple(UUID(str(c["id"])) for c in row["coaches"]),
            )
            hit = await clash(scope, draft, [row["id"]])
            if hit and hit[0] == "coach":
                kinds.append("coach_overlap")
        if kinds:
            day, start = local_parts(row["starts_at"], tz)
            found.append(
                {
                    "sessionId": str(row["id"]),
                    "classType": row["class_type"],
                    "date": day.isoformat(),
                    "start": start,
                    "problems": kinds,
                }
            )
    return found
