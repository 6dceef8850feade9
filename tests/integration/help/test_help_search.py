"""Help search on real Postgres: lexical over the shipped corpus, semantic through the real
`voyageai` client against the local fake Voyage server, fused by RRF."""

from __future__ import annotations

import pytest

from spotter.cli import _embed_backfill
from spotter.config import Settings
from spotter.db import Database
from spotter.help.corpus import Article, load_corpus
from spotter.help.search import search_help
from spotter.providers.embeddings import VoyageEmbedder
from tests.support.fake_voyage import fake_voyage_server
from tests.support.world import Org

TINY = (
    Article("engine", "Engine work", ("conditioning",), "Long aerobic pieces on the rower."),
    Article("barbells", "Barbell storage", ("equipment",), "Racks, plates and collars."),
)


@pytest.mark.parametrize(
    ("question", "slug"),
    [
        ("How do I cancel a booking when the class is full?", "bookings-and-waitlist"),
        ("why can't I delete a waiver that members signed", "forms-and-waivers"),
        ("what is our churn rate", "analytics-reports"),
        ("move a lead to another pipeline stage", "leads-and-pipelines"),
        ("undo what the assistant just did", "confirmations-and-undo"),
    ],
)
async def test_a_question_finds_the_article_that_answers_it(
    db: Database, org: Org, question: str, slug: str
) -> None:
    async with db.org_tx(org.id) as conn:
        hits = await search_help(conn, question)
    assert hits[0].article.slug == slug


async def test_a_question_of_only_stopwords_finds_nothing(db: Database, org: Org) -> None:
    async with db.org_tx(org.id) as conn:
        assert await search_help(conn, "how do I do this?") == []


async def test_semantic_search_finds_what_no_word_matches(db: Database, org: Org) -> None:
    async with fake_voyage_server() as (base_url, _):
        embedder = VoyageEmbedder.from_settings("test-key", base_url=base_url)
        async with db.org_tx(org.id) as conn:
            lexical = await search_help(conn, "endurance", corpus=TINY)
            hybrid = await search_help(conn, "endurance", corpus=TINY, embedder=embedder)
    assert lexical == []
    assert [h.article.slug for h in hybrid][:1] == ["engine"]


async def test_article_embeddings_are_stored_once_per_text(db: Database, org: Org) -> None:
    async with fake_voyage_server() as (base_url, seen):
        embedder = VoyageEmbedder.from_settings("test-key", base_url=base_url)
        for _ in range(2):
            async with db.org_tx(org.id) as conn:
                await search_help(conn, "rower", corpus=TINY, embedder=embedder)
    documents = [r for r in seen if r.get("input_type") == "document"]
    assert [len(r["input"]) for r in documents] == [2]  # type: ignore[arg-type]


async def test_an_embedding_failure_leaves_the_search_lexical(db: Database, org: Org) -> None:
    dead = VoyageEmbedder.from_settings("test-key", base_url="http://127.0.0.1:9/v1")
    async with db.org_tx(org.id) as conn:
        hits = await search_help(conn, "barbell plates", corpus=TINY, embedder=dead)
    assert [h.article.slug for h in hits] == ["barbells"]


async def test_embed_backfill_embeds_the_help_corpus_once(clean_db: str) -> None:
    async with fake_voyage_server() as (base_url, _):
        settings = Settings(
            environment="test", database_url=clean_db, voyage_api_key="k", voyage_base_url=base_url
        )
        first = await _embed_backfill(settings)
        again = await _embed_backfill(settings)
    assert first.endswith(f"{len(load_corpus())} help article(s)")
    assert again.endswith(" 0 help article(s)")
