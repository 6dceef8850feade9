"""A line of movements as a whole: whether a text is one, what lies between its pieces, and
what it says after its movements (rounds, a cap, a format: "… 30 DU x 4 rounds", "… (TC 18)",
"…, for time")."""

from __future__ import annotations

import re

from spotter.domain import movement_vocabulary as vocabulary
from spotter.domain.workout_parser import lexicon
from spotter.domain.workout_parser.formats import CAP, cap_seconds, section_header
from spotter.domain.workout_parser.lexicon import words
from spotter.domain.workout_parser.lines import QUANTITY
from spotter.domain.workout_parser.model import Section
from spotter.domain.workout_parser.movements import (
    REST,
    complex_of,
    movement,
    names_a_movement,
    pieces,
)
from spotter.domain.workout_parser.notes import is_note_start

_TRAILING_ROUNDS = re.compile(
    rf"\s*[,;–—-]?\s*(?:(?<![\w.]){lexicon.TIMES}\s*(\d+)(?:\s*{words(lexicon.ROUNDS)})?"
    rf"|(?<![\w./])(\d+)\s*{words(lexicon.ROUNDS)})\s*\.?\s*$",
    re.I,
)

_TRAILING_CAP = re.compile(rf"\s*[,;(–—-]\s*(?P<cap>{CAP.pattern})\s*\)?\s*\.?\s*$", re.I)


def names_known(text: str) -> bool:
    read = movement(text)
    return read is not None and vocabulary.lookup(read["name"]) is not None


def trailing_format(text: str) -> tuple[str, tuple[Section, str] | None]:
    """A list line without the rounds or cap said at its end ("10 burpees, 20 KBS, 30 DU x 4
    rounds", "… 25 HSPU (TC 18)"), and that format; the line itself when it says none."""
    if (m := _TRAILING_CAP.search(text)) and len(pieces(text[: m.start()])) >= 1:
        cap = CAP.search(m.group("cap"))
        if cap is not None and reads_as_movements(text[: m.start()]):
            said = Section(time_cap_seconds=cap_seconds(cap))
            return text[: m.start()], (said, text[m.start() :].strip(" ,;"))
    m = _TRAILING_ROUNDS.search(text)
    if m and len(pieces(text[: m.start()])) >= 2 and reads_as_movements(text[: m.start()]):
        said = Section(format="rounds", rounds=int(m.group(1) or m.group(2)))
        return text[: m.start()], (said, text[m.start() :].strip(" ,;"))
    return text, None


def format_piece(split: list[str]) -> tuple[Section, str] | None:
    """The last piece of a list when it is a format ("…, for time", "…, на время")."""
    if len(split) < 2:
        return None
    last = split[-1].rstrip(".!")
    said = section_header(last)
    if said is None and _CAP_ONLY.fullmatch(last) and (cap := CAP.search(last)):
        said = Section(time_cap_seconds=cap_seconds(cap))
    if said is None or names_a_movement(last):
        return None
    return (said, split[-1]) if all(movement(p) is not None for p in split[:-1]) else None


# "… | 30 KBS | cap 16'", "…, TC 12 min": a cap closing the list, the list's.
_CAP_ONLY = re.compile(rf"\s*\(?\s*(?:{CAP.pattern})\s*\)?\s*", re.I)
_FOR_TIME_END = re.compile(rf"\s+((?<!\w){words(lexicon.FOR_TIME)}[.!]*)\s*$", re.I)


def format_ending(piece: str) -> tuple[str, tuple[Section, str]] | None:
    """The last piece of a list when it ends with "for time" ("… ומתח לזמן", "… и подтягивания
    на время"): the movement, and the format."""
    m = _FOR_TIME_END.search(piece)
    if m is None or not names_known(piece[: m.start()]):
        return None
    return piece[: m.start()], (Section(format="for_time"), m.group(1))


def between(text: str, split: list[str]) -> str:
    """What lies between a line's pieces: the separators ("and", "и", "+", ",")."""
    gaps, cursor = [], 0
    for piece in split:
        start = text.find(piece, cursor)
        if start < 0:
            continue
        gaps.append(text[cursor:start])
        cursor = start + len(piece)
    gaps.append(text[cursor:])
    return " ".join(gaps)


def heading(text: str) -> bool:
    """ "האימון של היום:", "Сегодня:", "Today's workout:": a line ending in ":" that counts
    nothing and names no movement heads what follows."""
    return (
        text.rstrip().endswith(":")
        and not QUANTITY.search(text)
        and not names_a_movement(text)
        and len(text.split()) <= 6
    )


# "400m" opening a list ("Helen 3RFT 400m/21 KBS/12 PU"): the run, by convention.
DISTANCE_ONLY = re.compile(r"\d+(?:[.,]\d+)?\s*(?:m|km|k|mi|miles?|м|км|מ'?|מטר|ק\"?מ)(?!\w)", re.I)


def reads_as_movements(text: str) -> bool:
    """Whether a text is a list of movements ("… & Pull-ups — sub 3 goal": a note or a rest
    among them does not stop it being one)."""
    split = pieces(text)
    read = [
        movement(p) is not None
        or complex_of(p) is not None
        or (i == 0 and len(split) > 1 and DISTANCE_ONLY.fullmatch(p) is not None)
        for i, p in enumerate(split)
    ]
    aside = [
        is_note_start(p) or REST.match(p) is not None or _CAP_ONLY.fullmatch(p) is not None
        for p in split
    ]  # "…, cap 10": the list's cap
    return any(read) and all(r or a for r, a in zip(read, aside, strict=True))
