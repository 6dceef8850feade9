"""Which line names what: a part header ("B) Lift (10:00-25:00)", "חימום"), a workout's name
("Kelly", "Open 21.1", "Lumberjack 20") and the text's title, with what a title carries around
it (its emoji, an aside, a format or cap in brackets)."""

from __future__ import annotations

import re
from typing import Any

from spotter.domain import movement_vocabulary as vocabulary
from spotter.domain import named_workouts
from spotter.domain.workout_parser import lexicon, quantities
from spotter.domain.workout_parser.formats import CAP, TEAMS, cap_seconds, section_header
from spotter.domain.workout_parser.lexicon import words
from spotter.domain.workout_parser.lines import LABEL_PREFIX, LETTER, QUANTITY, undecorated
from spotter.domain.workout_parser.model import Part, Section
from spotter.domain.workout_parser.movements import SLOT, movement, names_a_movement, pieces
from spotter.domain.workout_parser.notes import is_note, is_note_start

_PART_WORDS = words(lexicon.PARTS)

# "אימון" (training) alone heads a part; "אימון יום שלישי" is the day's title.
_HEADER = re.compile(
    rf"^(?:(?:(?:partner|team|hero)\s+)?{_PART_WORDS}(?!\w)[\s\w'&/-]{{0,30}}|אימון)$", re.I
)

_PART_LEAD = re.compile(
    rf"^(?:(?:partner|team|hero)\s+)?{_PART_WORDS}(?!\w)\s*(?:[-–—:|]\s*)?(?=\S)", re.I
)
_NUMBERED_PART = re.compile(r"^(?:part|wod|metcon|חלק|אימון|часть|блок)\s*#?\d{1,2}$", re.I)
_OPTIONAL = re.compile(rf"(?<!\w){words(lexicon.OPTIONAL)}(?!\w)", re.I)

_WINDOW = re.compile(
    r"\(?\s*(\d{1,2}(?::\d{2})?)\s*[-–—]\s*(\d{1,2}(?::\d{2})?)\s*(?:'|min(?:utes)?|דק(?:ות)?|мин)?\s*\)?"
)

# "Skill (10 min)", "Warm-up 10 min", "Разминка - 10 минут", "חימום 10 דקות": how long it is.
_LENGTH = re.compile(
    r"\(\s*(\d+\s*(?:min\w*|мин\w*|דק\w*|'))\s*\)"
    r"|(?<=[^\W\d])[\s,:–—-]+(\d+\s*(?:min\w*|мин\w*|דק\w*['׳]?|'))\s*$",
    re.I,
)

# "Buy-in: 50 DU" / "Cash-out: 800m run": a section of its own inside the part.
BOOKEND = re.compile(rf"^({words(lexicon.BOOKEND)})(?!\w)\s*(?::|\s[-–—]\s)?\s*(.*)$", re.I)
# "…, 10 pull-ups, cash-out: 50 DU", "… then cash out 800m run": the bookend starts a section
# in the middle of a line, as a line of its own.
BOOKEND_INSIDE = re.compile(
    rf"(?<=\S)\s*[,;.+|/–—-]?\s*(?:{words(lexicon.THEN)}\s+)?(?<!\w)(?={words(lexicon.BOOKEND)}(?!\w))",
    re.I,
)

# A name and what follows it; never split inside the name's brackets ("WOD (TC: 20')").
TITLE_SEP = re.compile(
    r"^(?P<head>(?=[^:|=]{1,40}?(?:\s+[-–—|=•·]\s+|\s*:\s+))(?:[^:|=(]|\([^()]*\))+?)"
    r"(?:\s+[-–—|=•·]\s+|\s*:\s+)(?P<tail>.+)$"
)

_COUNT_WORD = re.compile(
    rf"{words(lexicon.ROUNDS)}|{words(lexicon.SETS)}|{words(lexicon.REPS)}", re.I
)

OPEN_TITLE = re.compile(r"^(?:(?:the\s+)?open\s+)?\d{2}\.\d(?:[AB])?\b", re.I)

ASIDE = re.compile(r"^(?P<name>[^()]+?)\s*\((?P<aside>[^()]+)\)$")

NAME_FORMAT_SEP = re.compile(
    r"^(?P<name>[^():]{1,40}?)\s*\((?P<said>[^()]+)\)\s*[:\-–—]\s*(?P<tail>.+)$"
)

CAPPED_TITLE = re.compile(r"^(?P<name>.+?)\s*(?:\((?P<cap>[^()]+)\)|,\s*(?P<tail>[^,()]+))$")


def unquoted(title: str) -> str:
    quoted = len(title) > 2 and title[0] in "\"'“«" and title[-1] in "\"'”»"
    return title[1:-1] if quoted else title


