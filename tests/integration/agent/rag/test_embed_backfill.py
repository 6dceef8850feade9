"""`spotter embed-backfill`: every org's stale documents embedded in batches, idempotently."""

from __future__ import annotations

import psycopg

from spotter.agent.rag.refresh import refresh_org
from spotter.cli import _embed_backfill
from spotter.config import Settings
from spotter.db import Database
from spotter.providers.embeddings import VoyageEmbedder
from tests.support.fake_voyage import fake_voyage_server
from tests.support.world import Org, add_person


def stale(url: str) -> dict[object, int]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT organization_id, count(*) FROM search_documents"
            " WHERE embedded_hash IS DISTINCT FROM content_hash GROUP BY 1"
        ).fetchall()
    return {r[0]: int(r[1]) for r in rows}


async def test_backfill_embeds_every_org_and_then_has_nothing_to_do(
    org: Org, other_org: Org, clean_db: str
) -> None:
    add_person(clean_db, org, "Saar Levi")
    add_person(clean_db, other_org, "Dana Levi")
    assert set(stale(clean_db)) == {org.id, other_org.id}
    async with fake_voyage_server() as (base_url, seen):
        settings = Settings(
            environment="test", database_url=clean_db, voyage_api_key="k", voyage_base_url=base_url
        )
        first = await _embed_backfill(settings)
        assert stale(clean_db) == {}
        again = await _embed_backfill(settings)
    assert "in 2 org(s)" in first and first != again
    assert again.startswith("embed-backfill: 0 document(s)")
    assert {s["input_type"] for s in seen} == {"document"}


async def test_without_a_key_the_backfill_says_so(clean_db: str) -> None:
    settings = Settings(environment="test", database_url=clean_db)
    assert "VOYAGE_API_KEY is not set" in await _embed_backfill(settings)


async def test_an_org_is_embedded_batch_by_batch(db: Database, org: Org, clean_db: str) -> None:
    for i in range(5):
        add_person(clean_db, org, f"Member Number{i}")
    async with fake_voyage_server() as (base_url, seen):
        embedder = VoyageEmbedder.from_settings("k", base_url=base_url)
        done = await refresh_org(db, org.id, embedder, batch=2)
    assert stale(clean_db) == {} and done == len([x for s in seen for x in s["input"]])
    assert max(len(s["input"]) for s in seen) == 2
