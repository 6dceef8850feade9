"""Workouts: a title, a description (the brief), and parts -> sections -> movements (jsonb).

Soft-deleted (`deleted_at`), never removed. For day-grain orgs a program has ONE workout per
date (`upsert_day`), serialized per (program, date) with a transaction advisory lock.
Movements name exercises of the org's library; `resolve_movements` matches them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any
from uuid import UUID

from psycopg.types.json import Jsonb

from spotter.db.scope import OrgScope
from spotter.domain import exercises
from spotter.domain.errors import DomainError, not_found
from spotter.domain.movement_match import MovementIndex
from spotter.domain.programs import get_program

_COLUMNS = (
    "w.id, w.program_id, w.scheduled_on, w.title, w.description, w.parts, w.source_text,"
    " w.scores, w.status, w.created_at, w.updated_at"
)
# A fuzzy match is taken without asking when it scores this well and clearly beats the next.
AUTO_CONFIRM_SCORE = 0.6
AUTO_CONFIRM_MARGIN = 0.15


def workout_out(row: dict[str, Any], *, full: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": str(row["id"]),
        "title": row["title"],
        "date": row["scheduled_on"].isoformat() if row["scheduled_on"] else None,
        "programId": str(row["program_id"]) if row["program_id"] else None,
        "status": row["status"],
    }
    if row.get("program_name"):
        out["programName"] = row["program_name"]
    if row["description"]:
        out["description"] = row["description"]
    if full:
        out["parts"] = row["parts"]
        if row["source_text"]:
            out["sourceText"] = row["source_text"]
        if row["scores"] is not None:
            out["scores"] = row["scores"]
    return out


async def get_workout(scope: OrgScope, workout_id: UUID) -> dict[str, Any]:
    cur = await scope.conn.execute(
        f"SELECT {_COLUMNS} FROM workouts w"
        " WHERE w.id = %s AND w.organization_id = %s AND w.deleted_at IS NULL",
        (workout_id, scope.org_id),
    )
    row = await cur.fetchone()
    if row is None:
        raise not_found("workout")
    return row


async def list_workouts(
    scope: OrgScope,
    *,
    program_id: UUID | None = None,
    date_from: date | None = None,
    date_to: date | None = None,
    query: str | None = None,
    limit: int = 50,
) -> list[dict[str, Any]]:
    """Newest scheduled first; a title query matches substrings and near spellings."""
    cur = await scope.conn.execute(
        f"SELECT {_COLUMNS}, p.name AS program_name FROM workouts w"
        " LEFT JOIN programs p ON p.id = w.program_id AND p.organization_id = w.organization_id"
        " WHERE w.organization_id = %(org)s AND w.deleted_at IS NULL"
        " AND (%(program)s::uuid IS NULL OR w.program_id = %(program)s)"
        " AND (%(from)s::date IS NULL OR w.scheduled_on >= %(from)s)"
        " AND (%(to)s::date IS NULL OR w.scheduled_on <= %(to)s)"
        " AND (%(q)s::text IS NULL OR w.title ILIKE '%%' || %(q)s || '%%'"
        "      OR similarity(lower(w.title), lower(%(q)s)) >= 0.3)"
        " ORDER BY w.scheduled_on DESC NULLS LAST, lower(w.title), w.id LIMIT %(limit)s",
        {
            "org": scope.org_id,
            "program": program_id,
            "from": date_from,
            "to": date_to,
            "q": query,
            "limit": limit,
        },
    )
    return await cur.fetchall()


async def _check_program(scope: OrgScope, program_id: UUID | None) -> None:
    """The program exists here and is active: archived programs take no new workouts."""
    if program_id is not None:
        program = await get_program(scope, program_id)
        if program["status"] != "active":
            raise DomainError("conflict", f"The program {program['name']!r} is archived.")


async def create_workout(
    scope: OrgScope,
    *,
    created_by: UUID,
    title: str,
    description: str | None,
    program_id: UUID | None,
    scheduled_on: date | None,
    parts: list[dict[str, Any]] | None = None,
    source_text: str | None = None,
    scores: list[Any] | None = None,
) -> dict[str, Any]:
    await _check_program(scope, program_id)
    cur = await scope.conn.execute(
        "INSERT INTO workouts (organization_id, program_id, scheduled_on, title, description,"
        " parts, source_text, scores, created_by) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
        f" RETURNING {_COLUMNS.replace('w.', '')}",
        (
            scope.org_id,
            program_id,
            scheduled_on,
            title,
            description,
            Jsonb(parts or []),
            source_text,
            Jsonb(scores) if scores is not None else None,
            created_by,
        ),
    )
    row = await cur.fetchone()
    assert row is not None
    return row


_UNSET: Any = object()


def _scores_value(scores: list[Any] | None) -> Jsonb | None:
    return Jsonb(scores) if scores is not None else None


async def update_workout(
    scope: OrgScope,
    workout_id: UUID,
    *,
    title: str | None = None,
    description: str | None = None,
    program_id: UUID | None = None,
    scheduled_on: date | None = None,
    parts: list[dict[str, Any]] | None = None,
    source_text: str | None = _UNSET,
    scores: list[Any] | None = _UNSET,
) -> dict[str, Any]:
    """Change what is given; `source_text` and `scores` are kept unless passed (None clears)."""
    current = await get_workout(scope, workout_id)
    await _check_program(scope, program_id)
    cur = await scope.conn.execute(
        "UPDATE workouts SET title = %s, description = %s, program_id = %s, scheduled_on = %s,"
        " parts = %s, source_text = %s, scores = %s, updated_at = now()"
        f" WHERE id = %s AND organization_id = %s RETURNING {_COLUMNS.replace('w.', '')}",
        (
            title if title is not None else current["title"],
            description if description is not None else current["description"],
            program_id if program_id is not None else current["program_id"],
            scheduled_on if scheduled_on is not None else current["scheduled_on"],
            Jsonb(parts if parts is not None else current["parts"]),
            current["source_text"] if source_text is _UNSET else source_text,
            _scores_value(current["scores"] if scores is _UNSET else scores),
            workout_id,
            scope.org_id,
        ),
    )
    row = await cur.fetchone()
    assert row is not None
    return row


async def soft_delete_workout(scope: OrgScope, workout_id: UUID) -> dict[str, Any]:
    await get_workout(scope, workout_id)
    cur = await scope.conn.execute(
        "UPDATE workouts SET deleted_at = now(), updated_at = now()"
        f" WHERE id = %s AND organization_id = %s RETURNING {_COLUMNS.replace('w.', '')}",
        (workout_id, scope.org_id),
    )
    row = await cur.fetchone()
    assert row is not None
    return row


@dataclass
class DayWrite:
    row: dict[str, Any]
    replaced_title: str | None  # the title of the day's previous workout, when one was replaced


async def day_workout(
    scope: OrgScope, program_id: UUID, scheduled_on: date
) -> dict[str, Any] | None:
    """The program's ONE workout on that date, if it has one (an archived program: conflict)."""
    await _check_program(scope, program_id)
    cur = await scope.conn.execute(
        f"SELECT {_COLUMNS} FROM workouts w WHERE w.organization_id = %s AND w.program_id = %s"
        " AND w.scheduled_on = %s AND w.deleted_at IS NULL ORDER BY w.created_at LIMIT 1",
        (scope.org_id, program_id, scheduled_on),
    )
    return await cur.fetchone()


