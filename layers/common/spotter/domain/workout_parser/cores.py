"""A name unknown as written, shrunk to the known movement at its core.

Writers put words beside a name that are no part of it — a format ("push-ups FT", "RFT SDHP"),
a preposition ("на эйрбайке"), a filler ("and burpees"), an emoji ("HSPU 🔥"). No list of
writers' forms can be complete, so instead of naming each, a name the vocabulary does not know is
read again without such words at its edges, while what is left names a known movement. Only
words that never name a movement are dropped: "Zombie squat" stays unknown, it is not a squat.
"""

from __future__ import annotations

import re

from spotter.domain import movement_vocabulary as vocabulary
from spotter.domain.workout_parser import lexicon
from spotter.domain.workout_parser.lexicon import words

# How a lift goes ("to heavy", "עד כבד", "smooth"), never a heading's word ("technique"): a
# heading names no movement, and is not shrunk to one.
_ADVICE = tuple(w for w in lexicon.each(lexicon.ADVICE) if not vocabulary.is_heading(w))
# What may stand at a name's edge without being part of it.
_EDGE_WORDS = (
    rf"{words(_ADVICE)}|{words(lexicon.BETWEEN_SETS)}|{words(lexicon.IMPERATIVES)}|"
    rf"{words(lexicon.FOR_TIME)}|{words(lexicon.FOR_TIME_OPENING)}|{words(lexicon.NOT_FOR_TIME)}"
    rf"|{words(lexicon.AMRAP)}|{words(lexicon.TABATA)}|[EЕ]\d*(?:MOM|MOTM|МОМ)|OTM"
    rf"|{words(lexicon.THEN)}|{words(lexicon.DANGLING)}|{words(lexicon.PROGRAM_WORDS)}|and|и|plus"
)
_LEFT = re.compile(rf"^(?:(?:{_EDGE_WORDS})(?!\w)|[^\w\s]+)\s*", re.I)
_RIGHT = re.compile(rf"(?:(?<!\w)(?:{_EDGE_WORDS})|[^\w\s]+)$", re.I)
_DEEPEST = 4  # edge words dropped at most


def known_core(name: str) -> str | None:
    """The longest known movement left when words that name no movement are dropped from the
    edges of a name not known as written; None when the name is known as written, or no core
    is known. A core known as written wins over a guess at the whole name ("BBB DB rows" is
    the DB row, not a typo of the barbell row)."""
    if vocabulary.known_as_written(name):
        return None
    guessed = vocabulary.lookup(name) is not None
    level = {name.strip()}
    for _ in range(_DEEPEST):
        shorter = {
            cut.strip()
            for candidate in level
            for cut in (_LEFT.sub("", candidate, count=1), _RIGHT.sub("", candidate, count=1))
            if cut.strip() and cut.strip() != candidate
        }
        known = [
            c
            for c in shorter
            if (vocabulary.known_as_written(c) if guessed else vocabulary.lookup(c) is not None)
        ]
        if known:
            return max(known, key=lambda c: (len(c), c))
        level = shorter
        if not level:
            return None
    return None
