"""Searching the help corpus like the other RAG scopes: lexical (pg_trgm + substring) and,
with an embedder, semantic (pgvector over stored article embeddings), blended by RRF.

The articles are sent to Postgres as arrays, so the lexical side needs no table and always
matches the deployed text. Embeddings are stored by content hash; missing ones are embedded on
the first search that has an embedder (or by `spotter embed-backfill`). An embedding failure
leaves the search lexical-only, never failing it.
"""

from __future__ import annotations

from dataclasses import dataclass

from spotter.db import Conn
from spotter.help.corpus import Article, load_corpus
from spotter.observability import log_event
from spotter.providers.embeddings import EMBEDDING_MODEL, Embedder, vector_literal
from spotter.search.lexical import MIN_TOKEN_SIMILARITY, token_score_sql, words
from spotter.search.rrf import reciprocal_rank_fusion

MIN_SEMANTIC_SIMILARITY = 0.4
CANDIDATES = 6
TITLE_BONUS = 0.5

# Question words and glue: what is left names the feature being asked about. Domain nouns
# ("class", "member", "book") stay: in a help question they are the subject.
HELP_STOPWORDS: frozenset[str] = frozenset(
    " ".join(
        (
            "a an the this that these those my our your it its i we you me us they them he she",
            "his her and or but of to for from in on at by with into about as is are was were be",
            "been am do does did done have has had can could will would should shall may might",
            "must not no yes please how what when where why which who whom whose there here then",
            "than so if get make use using want need let see show tell explain help know way ok",
            "את של על עם אל זה זו זאת אני אנחנו אתה הוא היא הם גם או אבל כי אם לא כן איך מה מתי",
            "איפה למה מי יש אין אפשר רוצה צריך בבקשה",
            "и или но а в во на с со к по за из от до для о об у не нет да это этот эта я мы ты",
            "вы он она они как что когда где почему кто можно нужно хочу пожалуйста",
        )
    ).split()
)

_LEXICAL_SQL = f"""
WITH docs AS (
  SELECT * FROM unnest(%(slugs)s::text[], %(titles)s::text[], %(texts)s::text[])
    AS d(slug, title, body)
), scored AS (
  SELECT d.slug, {token_score_sql("t", "d.body")}
         + CASE WHEN strpos(d.title, t) > 0 THEN {TITLE_BONUS} ELSE 0 END AS s
    FROM docs d CROSS JOIN unnest(%(tokens)s::text[]) AS t
)
SELECT slug, sum(s) AS score FROM scored WHERE s >= %(min)s
 GROUP BY slug ORDER BY score DESC, slug LIMIT %(k)s
"""

_SEMANTIC_SQL = """
SELECT content_hash, 1 - (embedding <=> %(q)s::vector) AS score FROM help_article_embeddings
 WHERE model = %(model)s AND content_hash = ANY(%(hashes)s)
   AND 1 - (embedding <=> %(q)s::vector) >= %(min)s
 ORDER BY score DESC LIMIT %(k)s
"""


@dataclass(frozen=True)
class HelpHit:
    article: Article
    score: float


async def lexical_ranking(conn: Conn, tokens: list[str], corpus: tuple[Article, ...]) -> list[str]:
    if not tokens:
        return []
    cur = await conn.execute(
        _LEXICAL_SQL,
        {
            "slugs": [a.slug for a in corpus],
            "titles": [a.title.lower() for a in corpus],
            "texts": [a.text.lower() for a in corpus],
            "tokens": tokens,
            "min": MIN_TOKEN_SIMILARITY,
            "k": CANDIDATES,
        },
    )
    return [str(r["slug"]) for r in await cur.fetchall()]


async def ensure_embeddings(conn: Conn, embedder: Embedder, corpus: tuple[Article, ...]) -> int:
    """Embed the articles whose current text has no stored embedding; returns how many."""
    cur = await conn.execute(
        "SELECT content_hash FROM help_article_embeddings WHERE model = %s"
        " AND content_hash = ANY(%s)",
        (EMBEDDING_MODEL, [a.content_hash for a in corpus]),
    )
    stored = {str(r["content_hash"]) for r in await cur.fetchall()}
    missing = [a for a in corpus if a.content_hash not in stored]
    if not missing:
        return 0
    vectors = await embedder.embed([a.text for a in missing], "document")
    async with conn.cursor() as insert:
        await insert.executemany(
            "INSERT INTO help_article_embeddings (content_hash, model, embedding)"
            " VALUES (%s, %s, %s::vector) ON CONFLICT DO NOTHING",
            [
                (a.content_hash, EMBEDDING_MODEL, vector_literal(v))
                for a, v in zip(missing, vectors, strict=True)
            ],
        )
    return len(missing)


async def semantic_ranking(
    conn: Conn, question: str, embedder: Embedder, corpus: tuple[Article, ...]
) -> list[str]:
    """Slugs by embedding similarity; [] (logged by kind) when embedding fails."""
    try:
        async with conn.transaction():  # a savepoint: a failed insert leaves the caller's tx
            await ensure_embeddings(conn, embedder, corpus)
        (query,) = await embedder.embed([question], "query")
    except Exception as exc:
        log_event("help.semantic_skipped", level="warning", error=type(exc).__name__)
        return []
    cur = await conn.execute(
        _SEMANTIC_SQL,
        {
            "q": vector_literal(query),
            "model": EMBEDDING_MODEL,
            "hashes": [a.content_hash for a in corpus],
            "min": MIN_SEMANTIC_SIMILARITY,
            "k": CANDIDATES,
        },
    )
    by_hash = {a.content_hash: a.slug for a in corpus}
    return [by_hash[str(r["content_hash"])] for r in await cur.fetchall()]


async def search_help(
    conn: Conn,
    question: str,
    *,
    embedder: Embedder | None = None,
    limit: int = 3,
    corpus: tuple[Article, ...] | None = None,
) -> list[HelpHit]:
    """The articles that best answer `question`, best first (at most `limit`)."""
    articles = corpus if corpus is not None else load_corpus()
    rankings = [await lexical_ranking(conn, words(question, HELP_STOPWORDS), articles)]
    if embedder is not None:
        rankings.append(await semantic_ranking(conn, question, embedder, articles))
    by_slug = {a.slug: a for a in articles}
    return [
        HelpHit(by_slug[slug], round(score, 6))
        for slug, score in reciprocal_rank_fusion(*rankings)[:limit]
    ]