async def upsert_day(
    scope: OrgScope,
    *,
    created_by: UUID,
    program_id: UUID,
    scheduled_on: date,
    title: str,
    description: str | None,
    parts: list[dict[str, Any]],
    source_text: str | None,
    scores: list[Any] | None = None,
) -> DayWrite:
    """The program's ONE workout on that date: replaced in place if it exists, else created."""
    # Two writers of the same day must not both insert: serialize them for this transaction.
    await scope.conn.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
        (f"workout-day:{scope.org_id}:{program_id}:{scheduled_on.isoformat()}",),
    )
    existing = await day_workout(scope, program_id, scheduled_on)
    if existing is None:
        row = await create_workout(
            scope,
            created_by=created_by,
            title=title,
            description=description,
            program_id=program_id,
            scheduled_on=scheduled_on,
            parts=parts,
            source_text=source_text,
            scores=scores,
        )
        return DayWrite(row, None)
    row = await update_workout(
        scope,
        existing["id"],
        title=title,
        description=description,
        parts=parts,
        source_text=source_text,
        scores=scores,
    )
    return DayWrite(row, existing["title"])


@dataclass
class Resolved:
    parts: list[dict[str, Any]]
    unresolved: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Resolution:
    """The coach's (or picker's) answer for one movement the first parse could not match."""

    movement_key: str
    mention: str
    exercise_id: UUID


def _attach(movement: dict[str, Any], row: dict[str, Any]) -> None:
    movement["exerciseId"] = str(row["id"])
    movement["name"] = row["name"]


