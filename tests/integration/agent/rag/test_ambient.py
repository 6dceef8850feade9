"""Spec "Ambient RAG": hybrid search for what a new message probably names, in 800 ms, never throwing."""

from __future__ import annotations

import asyncio

import psycopg
import pytest

from spotter.agent.rag.ambient import find_ambient, render_ambient
from spotter.agent.rag.search import refresh_embeddings
from spotter.db import Database
from spotter.providers.embeddings import VoyageEmbedder
from tests.support.fake_voyage import fake_voyage_server
from tests.support.world import Org, add_person


def seed(url: str, org: Org) -> None:
    add_person(url, org, "Saar Cohen")
    add_person(url, org, "Saar Levi")
    add_person(url, org, "Dana Levi")
    with psycopg.connect(url) as conn:
        conn.execute(
            "INSERT INTO exercises (organization_id, name, aliases) VALUES"
            " (%(o)s, 'Back Squat', '{BS}'), (%(o)s, 'Pull-up', '{}'), (%(o)s, 'Row', '{}')",
            {"o": org.id},
        )
        conn.execute(
            "INSERT INTO programs (organization_id, name) VALUES (%s, 'Engine Builder')", (org.id,)
        )


async def test_short_messages_skip_search(db: Database, org: Org, clean_db: str) -> None:
    seed(clean_db, org)
    assert await find_ambient(db, org.id, "book Saar", None) == []


async def test_lexical_search_finds_both_people_named_alike(
    db: Database, org: Org, clean_db: str
) -> None:
    seed(clean_db, org)
    hits = await find_ambient(
        db, org.id, "please book Saar into tomorrow's 7am class", None, budget_seconds=10
    )
    assert {h.label for h in hits if h.entity == "member"} == {"Saar Cohen", "Saar Levi"}


async def test_full_name_ranks_the_exact_person_first(
    db: Database, org: Org, clean_db: str
) -> None:
    seed(clean_db, org)
    hits = await find_ambient(
        db, org.id, "move Saar Levi to the evening session please", None, budget_seconds=10
    )
    assert hits[0].label == "Saar Levi"


async def test_hebrew_names_are_found(db: Database, org: Org, clean_db: str) -> None:
    add_person(clean_db, org, "דנה לוי")
    hits = await find_ambient(
        db, org.id, "תרשום את דנה לוי לאימון של מחר בבוקר בבקשה", None, budget_seconds=10
    )
    assert [h.label for h in hits] == ["דנה לוי"]


async def test_other_orgs_records_are_never_hits(
    db: Database, org: Org, other_org: Org, clean_db: str
) -> None:
    seed(clean_db, other_org)
    assert (
        await find_ambient(
            db, org.id, "please book Saar into tomorrow's 7am class", None, budget_seconds=10
        )
        == []
    )


async def test_semantic_path_finds_a_movement_named_in_another_language(
    db: Database, org: Org, clean_db: str
) -> None:
    seed(clean_db, org)
    async with fake_voyage_server() as (base_url, seen):
        embedder = VoyageEmbedder.from_settings("test-key", base_url=base_url)
        async with db.org_tx(org.id) as conn:
            # 3 exercises, 1 program, 4 members (the org fixture's and three more)
            assert await refresh_embeddings(conn, org.id, embedder) == 8
            assert await refresh_embeddings(conn, org.id, embedder) == 0
        hits = await find_ambient(
            db, org.id, "добавь приседания в разминку на следующей неделе", embedder
        )
    assert next(h.label for h in hits if h.entity == "exercise") == "Back Squat"
    assert seen[-1]["model"] == "voyage-multilingual-2"
    assert seen[-1]["input_type"] == "query"


async def test_without_an_embedder_it_runs_lexical_only(
    db: Database, org: Org, clean_db: str
) -> None:
    seed(clean_db, org)
    hits = await find_ambient(
        db, org.id, "добавь приседания в разминку на следующей неделе", None, budget_seconds=10
    )
    assert hits == []


class _SlowEmbedder:
    async def embed(self, texts: list[str], input_type: str) -> list[list[float]]:
        await asyncio.sleep(5)
        return [[0.0] * 1024]


class _BrokenEmbedder:
    async def embed(self, texts: list[str], input_type: str) -> list[list[float]]:
        raise ConnectionError("voyage down")


@pytest.mark.parametrize("embedder", [_SlowEmbedder(), _BrokenEmbedder()])
async def test_failures_and_timeouts_mean_no_context_never_an_error(
    db: Database, org: Org, clean_db: str, embedder: object
) -> None:
    seed(clean_db, org)
    loop = asyncio.get_running_loop()
    started = loop.time()
    hits = await find_ambient(
        db,
        org.id,
        "please book Saar into tomorrow's 7am class",
        embedder,
        budget_seconds=0.3,  # type: ignore[arg-type]
    )
    assert hits == []
    assert loop.time() - started < 2.5  # the slow embedder would take 5 s


def test_render_lists_hits_with_ids_inside_the_tag() -> None:
    import uuid

    from spotter.agent.rag.search import Hit

    member_id = uuid.uuid4()
    text = render_ambient([Hit("member", member_id, "Saar Cohen", None, 0.03)])
    assert text.startswith("<ambient_context>") and text.endswith("</ambient_context>")
    assert f"member 'Saar Cohen' id={member_id}" in text
    assert render_ambient([]) == ""
