"""The line net: a line the reader could not name is read again in pieces.

Writers put what the reader does not know in front of, or after, what it does: a name or a
label before the list ("Chipper FT (cap 25'): 50 WB, …", "ניקוד היום: …"), a load before the
format ("♂60 / ♀40 кг — 3 раунда …"), a remark in a trailing bracket ("Front Squat 5-5-3-3-1-1
(rest 2 min between sets)"). No list of such forms is complete, so when a line reads as no
movement, or as movements the vocabulary does not know, the reader tries it again in pieces —
what stands before a colon or a dash, then the rest; the line, then its trailing bracket; what
stands before an interval clock inside the line, the clock, what follows it ("… — every 90 sec
x 8, start 60%") — and keeps the reading that names more known movements. Nothing is dropped: a
piece that reads as nothing is a note.
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
from spotter.domain.workout_parser.lines import LABEL_PREFIX, QUANTITY

# "Chipper FT (cap 25'): …", "♂60 / ♀40 кг — 3 раунда …": what stands before the first colon
# (not a clock's, "E2:30") or spaced dash, brackets kept whole.
_HEAD = re.compile(
    r"^(?P<head>(?:[^:()\-–—]|\([^()]*\)|(?<=\S)[-–—](?=\S)|[-–—](?!\s)|(?<=\d):(?=\d)){2,60}?)"
    r"(?P<sep>\s*:(?!\d)\s*|\s+[-–—]\s+)(?P<tail>\S.*)$"
)
_HEAD_OF_TAIL = re.compile(r"\s*:\s*|,\s*")
_CLOCK_WORDS = 6  # the most words an interval clock is written in ("every 2 min x 5 sets")
_LAST_COMMA = re.compile(r"^(?P<body>.*\S)\s*,\s*(?P<aside>[^,]+)$")
_SENTENCE_END = re.compile(r"[.!?]\s+")
# "Scaled:", "Notes -", "Rx:": a word that opens a note (a sex's sign opens a load, not a note).
_OPENER = re.compile(rf"^{words(lexicon.NOTE_OPENERS)}(?![\w+])", re.I)
# "Front Squat 5-5-3-3-1-1 (rest 2 min between sets)": a remark closing the line.
_TRAILING_BRACKET = re.compile(r"^(?P<body>.*\S)\s*(?P<aside>[(\[][^()\[\]]*[)\]])[\s.!]*$")


@dataclass(frozen=True)
class Apart:
    """A line read as pieces, in order: each read as a line of its own, or kept as a note."""

    pieces: tuple[tuple[str, bool], ...]


def ways_apart(text: str) -> list[Apart]:
    """The ways to read a line again in pieces, in the order they are tried; a part's label
    ("B) Bench press – week 2 of 6") stays with the first piece."""
    if (label := LABEL_PREFIX.match(text)) is None:
        return _ways_apart(text)
    return [
        Apart(((label.group(0) + way.pieces[0][0], way.pieces[0][1]), *way.pieces[1:]))
        for way in _ways_apart(text[label.end() :])
    ]


def _ways_apart(text: str) -> list[Apart]:
    ways: list[Apart] = []
    if (m := _HEAD.match(text)) and _headed(m["head"], m["tail"]):
        # the head keeps its colon: "Snatch complex E2:30 x 5 @ 70%:" heads what follows
        head, tail = (m["head"] + m["sep"]).strip(), m["tail"].strip()
        ways += [Apart(((head, False), (tail, False))), Apart(((head, True), (tail, False)))]
    if m := _TRAILING_BRACKET.match(text):
        ways.append(Apart(((m["body"], False), (m["aside"], True))))
    if (m := _LAST_COMMA.match(text)) and QUANTITY.search(m["body"]):
        # "1 legless rope climb, 15 ft.": a remark after the last comma of a counted movement
        ways.append(Apart(((m["body"], False), (m["aside"], True))))
    if span := _clock_inside(text):
        # "Complex: 1 power clean + … — every 90 sec x 8, start 60%": what comes before the
        # clock, the clock (a format said after its list is the list's), what comes after it
        before, clock, after = span
        ways += [
            Apart(((before, False), (clock, False), (after, False))),
            Apart(((before, False), (clock, False), (after, True))),
        ]
    return ways


def _clock_inside(text: str) -> tuple[str, str, str] | None:
    """(before, the clock, after) for the first interval clock inside a line ("E2:30 x 5",
    "every 90 sec x 8"), the longest at its start; None when there is none or it is the line."""
    spans = [m.span() for m in re.finditer(r"\S+", text)]
    for i, (start, _end) in enumerate(spans):
        for j in range(min(len(spans), i + _CLOCK_WORDS), i, -1):
            clock = text[start : spans[j - 1][1]].strip(" ,;–—-")
            if not QUANTITY.search(clock) or (said := section_header(clock)) is None:
                continue
            if said.format != "emom" or said.notes:
                continue
            before, after = text[:start].strip(" ,;–—-"), text[spans[j - 1][1] :].strip(" ,;–—-")
            return (before, clock, after) if before or after else None
    return None


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
    unread, names none and kept some of the line as a note, or took a piece of it for a heading.
    A line read as a format, a load or a title is not lost."""
    known, unknown = named(moves)
    noted = any(role == "note" for role, _text in took)
    headed = any(role == "heading" for role, _text in took)
    return unknown < 0 or unread or headed or (known == 0 and noted)


def copied(state: dict[str, Any]) -> dict[str, Any]:
    """A reader's state, deep-copied; what it keys by a movement's identity (the letter each
    movement was read under) follows the copies."""
    memo: dict[int, Any] = {}
    out: dict[str, Any] = copy.deepcopy(state, memo)
    out["lettered"] = {
        id(memo[key]): letter for key, letter in state["lettered"].items() if key in memo
    }
    return out
