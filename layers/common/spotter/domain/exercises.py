"""The org's exercise library: movements with aliases (abbreviations, Hebrew names)."""

from __future__ import annotations

from typing import Any

from spotter.db.scope import OrgScope
from spotter.domain.movement_vocabulary import normalize

_COLUMNS = "id, name, aliases, category, equipment"
# Trigram score (0..1) at which a library movement is offered as a candidate at all.
CANDIDATE_SCORE = 0.3


def exercise_out(row: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"id": str(row["id"]), "name": row["name"]}
    for key in ("aliases", "category", "equipment"):
        if row.get(key):
            out[key] = row[key]
    return out


# A stored name in the form `normalize` gives a query (plurals aside: library names are singular).
_FOLDED = "regexp_replace(lower({}), '[-_.,]+', ' ', 'g')"
_SCORE = (
    "greatest(similarity(lower(name), %(q)s),"
    " coalesce((SELECT max(similarity(lower(a), %(q)s)) FROM unnest(aliases) a), 0))"
)


async def search_exercises(
    scope: OrgScope, *, query: str | None, category: str | None, limit: int
) -> list[dict[str, Any]]:
    """By name or alias: substring or trigram-close, best first; the whole library by name."""
    q = normalize(query) if query else None
    cur = await scope.conn.execute(
        f"SELECT {_COLUMNS}, CASE WHEN %(q)s::text IS NULL THEN 0 ELSE {_SCORE} END AS score"
        " FROM exercises WHERE organization_id = %(org)s AND deleted_at IS NULL"
        " AND (%(category)s::text IS NULL OR lower(category) = lower(%(category)s))"
        f" AND (%(q)s::text IS NULL OR strpos({_FOLDED.format('name')}, %(q)s) > 0"
        "      OR EXISTS (SELECT 1 FROM unnest(aliases) a"
        f"                WHERE strpos({_FOLDED.format('a')}, %(q)s) > 0)"
        f"     OR {_SCORE} >= %(min)s)"
        " ORDER BY score DESC, lower(name) LIMIT %(limit)s",
        {"q": q, "org": scope.org_id, "category": category, "min": CANDIDATE_SCORE, "limit": limit},
    )
    return await cur.fetchall()


async def load_library(scope: OrgScope) -> list[dict[str, Any]]:
    cur = await scope.conn.execute(
        f"SELECT {_COLUMNS} FROM exercises WHERE organization_id = %s AND deleted_at IS NULL"
        " ORDER BY lower(name)",
        (scope.org_id,),
    )
    return await cur.fetchall()


async def fuzzy_candidates(scope: OrgScope, mention: str, limit: int = 5) -> list[dict[str, Any]]:
    """Library movements trigram-close to `mention` (pg_trgm), best first, with their score."""
    cur = await scope.conn.execute(
        f"SELECT id, name, {_SCORE} AS score FROM exercises"
        " WHERE organization_id = %(org)s AND deleted_at IS NULL"
        f" AND {_SCORE} >= %(min)s ORDER BY score DESC, lower(name) LIMIT %(limit)s",
        {"q": normalize(mention), "org": scope.org_id, "min": CANDIDATE_SCORE, "limit": limit},
    )
    return await cur.fetchall()