def format_said(text: str | None) -> Section | None:
    """A format said alone ("for time", "AMRAP 20") or a cap ("cap 25 min", "30 min cap", "TC
    20'"), as a section to fill; None when the text says something else."""
    if not text:
        return None
    if said := section_header(text, header_only=True):
        return said if not said.notes else None
    if not (m := CAP.search(text)):
        return None
    left = (text[: m.start()] + text[m.end() :]).strip(" ,:-–—()")
    team = TEAMS.match(left)  # "Teams of 2 – 35 min cap": who does it, a note
    if LETTER.search(re.sub(r"(?i)\btime\b", "", left[team.end() :] if team else left)):
        return None
    notes = [team.group(0)] if team else []
    return Section(from_header=True, time_cap_seconds=cap_seconds(m), notes=notes)


def header(line: str) -> Part | None:
    """A part header ("B) Lift (10:00-25:00)", "Optional Successory:", "חימום") or None."""
    text = LABEL_PREFIX.sub("", line).strip().rstrip(":").strip()
    window = None
    found = _WINDOW.search(text)
    if found:
        window = {
            "start": quantities.clock(found.group(1)),
            "end": quantities.clock(found.group(2)),
        }
        text = (text[: found.start()] + text[found.end() :]).strip(" -–—:")
    notes = []
    if length := _LENGTH.search(text):
        notes.append(length.group(1) or length.group(2))  # how long the part is
        text = (text[: length.start()] + text[length.end() :]).strip(" -–—:")
    numbered = _NUMBERED_PART.match(text)  # "Part 1 (0:00-15:00)", "WOD 2", "Часть 1"
    if not text or (not numbered and (not _HEADER.match(text) or QUANTITY.search(text))):
        return None
    if (lead := _PART_LEAD.match(text)) and section_header(text[lead.end() :], header_only=True):
        return None  # "WOD - For time", "Metcon — for time": the part, then its format
    return Part(name=text, window=window, optional=bool(_OPTIONAL.search(text)), notes=notes)


_CAP_WORD = re.compile(words(lexicon.CAP), re.I)


def is_name(text: str) -> bool:
    """A workout's name before "-" or ":" ("Kelly", "Open 21.1", "Lumberjack 20", '"Nasty
    Girls"'), not a format, a part or a movement."""
    text = text.strip().strip("\"'“”")
    if (opens := OPEN_TITLE.match(text)) and opens.end() == len(text):
        return True  # "23.3 — For time …": an Open workout's number
    if not text or len(text.split()) > 4 or not LETTER.search(text):
        return False
    if header(text) or section_header(text) or is_note_start(text) or SLOT.match(text + ":"):
        return False
    if _CAP_WORD.fullmatch(text):
        return False  # "Time cap: 15 min" says the cap, it names nothing
    if BOOKEND.match(text) or re.match(r"^\d", text) or vocabulary.lookup(text):
        return False
    if _COUNT_WORD.fullmatch(text):
        return False  # "Rounds: 5" counts, it names nothing
    if OPEN_TITLE.match(text) or not QUANTITY.search(text):
        return True
    # a name ending in its number ("Lumberjack 20", "Open 24.3"), when the words name no movement
    named = re.fullmatch(r"(?P<words>[^\d]+?)\s+\d+(?:\.\d+)?", text)
    return named is not None and not names_a_movement(named["words"])


# A count right before a known movement's name, "and" written on it or not ("1,000 ומתח"), or
# a complex's counts in brackets ("(1+2+1) גובלט סקוואט": found by the property test).
_COUNTED = re.compile(
    r"(?<![\w.])\d[\d,.]*[)\]]?\s+(?P<name>[^\W\d_][\w'-]*(?:\s+[^\W\d_][\w'-]*)*)"
)


def _counts_a_movement(text: str) -> bool:
    return any(names_a_movement(m["name"]) for m in _COUNTED.finditer(text))


def _counts_known(piece: str) -> bool:
    read = movement(piece)
    counted = read is not None and bool(QUANTITY.search(piece))
    return counted and read is not None and vocabulary.lookup(read["name"]) is not None


_COMPLEX_COUNTS = re.compile(r"\(\s*\d+(?:\s*\+\s*\d+)+\s*\)")


def _names_known(piece: str) -> bool:
    read = movement(piece)
    return read is not None and vocabulary.lookup(read["name"]) is not None


