"""Hybrid search over `search_documents`: lexical (pg_trgm + substring) and semantic (pgvector),
blended by reciprocal-rank fusion, at most 3 hits per scope and 5 in all."""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from spotter.db import Conn
from spotter.providers.embeddings import Embedder, vector_literal
from spotter.search.lexical import MIN_TOKEN_SIMILARITY, token_score_sql
from spotter.search.rrf import reciprocal_rank_fusion

SCOPES: tuple[str, ...] = ("program", "workout", "exercise", "member")
PER_SCOPE = 3
TOTAL = 5
RRF_K = 60
# Below this (and MIN_TOKEN_SIMILARITY) a match is a guess too weak to put before the model.
MIN_SEMANTIC_SIMILARITY = 0.45
_CANDIDATES_PER_SCOPE = 5


@dataclass(frozen=True)
class Hit:
    entity: str
    entity_id: UUID
    label: str
    detail: str | None
    score: float


_LEXICAL_SQL = f"""
WITH per_token AS (
  SELECT d.entity, d.entity_id, d.label, d.detail,
         {token_score_sql("t", "lower(d.body)")} AS s
    FROM search_documents d CROSS JOIN unnest(%(tokens)s::text[]) AS t
   WHERE d.organization_id = %(org)s AND d.entity = ANY(%(scopes)s)
), scored AS (
  SELECT entity, entity_id, label, detail, sum(s) AS score
    FROM per_token WHERE s >= %(min)s GROUP BY entity, entity_id, label, detail
), ranked AS (
  SELECT *, row_number() OVER (PARTITION BY entity ORDER BY score DESC, label) AS rank
    FROM scored
)
SELECT entity, entity_id, label, detail, score FROM ranked WHERE rank <= %(k)s
 ORDER BY entity, rank
"""

_SEMANTIC_SQL = """
WITH scored AS (
  SELECT entity, entity_id, label, detail, 1 - (embedding <=> %(q)s::vector) AS score
    FROM search_documents
   WHERE organization_id = %(org)s AND entity = ANY(%(scopes)s)
     AND embedding IS NOT NULL AND embedded_hash = content_hash
), ranked AS (
  SELECT *, row_number() OVER (PARTITION BY entity ORDER BY score DESC, label) AS rank
    FROM scored WHERE score >= %(min)s
)
SELECT entity, entity_id, label, detail, score FROM ranked WHERE rank <= %(k)s
 ORDER BY entity, rank
"""


def _hits(rows: list[dict[str, object]]) -> list[Hit]:
    return [
        Hit(
            entity=str(r["entity"]),
            entity_id=r["entity_id"],  # type: ignore[arg-type]
            label=str(r["label"]),
            detail=r["detail"] if isinstance(r["detail"], str) else None,
            score=float(r["score"]),  # type: ignore[arg-type]
        )
        for r in rows
    ]


async def lexical_search(
    conn: Conn, org_id: UUID, tokens: list[str], scopes: tuple[str, ...] = SCOPES
) -> list[Hit]:
    if not tokens:
        return []
    cur = await conn.execute(
        _LEXICAL_SQL,
        {
            "tokens": tokens,
            "org": org_id,
            "scopes": list(scopes),
            "min": MIN_TOKEN_SIMILARITY,
            "k": _CANDIDATES_PER_SCOPE,
        },
    )
    return _hits(await cur.fetchall())


async def semantic_search(
    conn: Conn, org_id: UUID, query_vector: list[float], scopes: tuple[str, ...] = SCOPES
) -> list[Hit]:
    cur = await conn.execute(
        _SEMANTIC_SQL,
        {
            "q": vector_literal(query_vector),
            "org": org_id,
            "scopes": list(scopes),
            "min": MIN_SEMANTIC_SIMILARITY,
            "k": _CANDIDATES_PER_SCOPE,
        },
    )
    return _hits(await cur.fetchall())


def fuse(*ranked_lists: list[Hit]) -> list[Hit]:
    """Reciprocal-rank fusion within each scope, then ≤ 3 per scope and ≤ 5 overall."""
    first_seen: dict[tuple[str, UUID], Hit] = {}
    rankings: list[list[tuple[str, UUID]]] = []
    for hits in ranked_lists:
        # ranks count within a scope: each list is fused as one ranking per scope
        by_scope: dict[str, list[tuple[str, UUID]]] = {}
        for hit in hits:
            key = (hit.entity, hit.entity_id)
            by_scope.setdefault(hit.entity, []).append(key)
            first_seen.setdefault(key, hit)
        rankings.extend(by_scope.values())
    fused = dict(reciprocal_rank_fusion(*rankings, k=RRF_K))
    ordered = sorted(fused, key=lambda k: (-fused[k], first_seen[k].label))
    per_scope: dict[str, int] = {}
    result: list[Hit] = []
    for key in ordered:
        if per_scope.get(key[0], 0) >= PER_SCOPE:
            continue
        per_scope[key[0]] = per_scope.get(key[0], 0) + 1
        hit = first_seen[key]
        result.append(Hit(hit.entity, hit.entity_id, hit.label, hit.detail, round(fused[key], 6)))
        if len(result) == TOTAL:
            break
    return result


async def refresh_embeddings(conn: Conn, org_id: UUID, embedder: Embedder, batch: int = 64) -> int:
    """Embed documents whose text changed since their embedding; returns how many were done."""
    cur = await conn.execute(
        "SELECT entity, entity_id, body, content_hash FROM search_documents"
        " WHERE organization_id = %s AND embedded_hash IS DISTINCT FROM content_hash"
        " ORDER BY updated_at LIMIT %s",
        (org_id, batch),
    )
    rows = await cur.fetchall()
    if not rows:
        return 0
    vectors = await embedder.embed([str(r["body"]) for r in rows], "document")
    for row, vector in zip(rows, vectors, strict=True):
        # Fenced on the hash we embedded: a concurrent edit leaves the row stale, not wrong.
        await conn.execute(
            "UPDATE search_documents SET embedding = %s::vector, embedded_hash = content_hash"
            " WHERE entity = %s AND entity_id = %s AND organization_id = %s AND content_hash = %s",
            (vector_literal(vector), row["entity"], row["entity_id"], org_id, row["content_hash"]),
        )
    return len(rows)
