"""The help corpus shipped with the package: every article parses, is short, and is unique."""

from __future__ import annotations

import pytest

from spotter.help.corpus import load_corpus, parse_article
from spotter.search.rrf import reciprocal_rank_fusion

MAX_WORDS = 400


def test_the_corpus_has_an_article_per_dashboard_area() -> None:
    slugs = {a.slug for a in load_corpus()}
    assert {"forms-and-waivers", "analytics-reports", "leads-and-pipelines",
            "bookings-and-waitlist", "confirmations-and-undo"} <= slugs  # fmt: skip


@pytest.mark.parametrize("article", load_corpus(), ids=lambda a: a.slug)
def test_every_article_is_short_and_tagged(article: object) -> None:
    from spotter.help.corpus import Article

    assert isinstance(article, Article)
    assert article.tags
    assert len(article.body.split()) <= MAX_WORDS


def test_titles_are_unique() -> None:
    titles = [a.title for a in load_corpus()]
    assert len(titles) == len(set(titles))


def test_an_article_without_a_tags_line_is_refused() -> None:
    with pytest.raises(ValueError, match="tags"):
        parse_article("x", "# Title\nNo tags here\nBody")


def test_fusion_prefers_keys_ranked_high_in_both_lists() -> None:
    fused = reciprocal_rank_fusion(["a", "b", "c"], ["b", "c"])
    assert [key for key, _ in fused] == ["b", "c", "a"]
