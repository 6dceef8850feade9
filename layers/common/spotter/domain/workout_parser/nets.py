"""The line net: a line the reader could not name is read again in pieces.

Writers put what the reader does not know in front of, or after, what it does: a name or a
label before the list ("Chipper FT (cap 25'): 50 WB, …", "ניקוד היום: …"), a load before the
format ("♂60 / ♀40 кг — 3 раунда …"), a remark in a trailing bracket ("Front Squat 5-5-3-3-1-1
(rest 2 min between sets)"). No list of such forms is complete, so when a line reads as no
movement, or as movements the vocabulary does not know, the reader tries it again as two lines
— what stands before a colon or a dash, then the rest; the line, then its trailing bracket —
and keeps the reading that names more known movements. Nothing is dropped: a piece that reads
as nothing is a note.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any

from spotter.domain import movement_vocabulary as vocabulary
from spotter.domain.workout_parser import lexicon
from spotter.domain.workout_parser.formats import format_prefix, section_header
from spotter.domain.workout_parser.lexicon import words

# "Chipper FT (cap 25'): …", "♂60 / ♀40 кг — 3 раунда …": what stands before the first colon
# (not a clock's, "E2:30") or spaced dash, brackets kept whole.
_HEAD = re.compile(
    r"^(?P<head>(?:[^:()\-–—]|\([^()]*\)|(?<=\S)[-–—](?=\S)|[-–—](?!\s)){2,60}?)"
    r"(?:\s*:(?!\d)\s*|\s+[-–—]\s+)(?P<tail>\S.*)$"
)
_HEAD_OF_TAIL = re.compile(r"\s*:\s*|,\s*")
_SENTENCE_END = re.compile(r"[.!?]\s+")
# "Scaled:", "Notes -", "Rx:": a word that opens a note (a sex's sign opens a load, not a note).
_OPENER = re.compile(rf"^{words(lexicon.NOTE_OPENERS)}(?![\w+])", re.I)
# "Front Squat 5-5-3-3-1-1 (rest 2 min between sets)": a remark closing the line.
_TRAILING_BRACKET = re.compile(r"^(?P<body>.*\S)\s*(?P<aside>[(\[][^()\[\]]*[)\]])[\s.!]*$")


@dataclass(frozen=True)
class Apart:
    """A line read as two: `first` (read as a line, or kept as a note when `first_is_note`),
    then `second` (read as a line, or kept as a note when `second_is_note`)."""

    first: str
    second: str
    first_is_note: bool = False
    second_is_note: bool = False


def ways_apart(text: str) -> list[Apart]:
    """The ways to read a line again as two pieces, in the order they are tried."""
    ways: list[Apart] = []
    if (m := _HEAD.match(text)) and _headed(m["head"], m["tail"]):
        head, tail = m["head"].strip(), m["tail"].strip()
        ways += [Apart(head, tail), Apart(head, tail, first_is_note=True)]
    if m := _TRAILING_BRACKET.match(text):
        ways.append(Apart(m["body"], m["aside"], second_is_note=True))
    return ways


def _headed(head: str, tail: str) -> bool:
    """Whether what stands before a colon or dash may be read apart from the rest: not when a
    note's word opens it ("Scaled: 35/25 + ring rows", "For time. Scaled: …" — what it heads is
    the note's), unless a workout's format opens the rest ("ניקוד היום: 21-15-9 תראסטרים ומתח")."""
    if not _OPENER.match(_SENTENCE_END.split(head)[-1]):
        return True
    return (
        format_prefix(tail) is not None or section_header(_HEAD_OF_TAIL.split(tail)[0]) is not None
    )


def named(moves: list[dict[str, Any]]) -> tuple[int, int]:
    """How well a line's movements are named: (known to the vocabulary, minus unknown ones)."""
    known = sum(vocabulary.lookup(m["name"]) is not None for m in moves)
    return known, known - len(moves)


def lost(moves: list[dict[str, Any]], took: list[tuple[str, str]], *, unread: bool) -> bool:
    """Whether a line's reading names a movement the vocabulary lacks, told some of the line as
    unread, or names none and kept some of the line as a note. A line read as a format, a load
    or a title is not lost."""
    known, unknown = named(moves)
    noted = any(role == "note" for role, _text in took)
    return unknown < 0 or unread or (known == 0 and noted)


def copied(state: dict[str, Any]) -> dict[str, Any]:
    """A reader's state, deep-copied; what it keys by a movement's identity (the letter each
    movement was read under) follows the copies."""
    memo: dict[int, Any] = {}
    out: dict[str, Any] = copy.deepcopy(state, memo)
    out["lettered"] = {
        id(memo[key]): letter for key, letter in state["lettered"].items() if key in memo
    }
    return out
