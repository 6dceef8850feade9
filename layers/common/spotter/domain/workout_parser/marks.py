"""A line of marks only: the sets, counts, percent, tempo or load of the lift (or complex) above.

Coaches write a lift's scheme under its name ("Front Squat" then "4x4 @ 77.5% — tempo 30X1"), a
complex's counts after its names ("Power clean + front squat + split jerk" then "(1+2+1) x 5
sets @ 75%"), where to start ("Start @ 60% of snatch, build") and back-off sets against the
day's work ("then 3x5 @ 70% of today's single"). Such a line names no movement: what is left
once its marks are read is only the words around marks (`lexicon.MARK_WORDS`). And the heavy
set a lift is built to gives its reps ("a heavy single" is one).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from spotter.domain.workout_parser import lexicon, quantities
from spotter.domain.workout_parser.lexicon import TIMES, words
from spotter.domain.workout_parser.lines import LETTER, squeeze
from spotter.domain.workout_parser.movements import EACH_AFTER_COUNT

# What a marks line sets on its lift; the rest of what the quantity readers find (a hold's
# seconds, a distance) is not a mark.
MARK_KEYS = (
    "sets", "reps", "percent", "percentTo", "percentOf", "repScheme", "tempo", "load", "note",
    "perSide",
)  # fmt: skip
_BACK_OFF = re.compile(rf"^\s*{words(lexicon.BACK_OFF)}(?!\w)\s*:?", re.I)
# "(1+2+1) x 5", "5 x (1+1)", "1+1+2": a complex's counts, one per lift, and its sets.
_COUNTS = re.compile(
    rf"(?:(?P<before>\d+)\s*{TIMES}\s*)?\(?\s*(?P<counts>\d+(?:\s*\+\s*\d+)+)\s*\)?"
    rf"(?:\s*{TIMES}\s*(?P<after>\d+)(?:\s*{words(lexicon.SETS)}(?!\w))?"
    rf"|\s*,\s*(?P<sets>\d+)\s*{words(lexicon.SETS)}(?!\w))?",
    re.I,
)
# Hebrew writes "in", "and", "the" on the word: "עולים במשקל" (going up in weight).
# What a back-off percentage is of, when it is the day's own work, not a named lift's 1RM.
_OF_THE_DAY = re.compile(
    r"(?<!\w)(?:of|от)\s+(?:your|the|today'?s|that|this|сегодняшн\w*|вашего)\b.*$", re.I
)
_MARK_WORDS = re.compile(
    rf"(?<!\w)(?:[בלמוה](?=[\u05d0-\u05ea]))?{words(lexicon.MARK_WORDS)}(?!\w)", re.I
)
_TRAILING_SETS = re.compile(rf"^\s*{TIMES}\s*(\d+)\s*(?:{words(lexicon.SETS)})?(?!\w)", re.I)


@dataclass
class Marks:
    found: dict[str, Any] = field(default_factory=dict)
    counts: list[int] = field(default_factory=list)  # a complex's reps, one per lift
    back_off: bool = False  # "then 3x5 @ 70% of today's single": more sets of the lift
    each: bool = False  # "3x10 each": per side, when the lift is done one side at a time


def marks_only(text: str) -> Marks | None:
    """The marks of a line that names no movement, else None."""
    marks = Marks(each=EACH_AFTER_COUNT.search(text) is not None)
    rest = text
    if m := _BACK_OFF.match(rest):
        marks.back_off = True
        rest = rest[m.end() :]
    notes: list[str] = []
    if m := _OF_THE_DAY.search(rest):
        notes.append(m.group(0).strip())  # "… of your heavy 5", "… of today's top set"
        rest = rest[: m.start()]
    rest = quantities.strength_marks(rest, marks.found, notes)
    if m := _COUNTS.search(rest):
        marks.counts = [int(n) for n in re.findall(r"\d+", m.group("counts"))]
        if sets := m.group("before") or m.group("after") or m.group("sets"):
            marks.found["sets"] = int(sets)
        rest = quantities.take(rest, m)
    rest = quantities.per_side(quantities.sets(rest.strip(), marks.found), marks.found)
    if marks.counts and "sets" not in marks.found and (m := _TRAILING_SETS.match(rest)):
        marks.found["sets"] = int(m.group(1))  # "… x 5 sets" after the counts
        rest = rest[m.end() :]
    rest = quantities.measures(rest, marks.found)
    if notes:
        marks.found["note"] = "; ".join(notes)
    if LETTER.search(_MARK_WORDS.sub(" ", rest)) or re.search(r"\d", rest):
        return None
    marks.found = {k: v for k, v in marks.found.items() if k in MARK_KEYS}
    if not marks.found and not marks.counts:
        return None
    return marks


_HEAVY = {
    spelled.lower(): reps for reps, spellings in lexicon.HEAVY_SETS.items() for spelled in spellings
}
_HEAVY_SET = re.compile(
    rf"(?<!\w)(?:{words(tuple(_HEAVY))}|(?P<n>\d+)\s*-?\s*(?:rep|RM|ПМ|חזרות)(?!\w)"
    r"|(?:heavy|тяж[её]л\w*|כבד\w*)\s+(?P<h>\d+)(?![\d.,]|\s*(?:%|kg|lb|кг|min|мин)))",
    re.I,
)


def heavy_reps(text: str) -> int | None:
    """The reps of the heavy set a lift is built to: "a heavy single" 1, "3-rep" 3, "5RM" 5."""
    if not (m := _HEAVY_SET.search(text)):
        return None
    if count := m.group("n") or m.group("h"):
        return int(count)  # "3-rep", "5RM", "a heavy 3"
    return _HEAVY[squeeze(m.group(0)).lower()]
