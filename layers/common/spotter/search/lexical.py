"""The lexical side of hybrid search: query words, and how one word scores against a text.

A word scores its pg_trgm word similarity with the text, or 0.9 when it (3+ chars) occurs in it
verbatim; a text's score is the sum over the query's words that reach `MIN_TOKEN_SIMILARITY`.
"""

from __future__ import annotations

import re

MIN_TOKEN_SIMILARITY = 0.5


def token_score_sql(token: str, text: str) -> str:
    """The SQL expression scoring the word column `token` against the lower-cased `text`."""
    return (
        f"greatest(word_similarity({token}, {text}),"
        f" CASE WHEN length({token}) >= 3 AND strpos({text}, {token}) > 0 THEN 0.9 ELSE 0 END)"
    )


# Letters and digits in any script; Hebrew gershayim/geresh and apostrophes stay inside words.
_WORD = re.compile(r"[\w\u05f3\u05f4'’]+", re.UNICODE)
# Hebrew one-letter prefixes (ה, ב, ל, ו, מ, ש, כ) glued to a word: "לדנה" is "דנה".
_HEBREW_PREFIX = re.compile(r"^[הבלומשכ](?=[\u05d0-\u05ea]{3,})")


def words(text: str, stopwords: frozenset[str], *, max_words: int = 8) -> list[str]:
    """Distinct lower-cased words of `text` in order, at least 2 chars, stopwords removed."""
    seen: dict[str, None] = {}
    for raw in _WORD.findall(text):
        word = raw.strip("'’\u05f3\u05f4").lower().removesuffix("'s").removesuffix("’s")
        if word not in stopwords:
            word = _HEBREW_PREFIX.sub("", word)
        if len(word) < 2 or word in stopwords:
            continue
        seen.setdefault(word, None)
    return list(seen)[:max_words]