async def resolve_movements(
    scope: OrgScope,
    parts: list[dict[str, Any]],
    *,
    resolutions: Sequence[Resolution] = (),
    fuzzy: bool = True,
) -> Resolved:
    """Match each movement to the library: given id, resolution, exact name, alias, then fuzzy.

    Alias and fuzzy matches are taken but reported (`auto_confirmed_movement`) for review.
    A fuzzy match that is not clearly the best stays unresolved, with its candidates.
    """
    library = await exercises.load_library(scope)
    by_id = {str(row["id"]): row for row in library}
    index = MovementIndex.of(library)
    answers = {r.movement_key: r for r in resolutions}
    result = Resolved(parts=parts)
    for part in parts:
        for section in part["sections"]:
            for movement in section["movements"]:
                _resolve_one(movement, answers, by_id, index)
                _report(movement, result)
    if fuzzy:
        for item in result.unresolved:
            if "candidates" not in item:  # an ambiguous name is asked, not trigram-guessed
                await _fuzzy(scope, item, result, by_id)
        result.unresolved = [m for m in result.unresolved if "exerciseId" not in m]
    else:
        for item in result.unresolved:
            item.pop("candidates", None)  # only parse asks; set_sections stores what it got
    unknown = set(answers) - {m["key"] for m in _movements(parts) if "key" in m}
    if unknown:
        raise DomainError(
            "invalid_args",
            "Resolutions name movements this text does not have.",
            keys=sorted(unknown),
        )
    return result


def _movements(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for part in parts for s in part["sections"] for m in s["movements"]]


def _resolve_one(
    movement: dict[str, Any],
    answers: dict[str, Resolution],
    by_id: dict[str, Any],
    index: MovementIndex,
) -> None:
    movement["asked"] = movement["name"]  # what the coach wrote, for the warning
    answer = answers.get(movement.get("key", ""))
    if answer is not None:
        if answer.mention.strip() not in (movement.get("mention"), movement["name"]):
            raise DomainError(
                "invalid_args",
                f"Resolution {answer.movement_key} says {answer.mention!r}, but that movement"
                f" is {movement.get('mention', movement['name'])!r}.",
            )
        movement["exerciseId"] = str(answer.exercise_id)
    given = movement.get("exerciseId")
    if given is not None:
        row = by_id.get(str(given))
        if row is None:
            raise not_found("exercise")
        _attach(movement, row)
        movement["match"] = "given"
        return
    match = index.match(movement["name"])
    if match is None:
        return
    if match.ambiguous:
        # Two exercises answer to this name: the coach picks, nothing is guessed.
        movement["candidates"] = [
            {"exerciseId": str(row["id"]), "name": row["name"], "score": 1.0} for row in match.rows
        ]
        return
    _attach(movement, dict(match.rows[0]))
    movement["match"] = match.kind


def _report(movement: dict[str, Any], result: Resolved) -> None:
    match = movement.pop("match", None)
    asked = movement.pop("asked")
    if match == "alias":
        result.warnings.append(_auto_confirmed(movement, asked, "alias"))
    elif match is None:
        result.unresolved.append(movement)


def _auto_confirmed(movement: dict[str, Any], asked: str, how: str) -> dict[str, Any]:
    return {
        "code": "auto_confirmed_movement",
        "movementKey": movement.get("key"),
        "mention": movement.get("mention", asked),
        "exercise": movement["name"],
        "match": how,
    }


async def _fuzzy(
    scope: OrgScope, movement: dict[str, Any], result: Resolved, by_id: dict[str, Any]
) -> None:
    candidates = await exercises.fuzzy_candidates(scope, movement["name"])
    top = candidates[0]["score"] if candidates else 0.0
    runner_up = candidates[1]["score"] if len(candidates) > 1 else 0.0
    if top >= AUTO_CONFIRM_SCORE and top - runner_up >= AUTO_CONFIRM_MARGIN:
        asked = movement["name"]
        _attach(movement, by_id[str(candidates[0]["id"])])
        result.warnings.append(_auto_confirmed(movement, asked, "fuzzy"))
        return
    movement["candidates"] = [
        {"exerciseId": str(c["id"]), "name": c["name"], "score": round(float(c["score"]), 2)}
        for c in candidates
    ]


def unresolved_out(result: Resolved) -> list[dict[str, Any]]:
    """What the model needs to ask about each movement still without an exercise."""
    return [
        {
            "movementKey": m.get("key"),
            "mention": m.get("mention", m["name"]),
            "candidates": m.get("candidates", []),
        }
        for m in result.unresolved
    ]


def strip_candidates(parts: list[dict[str, Any]]) -> None:
    """Candidates are for the reply, not the stored workout."""
    for movement in _movements(parts):
        movement.pop("candidates", None)


def strip_keys(parts: list[dict[str, Any]]) -> None:
    """Movement keys only pair a parse with its resolutions; a stored workout has none."""
    for movement in _movements(parts):
        movement.pop("key", None)
