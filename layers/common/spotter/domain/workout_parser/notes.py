"""Lines about the workout rather than in it: rest, scaling, standards, advice, how-to prose."""

from __future__ import annotations

import re

from spotter.domain import movement_vocabulary as vocabulary
from spotter.domain.workout_parser import lexicon
from spotter.domain.workout_parser.formats import team_format
from spotter.domain.workout_parser.lexicon import words
from spotter.domain.workout_parser.lines import QUANTITY, unabbreviated
from spotter.domain.workout_parser.movements import LOAD_FIRST, SLOT, THEN, movement

NOTE_START = re.compile(
    rf"^(?:{words(lexicon.NOTE_OPENERS)}(?![\w+])|modif\w*|teams?\s+of\b|then\s*:?\s*$)|^[♀♂*]"
    r"|^#[^\W\d]"  # a line of hashtags
    # "starting at 0:00", "מתחילים ב-0:00", "начиная с 0:00": when the clock starts, no movement
    r"|^(?:starting|start|beginning|begin|מתחילים|מתחילות|החל|начиная|начало|старт)\s+"
    r"(?:at|from|on|ב-?|מ-?|с|со|в)\s*\d{1,2}:\d{2}\s*[.!]?$",
    re.I,
)
_PROSE = re.compile(
    r"\.\.\.|…\s*\w|\buntil\b|\bif you\b|\bbetween (?:sets|rounds)\b|\bдо отказа\b|\bעד ש", re.I
)


def is_prose(text: str) -> bool:
    """A how-to sentence ("1 rep the first minute, 2 the second... until failure")."""
    return bool(_PROSE.search(text))


def opens_note(text: str) -> bool:
    """Whether a line opens as a note ("Rest 2 min", "Barbell: 155/105 lb", "Scaled: …"); not
    when its opening word starts a movement's name ("Barbell row 3x10"), nor when who does the
    workout opens its format ("Team of 2, 30 min AMRAP: …")."""
    if (m := NOTE_START.match(text)) is None or team_format(text):
        return False
    if LOAD_FIRST.match(text) and (read := movement(text)) and vocabulary.lookup(read["name"]):
        return False  # "♂ 60 ♀ 40 kg x 30 G2OH": a load, then the count of what lifts it
    opener = len(m.group(0).split())
    return vocabulary.known_words(re.findall(r"[\w'’-]+", text)[: opener + 4]) <= opener


# "Good morning everyone!", "Hey team", "בוקר טוב לכולם!", "Всем привет!"; "See you at 6am!".
_GREETING = re.compile(
    rf"^(?:{words(lexicon.GREETINGS)})(?:[\s,]+{words(lexicon.GREETED)})+[\s!.,]*$"
    rf"|^(?:{words(lexicon.GREETINGS)})\s*!+[\s!.]*$"
    rf"|^{words(lexicon.SIGN_OFFS)}(?!\w)",
    re.I,
)


def is_greeting(text: str) -> bool:
    return _GREETING.match(text.strip()) is not None


def is_note_start(text: str) -> bool:
    return (opens_note(text) and not THEN.match(text)) or is_greeting(text)


def _all_known(text: str) -> bool:
    """ "Deadlift, hang power clean, push jerk": every comma piece names a known movement."""
    pieces = [p.strip(" .") for p in re.split(r",|\band\b|&|\s/\s", text) if p.strip(" .")]
    return len(pieces) > 1 and all(vocabulary.lookup(p) for p in pieces)


def _starts_with_movement(text: str) -> bool:
    words_ = re.sub(r"(?i)^\s*(?:max(?:imum)?|макс\w*|מקסימום)\s+", "", text).split()
    return vocabulary.known_words(words_) > 0


# "30 push presses, 115 lb.": a unit's full stop closing a counted line ends no sentence.
_UNIT_STOP = re.compile(r"(?<=\d)[\s-]*(?:lbs?|kgs?|ft|in|km|mi|cals?|pood|кг|ק\"ג|ק״ג)\.$", re.I)


def _counts_known(text: str) -> bool:
    """ "Then do 3 sets of 10 dumbbell rows per arm.": a sentence that counts a known movement."""
    read = movement(text.rstrip(". "))
    return (
        read is not None
        and vocabulary.lookup(read["name"]) is not None
        and bool(read.keys() & {"reps", "sets"})
    )


def is_note(text: str) -> bool:
    text = SLOT.sub("", text)
    if opens_note(text) or is_prose(text):
        return True
    if _UNIT_STOP.search(text):
        text = text[:-1]
    words_ = text.split()
    has_quantity = bool(QUANTITY.search(text))
    # Without a number, a sentence ("Steady pace, no stopping.") is advice, not a movement;
    # "Mr. Joshua" and "approx. 500m" hold no sentence's full stop.
    sentence = bool(re.search(r"[.!?]", unabbreviated(text))) or ("," in text and len(words_) > 3)
    if text.endswith(".") and len(words_) >= 5 and not _counts_known(text):
        return True
    if sentence and not has_quantity and _all_known(text):
        return False
    if not sentence and not has_quantity and _starts_with_movement(text):
        return False  # "max burpees in the remaining time"
    return (not has_quantity and (len(words_) > 4 or sentence)) or len(words_) > 16
