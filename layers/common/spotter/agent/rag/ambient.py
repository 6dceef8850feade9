"""`find_ambient`: on each new user message, entities it probably names, within 800 ms.

It never throws: a timeout, a database error or an embedding failure means no ambient context,
logged by kind only. Without an embedder it runs lexical-only (said once in the log).
"""

from __future__ import annotations

import asyncio
from uuid import UUID

from spotter.agent.rag.search import Hit, fuse, lexical_search, semantic_search
from spotter.agent.rag.stopwords import query_tokens
from spotter.db import Database
from spotter.observability import log_event
from spotter.providers.embeddings import Embedder

MIN_QUERY_CHARS = 30
BUDGET_SECONDS = 0.8

_said_lexical_only = False


async def _search(db: Database, org_id: UUID, text: str, embedder: Embedder | None) -> list[Hit]:
    tokens = query_tokens(text)
    embedding = (
        asyncio.create_task(embedder.embed([text], "query")) if embedder is not None else None
    )
    try:
        # read-only and fetched statement by statement: pipelined, BEGIN and the org binding
        # ride with the first search (two round trips instead of four)
        async with db.pipelined_tx(org_id) as conn:
            lexical = await lexical_search(conn, org_id, tokens)
            semantic: list[Hit] = []
            if embedding is not None:
                semantic = await semantic_search(conn, org_id, (await embedding)[0])
    finally:
        if embedding is not None and not embedding.done():
            embedding.cancel()
    return fuse(lexical, semantic)


async def find_ambient(
    db: Database,
    org_id: UUID,
    text: str,
    embedder: Embedder | None,
    *,
    budget_seconds: float = BUDGET_SECONDS,
) -> list[Hit]:
    global _said_lexical_only
    if len(text.strip()) < MIN_QUERY_CHARS:
        return []
    if embedder is None and not _said_lexical_only:
        _said_lexical_only = True
        log_event("rag.lexical_only", reason="VOYAGE_API_KEY is not set")
    try:
        return await asyncio.wait_for(_search(db, org_id, text, embedder), budget_seconds)
    except Exception as exc:  # the message goes on without ambient context, whatever happened
        log_event("rag.skipped", level="warning", error=type(exc).__name__)
        return []


def render_ambient(hits: list[Hit]) -> str:
    """The `<ambient_context>` section of a stored turn context ('' when there are no hits)."""
    if not hits:
        return ""
    lines = ["<ambient_context>", "Possibly relevant records (guesses from the user's words):"]
    for hit in hits:
        detail = f" ({hit.detail})" if hit.detail else ""
        lines.append(f"- {hit.entity} {hit.label!r}{detail} id={hit.entity_id}")
    lines.append("</ambient_context>")
    return "\n".join(lines)
