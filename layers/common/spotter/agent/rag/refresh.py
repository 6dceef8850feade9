"""Keeping embeddings current: after a run's writes (best effort) and by the backfill command.

`search_documents` is kept current by triggers; what goes stale is its embedding (by content
hash). Both paths call `refresh_embeddings` batch by batch, each batch in its own transaction.
"""

from __future__ import annotations

import asyncio
from uuid import UUID

from spotter.agent.rag.search import refresh_embeddings
from spotter.db import Database
from spotter.observability import log_event
from spotter.providers.embeddings import Embedder

BATCH = 64
# After a run: a handful of changed records at most; never let a slow provider hold the stream.
AFTER_RUN_BUDGET_SECONDS = 5.0


async def refresh_org(db: Database, org_id: UUID, embedder: Embedder, *, batch: int = BATCH) -> int:
    """Embed every stale document of one org; returns how many were embedded."""
    total = 0
    while True:
        async with db.org_tx(org_id) as conn:
            done = await refresh_embeddings(conn, org_id, embedder, batch)
        total += done
        if done < batch:
            return total


async def refresh_after_run(db: Database, org_id: UUID, embedder: Embedder) -> int:
    """Best effort, after `done`: a failure or a timeout is logged and leaves rows stale (the
    next write or the backfill embeds them); it never fails the run."""
    try:
        return await asyncio.wait_for(refresh_org(db, org_id, embedder), AFTER_RUN_BUDGET_SECONDS)
    except Exception as exc:
        log_event("rag.refresh_failed", level="warning", error=type(exc).__name__)
        return 0


async def backfill(db: Database, org_ids: list[UUID], embedder: Embedder) -> int:
    total = 0
    for org_id in org_ids:
        total += await refresh_org(db, org_id, embedder)
    log_event("rag.backfill_done", orgs=len(org_ids), embedded=total)
    return total