def is_title(text: str) -> bool:
    rest = text[opens.end() :] if (opens := OPEN_TITLE.match(text)) else ""
    if opens and not (QUANTITY.search(rest) and names_a_movement(rest)):
        # "23.3", "Open 24.1 🔥", "25.2 (22.3 repeat)"; not "23.3 — For time: 5 wall walks, …"
        return True
    aside = ASIDE.match(text)
    if aside and not QUANTITY.search(aside["name"]) and is_title(aside["name"]):
        return True  # "Murph (20# vest)": the name decides
    if header(text) or section_header(text) or is_note(text):
        return False
    if re.match(r"^\d", text) or quantities.SETS_REPS.search(text) or _COMPLEX_COUNTS.search(text):
        return False  # "(1+2+1)": a complex's counts (found by the property test)
    read = movement(text)
    if vocabulary.lookup(text.strip(" :\"'“”")) or (read and vocabulary.lookup(read["name"])):
        return False  # "Thrusters", "Deadlift 1RM" first are movements, not names
    if QUANTITY.search(text) and (
        any(_names_known(piece) for piece in pieces(text)) or names_a_movement(text)
    ):
        return False  # "x 4 rounds & pull-ups": a count, then a known movement (property test)
    if sum(_counts_known(piece) for piece in pieces(text)) >= 2:
        return False  # "Run 400, 21 KBS": a list of counted movements
    if _counts_a_movement(text):
        return False  # "for time 1,000 ומתח": a count, then a movement's name
    # "Deadlift 5-5-5-3-3-3", "Deadlift, 1.5 x BW": a lift, even first; "Monday 3/2" a title
    measured: dict[str, Any] = {}
    quantities.measures(CAP.sub(" ", text), measured)  # "Chipper (cap 25 min)" is still a name
    if CAP.search(text) and names_a_movement(CAP.sub(" ", text).strip(" ,()")):
        return False  # "TC 12' thrusters": a cap, then a movement (found by the property test)
    if quantities.MOVEMENT_SCHEME.search(text) or "%" in text or "@" in text:
        return False
    if measured.keys() - {"load"}:
        return False
    if "load" in measured and not quantities.BARE_LOAD.search(text):
        return False
    return len(text.split()) <= 8 and (
        bool(re.search(r"[\"'“”״׳]", text)) or bool(re.search(r"\d", text)) or text.isupper()
        or text.endswith(":") or (len(text.split()) <= 5 and text[:1].isupper())
        or (len(text.split()) <= 5 and not text.isascii())
    )  # fmt: skip


# -- a known workout's name (the benchmark girls, hero WODs: domain/named_workouts.toml) -------

_QUOTES_OPEN = "\"'“„«‹(["
_QUOTES_CLOSE = "\"'”»›)]"
_LABEL_END = re.compile(r"[:=|•–—-]\s*$")


def _bare(text: str) -> str:
    text = LABEL_PREFIX.sub("", text.strip())
    return undecorated(text).strip().strip("\"'“”„«»‹›()[]!?.:;,-–—* ").strip()


def known_name(text: str) -> str | None:
    """The canonical name of a known workout written alone ("HELEN", '"Jack"', "«Хелен»:",
    "מרף 🇮🇱"), or None."""
    workout = named_workouts.known(_bare(text))
    return workout.name if workout else None


def named_head(text: str) -> tuple[str, str] | None:
    """A known workout's name heading a line, and what the line says after it ("grace 30 c&j
    135/95 for time": Grace, "30 c&j 135/95 for time"), or None."""
    found = named_workouts.mentions(text)
    if not found or LETTER.search(text[: found[0].start]):
        return None
    return found[0].workout.name, text[found[0].end :].strip(" :-–—,")


def _in_a_movement(line: str, mention: named_workouts.Mention) -> bool:
    """ "jumping jack", "10 Jack …": the name is a word of a movement, or counted like one."""
    before = line[: mention.start].split()
    after = line[mention.end :].split()
    if before and re.fullmatch(r"\d[\d.,/]*", before[-1]):
        return True
    around = [f"{before[-1]} {mention.text}"] if before else []
    around += [f"{mention.text} {after[0]}"] if after else []
    return any(vocabulary.lookup(words_) is not None for words_ in around)


def _stands_as_title(line: str, mention: named_workouts.Mention) -> bool:
    """Where a name that is also a word counts: alone or first on its line, after a label
    ("Metcon – HELEN", "Today = Karen"), in quotes or brackets, or in capitals on a line that
    is not."""
    before, after = line[: mention.start], line[mention.end :]
    # "Hope you're ready!", "Grace and grit": a sentence goes on after the word ("jerry ft:"
    # goes on with its format)
    said = re.split(r"[:,;!?.–—(]|\s-\s|\d", after, maxsplit=1)[0].strip()
    sentence = said[:1].islower() and section_header(said) is None
    if not LETTER.search(LABEL_PREFIX.sub("", before.lstrip())) and not sentence:
        return True  # the head of the line (a label, a bullet or an emoji before it)
    if _LABEL_END.search(before) and len(before.split()) <= 5 and not sentence:
        return True
    opened, closed = before.rstrip()[-1:], after.lstrip()[:1]
    if opened and closed and opened in _QUOTES_OPEN and closed in _QUOTES_CLOSE:
        return True
    rest = before + after
    cased = [c for c in rest if c.isupper() or c.islower()]
    shouting = mention.text.isupper() and len(mention.text) >= 3
    return shouting and not all(c.isupper() for c in cased) if cased else shouting


def named_title(head: list[str]) -> str | None:
    """The canonical name of the known workout the text's first lines name, or None.

    `head`: the lines before the first that gave a movement, and that line. A name counts
    wherever it is written there ("Today's benchmark is Fran!", "Сегодня Грейс"), except one
    that is also a word ("Grace", "Jack", "Linda"): that one only where a title stands. A name
    that is part of a movement ("jumping jack") never counts.
    """
    for line in head:
        for mention in named_workouts.mentions(line):
            if _in_a_movement(line, mention):
                continue
            if not mention.word or _stands_as_title(line, mention):
                return mention.workout.name
    return None
