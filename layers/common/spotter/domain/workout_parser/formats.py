"""Format lines: For Time, rounds, AMRAP, EMOM and every-N clocks, Tabata, rep schemes, caps.

`section_header` reads a line that states a format ("AMRAP 12", "E2:30 x 5", "5 RFT",
"21-15-9", "Каждые 2 минуты x 6 раундов") into a `Section`; `format_prefix` finds where a
format stated at the start of a line ends and its movements begin ("5 RFT 800m run, …").
"""

from __future__ import annotations

import functools
import re
from dataclasses import replace

from spotter.domain import movement_vocabulary as vocabulary
from spotter.domain.workout_parser import lexicon, quantities
from spotter.domain.workout_parser.lexicon import TIMES, words
from spotter.domain.workout_parser.lines import LABEL_PREFIX, LETTER, QUANTITY, squeeze
from spotter.domain.workout_parser.model import Section
from spotter.domain.workout_parser.movements import REST, names_a_movement
from spotter.domain.workout_parser.quantities import SCHEME_TEXT, seconds_in

MINUTE_WORDS = words(lexicon.MINUTES)  # "min", "минут", "דקות": the table's spellings
_MIN = rf"(?:[\s-]*{MINUTE_WORDS}(?!\w)|['’′])"
_SEC_WORDS = words(lexicon.SECONDS)
_END = r"(?!\w)"
_AMRAP = re.compile(
    rf"\b{words(lexicon.AMRAP)}\s*(?:in\s*|of\s*|за\s*|של\s*|ב-?\s*)?(\d+)(?:{_MIN})?"
    rf"|(\d+)(?:{_MIN})?\s*{words(lexicon.AMRAP)}{_END}"
    rf"|{words(lexicon.AMRAP_PHRASES)}[\s-]*(\d+)"
    rf"|(\d+)(?:{_MIN})\s*{words(lexicon.AMRAP_AFTER)}{_END}",
    re.I,
)
_REPEATS = re.compile(rf"\s*{TIMES}\s*(\d+)(?!\s*(?:{MINUTE_WORDS}|['’]))", re.I)
_EMOM_WORD = r"[EЕ](\d*)(?:MOM|MOTM|OTM|МОМ)"
_FOR_DURATION = rf"(?:{words(lexicon.FOR_DURATION)}-?(?!\w)|ל-)"
_EMOM = re.compile(
    rf"\b{_EMOM_WORD}\b\s*(?:{TIMES}\s*)?(\d+)?(?:{_MIN})?|(\d+)(?:{_MIN})?\s*{_EMOM_WORD}\b"
    rf"|{words(lexicon.EVERY_MINUTE)}(?:\s*{_FOR_DURATION}?\s*(\d+)(?:{_MIN})?)?",
    re.I,
)
# "E2:30 x 5", "E90s x 8", "Every 2:00 for 10 min", "Каждые 2 минуты x 6 раундов", "כל 90 שניות".
_COUNT_UNIT = rf"(?:{MINUTE_WORDS}|{words(lexicon.ROUNDS)}|{words(lexicon.SETS)}){_END}"
_EVERY = re.compile(
    rf"(?:\b{words(lexicon.EVERY)}\s*|\b[EЕ](?=\d))(?P<size>\d+(?::\d{{2}})?|:\d{{2}})?\s*"
    rf"(?P<unit>{MINUTE_WORDS}{_END}|{_SEC_WORDS}{_END}|['’′\"])?"
    rf"(?:\s*[,:]?\s*(?P<sep>{TIMES}|{_FOR_DURATION})\s*(?P<count>\d+)\s*"
    rf"(?P<cunit>{_COUNT_UNIT})?)?",
    re.I,
)
# "1:00 on / 1:00 off x 8", "40s on, 20s off", "8 x (1:00 on / 1:00 off)": work and rest.
_ON_OFF = re.compile(
    rf"(?:(?P<before>\d+)\s*{TIMES}\s*\(?\s*)?(?P<on>\d+(?::\d{{2}})?)\s*(?P<u1>{_SEC_WORDS}|{MINUTE_WORDS}|['’\"])?\s*{words(lexicon.WORK)}(?!\w)"
    rf"\s*[/,]?\s*(?P<off>\d+(?::\d{{2}})?)\s*(?P<u2>{_SEC_WORDS}|{MINUTE_WORDS}|['’\"])?\s*"
    rf"{words(lexicon.OFF)}(?!\w)(?:\s*[,]?\s*{TIMES}\s*(?P<count>\d+))?",
    re.I,
)
TABATA = re.compile(rf"\b{words(lexicon.TABATA)}{_END}", re.I)
FOR_TIME = re.compile(
    rf"(?<!\w){words(lexicon.FOR_TIME)}{_END}|(?<=\d)RFT{_END}"  # "3RFT", "5RFT:"
    rf"|^{words(lexicon.FOR_TIME_OPENING)}(?=\s*(?:[:,;(\-–—]|$))"  # "FT, 35 min cap"
    # "75 power snatches 75/55# FT": ending the line after no number ("15 ft" is feet)
    rf"|(?<=[^\d\s]\s)(?-i:FT)\.?$",
    re.I,
)
# "RFT x4", "For time x 3", "RFT (x5)", "на время х3": the rounds said after the race.
_RACE_TIMES = re.compile(
    rf"^\s*{words(lexicon.FOR_TIME)}(?P<times>\s*\(?\s*{TIMES}\s*(?P<n>\d+)"
    rf"(?!\s*(?:{MINUTE_WORDS}|['’]|\d))\s*\)?)",
    re.I,
)
# "3 rounds NOT for time": rounds done for quality, not a race.
NOT_FOR_TIME = re.compile(
    rf"(?<!\w)(?:(?:not|не|לא)\s+{words(lexicon.FOR_TIME)}|{words(lexicon.NOT_FOR_TIME)}){_END}",
    re.I,
)
_ROUNDS = re.compile(rf"(\d+)\s*-?\s*{words(lexicon.ROUNDS)}{_END}", re.I)
_SETS_ONLY = re.compile(rf"^(?:{TIMES}\s*)?(\d+)\s*{words(lexicon.SETS)}$", re.I)
_GROUP = re.compile(rf"(?<!\w){words(lexicon.GROUPS)}(?!\w)", re.I)
# "x3", "3x", "3 x": the lines below, three times.
_TIMES_ONLY = re.compile(
    rf"^(?:{words(lexicon.REPEAT)}\s+(?:for\s+)?)?"
    rf"(?:{TIMES}\s*(\d+)|(\d+)\s*(?:{TIMES}|{words(lexicon.TIMES_WORDS)}(?!\w)))$",
    re.I,
)
# "Rounds: 5", "Sets - 4", "סבבים: 3": the count after the word.
_ROUNDS_SAID = re.compile(
    rf"^(?:{words(lexicon.ROUNDS)}|{words(lexicon.SETS)})\s*[:=–—-]\s*(\d+)\s*:?$", re.I
)
CAP = re.compile(
    rf"\b{words(lexicon.CAP)}\s*[:=]?\s*(?:of\s*)?(\d+)(?::(\d{{2}}))?(?:{_MIN})?"
    rf"|(\d+)\s*(?:{MINUTE_WORDS}|['’′])\s*(?:time\s*)?{words(lexicon.CAP)}{_END}",
    re.I,
)
SCHEME = re.compile(rf"^({SCHEME_TEXT})(?:\s*(?:…|\.\.\.|\+|etc\.?))?(?!\d)")
ANY_SCHEME = re.compile(rf"(?<![\d:/.])({SCHEME_TEXT})(?:\s*(?:…|\.\.\.|\+|etc\.?))?(?![\d:])")
_ROUNDS_X = re.compile(rf"^(\d+)\s*{TIMES}\s*")
# "0:00-20:00 EMOM", "Deadlift: 0:00-12:00 build to a heavy single": a window of the class
# clock that starts at zero, as long as its end.
WINDOW = re.compile(r"(?<![\d:])(?:\d{1,2}):00\s*[-–—]\s*(?:\d{1,2}):00(?![\d:])")
_WINDOW_ENDS = re.compile(r"(\d{1,2}):00\s*[-–—]\s*(\d{1,2}):00")


def window_seconds(window: str) -> int | None:
    """How long a window of the class clock is ("15:00–25:00": ten minutes); None when it
    does not run forward."""
    m = _WINDOW_ENDS.search(window)
    if m is None or int(m.group(2)) <= int(m.group(1)):
        return None
    return (int(m.group(2)) - int(m.group(1))) * 60


_MAX_REPS = re.compile(r"\bmax(?:imum)?\s+reps?\b|максимум повторений|מקסימום חזרות", re.I)
# Words a format line carries around its format ("5 rounds, each for time of:").
_FILLER = re.compile(
    r"(?<!\w)(?:of|each|reps?|for|the|following|complete|all|in|a|with|then|on|and|rounds?|sets?"
    r"|minutes?|min|as|many|possible|max|maximum|alternating|alt|intervals?|total|time"
    r"|на|по|из|раунд\w*|круг\w*|мин\w*|подход\w*|затем|за|максимум|повторени\w*"
    r"|של|סבבים|סבב|דקות|ואז|מקסימום|חזרות)(?!\w)",
    re.I,
)
_NUMBER_WORD = re.compile(
    rf"(?<!\w)({'|'.join(lexicon.NUMBERS)})(?=\s+(?:{words(lexicon.ROUNDS)}|{words(lexicon.SETS)}"
    rf"|{MINUTE_WORDS}){_END})",
    re.I,
)
TEAMS = re.compile(
    rf"(?<!\w)(?:{words(lexicon.TEAMS)}(?:\s+\d+)?|\d+\s*(?:person|people|-person)\s+teams?)(?!\w)",
    re.I,
)
# "(3 min rest between)", "(מנוחה 2 דקות בין סבבים)": a rest said in brackets is a note.
_BRACKETED_REST = re.compile(rf"\(([^()]*(?<!\w){words(lexicon.REST)}(?!\w)[^()]*)\)", re.I)
# "E2MOM x 5 (10 דק')", "EMOM (12 min total)", "Every 3:00 x 4 (12 мин)": how long the clock
# runs, said again in brackets.
_BRACKETED_LENGTH = re.compile(
    rf"\(\s*(?:total\s*)?(\d+)(?:{_MIN})['’]?\s*(?:total|in\s+all|всего|סה\"?כ|בסך\s+הכל)?\s*\)",
    re.I,
)
# "5 rounds, 1 min each station:", "40 sec per exercise", "по 1 мин на станцию", "דקה בכל תחנה":
# how long each movement of the list is worked, a note of the section (its clock is the list's).
_STATION = re.compile(
    rf"(?:\d+(?::\d{{2}})?\s*(?:{MINUTE_WORDS}|{_SEC_WORDS}|['’])?|{MINUTE_WORDS})\s*"
    r"(?:(?:(?:at|on|per|each|в|на|каждой|בכל|לכל|על)\s+)+(?:station|movement|exercise|станци\w*"
    r"|упражнени\w*|תחנה|תרגיל)s?(?!\w)|each$)",  # "3 rounds, 1 min each:"
    re.I,
)
# "0:00-20:00 EMOM (x5)": the stations gone through five times, a note of the clock.
# ("RFT (x5)" is five rounds.)
_CYCLES = re.compile(rf"(?<=MOM|OTM|МОМ)\s*\(\s*{TIMES}\s*\d+\s*\)", re.I)
# "3 x 4 min AMRAP w/ 1 min rest", "with 2' rest between": the rest between them, a note.
_WITH_REST = re.compile(
    rf"\s*(?:w/|with|עם|с)\s*\d+(?::\d{{2}})?\s*(?:{MINUTE_WORDS}|{_SEC_WORDS}|['’])?\s*"
    rf"{words(lexicon.REST)}(?!\w)(?:\s+(?:between|b/w)(?:\s+\w+)?)?",
    re.I,
)
# "For time w/ 20 lb vest:", "(with a 20/14 lb vest)", "в жилете 9/6 кг", "עם ווסט": what the
# workout is done in, a note of the section.
_WORN = re.compile(
    rf"(?:(?:w/|with|wearing|עם|в|с)\s*(?:an?\s+)?)?(?:[\d./]+\s*(?:{quantities.LOAD_UNIT})?\s*-?\s*)?"
    rf"{words(lexicon.IMPLEMENTS['vest'])}(?:\s*[\d./]+\s*(?:{quantities.LOAD_UNIT})?)?(?!\w)",
    re.I,
)
_LADDER = re.compile(rf"(?<!\w){words(lexicon.LADDER)}(?!\w)", re.I)
_RANGE = re.compile(r"(?<![\d.:/-])(\d+)\s*[-–—]\s*(\d+)(?![\d.:/%-])")


def ladder_scheme(text: str) -> str:
    """A ladder said as its range ("1-10 ladder", "Ladder 10-1") with every step written out
    ("1-2-3-…-10"), as a rep scheme is read; a range without the word stays as written."""
    if not _LADDER.search(text):
        return text

    def steps(m: re.Match[str]) -> str:
        first, last = int(m[1]), int(m[2])
        if first == last or abs(last - first) > 30:
            return m.group(0)
        step = 1 if last > first else -1
        return "-".join(str(n) for n in range(first, last + step, step))

    return _RANGE.sub(steps, text, count=1)


# What opens a list with the reps each round climbs by, before the movements: "1-2-3-4… ladder of
# power cleans + …", "Ladder 1-10: …", "2-4-6-8… of", "лесенка 1-10:", "סולם 1-5 של …", "21-15-9 …".
_LADDER_ADJECTIVE = r"(?:(?:ascending|descending|climbing|восходящая|нисходящая|עולה|יורד)\s+)"
_LEADING_SCHEME = re.compile(
    rf"^(?P<before>{_LADDER_ADJECTIVE}?{words(lexicon.LADDER)}(?!\w)\s*:?\s*)?"
    rf"(?P<scheme>{SCHEME_TEXT}|\d+\s*[-–—]\s*\d+)(?P<more>\s*(?:…|\.\.\.|\+|etc\.?))?"
    rf"(?P<after>\s*(?:-?\s*(?:reps?|rep\s+)?{_LADDER_ADJECTIVE}?{words(lexicon.LADDER)})(?!\w))?"
    # "1-10 ladder of reps of burpees", "Ladder 10-1: reps of burpees": the reps the ladder
    # counts, then what they are of (after the scheme's colon too)
    rf"(?:\s*[:\-–—]?\s*(?:reps?\s+)?(?:of|из|של)(?:\s+reps?\s+of)?(?!\w))?"
    rf"\s*[:\-–—]?\s*(?=[^\W\d])",
    re.I,
)


def leading_scheme(text: str) -> tuple[str, int, bool] | None:
    """The rep scheme or ladder a list opens with ("1-2-3-4… ladder of power cleans + …"): the
    scheme (a ladder's range as its steps), where the movements start, and whether a ladder
    word said so. A range of two numbers is a ladder only beside the word ("1-10 ladder"; "1-10
    burpees" is not one)."""
    m = _LEADING_SCHEME.match(text)
    if m is None:
        return None
    ladder = bool(m["before"] or m["after"])
    scheme = re.sub(r"\s+", "", m["scheme"]).replace("–", "-").replace("—", "-")
    if scheme.count("-") < 2:
        if not ladder:
            return None
        scheme = ladder_scheme(f"{scheme} ladder").removesuffix(" ladder")
        if scheme.count("-") < 2:
            return None
    return scheme, m.end(), ladder


_OF_ENDING = re.compile(r"(?<=\S)\s+(?:of|из|של)$", re.I)


def of_ending(head: str) -> str:
    """A header before its colon without the "of" it ends with ("3 sets of:", "4 סבבים של:"):
    what follows is the list."""
    return _OF_ENDING.sub("", head)


COLON_TAIL = re.compile(r":\s*(?!\d{2}\b)\S|\s[-–—]\s+\S")


def _plain(text: str) -> str:
    """A header's count without the words around it ("3 sets NFT", "Superset x 4 sets")."""
    return squeeze(_GROUP.sub(" ", NOT_FOR_TIME.sub(" ", text))).strip(" ,:-–—()")


def digits_for_words(text: str) -> str:
    """ "Five rounds" as "5 rounds" (only before rounds, sets or minutes)."""
    return _NUMBER_WORD.sub(lambda m: str(lexicon.NUMBERS[m.group(1).lower()]), text)


def _amrap(text: str, section: Section) -> bool:
    if not (m := _AMRAP.search(text)):
        return False
    section.format = "amrap"
    minutes = next(g for g in m.groups() if g)
    section.duration_seconds = int(minutes) * 60
    if repeats := _REPEATS.match(text, m.end()):
        section.rounds = int(repeats.group(1))  # "AMRAP 3 min x 4 rounds"
    return True


def _emom(text: str, section: Section) -> bool:
    if not (m := _EMOM.search(text)):
        return False
    every = int(m.group(1) or m.group(4) or 1)
    count = m.group(2) or m.group(3) or m.group(5)
    section.format = "emom"
    section.interval_seconds = every * 60
    if count:
        # "E2MOM x 6" counts rounds; "EMOM 12" / "E2MOM 12" count minutes.
        by_rounds = bool(re.search(rf"{TIMES}\s*\d", m.group(0), re.I)) and every > 1
        section.rounds = int(count) if by_rounds else max(int(count) // every, 1)
        section.duration_seconds = section.rounds * every * 60
    return True


def _every(text: str, section: Section) -> bool:
    m = _EVERY.search(text)
    if not m or not (m.group("size") or m.group("count")):
        return False
    if not m.group("size") and not m.group("unit"):
        return False  # "each for time": not a clock
    unit = (m.group("unit") or "min").lower()
    size = m.group("size") or "1"
    seconds_unit = bool(re.fullmatch(_SEC_WORDS, unit, re.I)) or unit == '"'
    if size.startswith(":"):
        seconds = int(size[1:])  # "Every :90": ninety seconds
    else:
        seconds = seconds_in(size) if ":" in size else int(size) * (1 if seconds_unit else 60)
    if seconds <= 0:
        return False
    section.format = "emom"
    section.interval_seconds = seconds
    if not m.group("count"):
        return True
    count = int(m.group("count"))
    cunit = m.group("cunit") or ""
    by_minutes = bool(re.fullmatch(MINUTE_WORDS, cunit, re.I))
    if not cunit and (m.group("sep") or "").lower() in ("for", "в течение", "на", ","):
        # "every 2:00 for 10" is ten minutes; "every 4:00 for 4" four rounds
        by_minutes = count * 60 % seconds == 0 and count * 60 // seconds >= 2
    section.rounds = max(count * 60 // seconds, 1) if by_minutes else count
    section.duration_seconds = seconds * section.rounds
    return True


def _on_off(text: str, section: Section) -> bool:
    if not (m := _ON_OFF.search(text)):
        return False

    def length(value: str, unit: str | None) -> int:
        if ":" in value:
            return seconds_in(value)
        minutes = unit is not None and bool(re.fullmatch(MINUTE_WORDS, unit, re.I))
        return int(value) * (60 if minutes or unit in ("'", "’") else 1)

    section.format = "emom"
    section.interval_seconds = length(m["on"], m["u1"]) + length(m["off"], m["u2"])
    if count := m["count"] or m["before"]:
        section.rounds = int(count)
        section.duration_seconds = section.rounds * section.interval_seconds
    return True


def _timed_format(text: str, section: Section) -> bool:
    """Fill in AMRAP / EMOM / every-N / Tabata timing; False when the line has none."""
    if _amrap(text, section) or _emom(text, section):
        return True
    if tabata := TABATA.search(text):
        section.format = "tabata"
        repeats = _REPEATS.match(text, tabata.end())
        section.rounds = 8 * int(repeats.group(1)) if repeats else 8  # "Tabata x 2": twice
        section.interval_seconds = 30
        return True
    return _on_off(text, section) or _every(text, section)


def _format_of(text: str, section: Section) -> str | None:
    """The section's format from a header's words: the words left, None when it names none."""
    if (times := _ROUNDS_X.match(text)) and (_AMRAP.search(text) or FOR_TIME.search(text)):
        # "3 x 4 min AMRAP": repeated pieces of the same format.
        section.rounds = int(times.group(1))
        text = text[times.end() :]
    if _timed_format(text, section):
        return text
    if FOR_TIME.search(text) and not NOT_FOR_TIME.search(text):
        section.format = "for_time"
        if times := _RACE_TIMES.match(text):
            section.rounds = int(times["n"])
            text = squeeze(text[: times.start("times")] + " " + text[times.end("times") :])
    elif m := _TIMES_ONLY.match(text):
        section.format = "rounds"
        section.rounds = int(m.group(1) or m.group(2))
    elif (_ROUNDS.search(text) and not quantities.SETS_REPS.search(text)) or _SETS_ONLY.match(
        _plain(text)
    ):
        section.format = "rounds"  # "3 sets NFT", "5 rounds (not for time)", "Superset x 4 sets"
    elif SCHEME.match(text) or (_LADDER.search(text) and ANY_SCHEME.search(text)):
        # A bare descending scheme ("21-15-9", "9-7-5") or a ladder is for time by convention.
        section.format = "for_time"
    else:
        return None
    return text


def cap_seconds(m: re.Match[str]) -> int:
    if m.group(3):
        return int(m.group(3)) * 60
    return seconds_in(f"{m.group(1)}:{m.group(2) or '00'}")


def _strip_all(text: str, patterns: tuple[re.Pattern[str], ...]) -> str:
    for pattern in patterns:
        text = squeeze(pattern.sub(" ", text))  # "Tabata x 2": "x 2" is then a line's own
    return text


def _clock_length(text: str, length: re.Match[str], section: Section) -> str:
    """A clock's length said in brackets ("E2MOM x 5 (10 דק')", "AMRAP (20 min)"): the clock's
    duration; the text without it. Beside any other format it stays as written."""
    for said in (
        squeeze(text[: length.start()] + " " + text[length.end() :]),
        squeeze(text[: length.start()] + f" {length.group(1)} min " + text[length.end() :]),
    ):
        clock = Section(from_header=True)
        if _format_of(said, clock) is not None and clock.format in ("emom", "amrap", "tabata"):
            if clock.duration_seconds is None:
                section.duration_seconds = int(length.group(1)) * 60
            return said
    return text


def _inside_brackets(text: str, index: int) -> bool:
    return text[:index].count("(") > text[:index].count(")")


def _without_asides(text: str, section: Section) -> str:
    """A header without who does it ("Team of 2"), a rest in brackets ("(3 min rest between)")
    or a rest after it: each a note of the section."""
    for aside in (_BRACKETED_REST, TEAMS, _STATION, _WORN, _WITH_REST, _CYCLES):
        m = aside.search(text)
        if m is None or (aside is TEAMS and _inside_brackets(text, m.start())):
            continue  # "AMRAP 12 (partner style)": a bracket is read whole
        if _format_of(_strip_all(text, (aside,)), Section()):
            section.notes.append(m.group(0).strip("() "))
            text = _strip_all(text, (aside,)).strip(" ,;")
    if rest := REST.search(text):
        section.notes.append(rest.group(0).strip())
        text = text[: rest.start()].strip(" ,;")
    return text


def team_format(line: str) -> bool:
    """ "Team of 2, 30 min AMRAP, one works one rests:": a line that opens with who does the
    workout and says its format is the format's, not a note."""
    text = line.strip()
    if not TEAMS.match(text):
        return False
    heads = (text, text.split(":", 1)[0]) if ":" in text else (text,)
    return any(
        section_header(head, header_only=True) is not None or CAP.search(head) for head in heads
    )


def section_header(line: str, *, header_only: bool = False) -> Section | None:
    """A format line ("AMRAP 12", "E2MOM x 6", "3 rounds for time", "21-15-9") or None.

    `header_only`: the line ended with ":" — whatever else it says is a note on the section.
    The reader asks this of the same text several times (a header? a title's format? a
    sentence's?): it is read once, and each caller gets its own section to fill.
    """
    read = _section_header(line, header_only)
    if read is None:
        return None
    return replace(
        read, shared=list(read.shared), halves=list(read.halves), notes=list(read.notes),
        movements=[],
    )  # fmt: skip


@functools.lru_cache(maxsize=4096)
def _section_header(line: str, header_only: bool) -> Section | None:
    text = digits_for_words(LABEL_PREFIX.sub("", line.strip()).rstrip(":").strip())
    if line.rstrip().endswith(":"):
        text = of_ending(text)
    text = ladder_scheme(text)
    if said := _ROUNDS_SAID.match(text):
        return Section(format="rounds", rounds=int(said.group(1)), from_header=True)
    if not header_only and COLON_TAIL.search(text):
        return None  # "AMRAP 20: 5 pull-ups, …" is a format and its movements
    section = Section(from_header=True)
    text = _without_asides(text, section)
    if length := _BRACKETED_LENGTH.search(text):
        text = _clock_length(text, length, section)
    if (words_left := _format_in_window(text, section)) is None:
        return None
    text = words_left
    if section.rounds is None and (m := _ROUNDS.search(text)):
        section.rounds = int(m.group(1))
    if section.rounds is None and (m := _SETS_ONLY.match(_plain(text))):
        section.rounds = int(m.group(1))
    scheme = SCHEME.match(text) or (ANY_SCHEME.search(text) if section.format != "rounds" else None)
    if scheme:
        section.rep_scheme = re.sub(r"\s+", "", scheme.group(1))
    if m := CAP.search(text):
        section.time_cap_seconds = cap_seconds(m)
    if _MAX_REPS.search(text):
        section.max_reps = True
    leftover = _strip_all(
        text,
        (_AMRAP, _EMOM, _ON_OFF, _EVERY, TABATA, _ROUNDS, CAP, ANY_SCHEME, _TIMES_ONLY)
        + (() if NOT_FOR_TIME.search(text) else (FOR_TIME,)),
    )
    quality = NOT_FOR_TIME.search(leftover)
    leftover = _SETS_ONLY.sub("", _plain(leftover))
    if quality:
        leftover = squeeze(f"{leftover} {quality.group(0)}")  # "NFT" stays the section's note
    found: dict[str, object] = {}
    shared_text = quantities.measures(leftover, found) if header_only else leftover
    shared_text = NOT_FOR_TIME.sub(" ", shared_text)
    words_ = _FILLER.sub(" ", shared_text).strip(" :-–—,.()…")
    # "AMRAP 12: 10 burpees" carries a movement after the format, and so does "21-15-9
    # thrusters and pull-ups"; a word or two that names no movement is the section's name.
    named = names_a_movement(words_) and not _heading(words_)  # "Snatch complex EMOM 10"
    if words_ and not header_only and (QUANTITY.search(words_) or named):
        return None
    if found:
        # "4 rounds (100/70 kg for all lifts):": a load stated once for the section's lifts
        section.shared.extend((k, None, str(v)) for k, v in found.items() if k != "seconds")
    if LETTER.search(words_) or found or quality:
        section.notes.insert(0, squeeze(leftover).strip(" :-–—,.…()"))
    return section


def _format_in_window(text: str, section: Section) -> str | None:
    """`_format_of`, for a header that may say its clock's window ("0:00-20:00 EMOM"): the
    window is the clock's length; one that does not run forward says no format."""
    window = WINDOW.search(text)
    if window is None:
        return _format_of(text, section)
    seconds = window_seconds(window.group(0))
    left = _format_of(squeeze(text[: window.start()] + " " + text[window.end() :]), section)
    if seconds is None or left is None or not _windowed(section, seconds):
        return None
    return left


def _windowed(section: Section, seconds: int) -> bool:
    """A clock's window ("0:00-20:00 EMOM") is its length; beside a format with no clock it
    says nothing the reader can place, so the line is not that format's."""
    if section.format == "amrap" and section.duration_seconds in (None, seconds):
        section.duration_seconds = seconds
        return True
    if section.format == "emom" and section.interval_seconds:
        if section.duration_seconds is None:
            section.duration_seconds = seconds
            section.rounds = max(seconds // section.interval_seconds, 1)
        return section.duration_seconds == seconds
    return False


def _heading(words_: str) -> bool:
    """Words that head what follows: a word or two and a heading word ("Snatch complex",
    "Kettlebell complex", "Комплекс рывка"), naming no movement themselves."""
    return (
        vocabulary.is_heading(words_)
        and vocabulary.lookup(words_) is None
        and len(words_.split()) <= 3  # "ladder of power cleans + burpees" lists movements
    )


def format_prefix(text: str) -> tuple[Section, str] | None:
    """A format at the start of a line and the movements after it, with no separator between
    them ("5 RFT 800m run, 30 KBS", "21-15-9 thrusters and pull-ups"): the longest head of
    the line that reads as a format, and the rest."""
    spaces = [m.start() for m in re.finditer(r"\s+", text)]
    for cut in reversed(spaces):
        head, tail = text[:cut].strip(" ,"), text[cut:].strip(" ,")
        if not head or not tail or not LETTER.search(tail):
            continue
        if (_TIMES_ONLY.match(head) and not _ROUNDS.search(head)) or _SETS_ONLY.match(head):
            continue  # "3 x 10 T2B", "3 sets of max pull-ups": a lift's sets, not rounds
        section = section_header(head)
        # "21-15-9 thrusters": the format is "21-15-9"; a word it did not read is a movement's
        if section is not None and not section.notes:
            return section, tail
    return None


def completes(current: Section, following: Section) -> bool:
    """Whether a format line adds to the one before it rather than starting a section."""
    return current.format in ("other", "rounds") or following.format in ("rounds", "for_time")


def absorb(current: Section, following: Section) -> None:
    """A format line that adds to the section before it ("All for time:" then "5 rounds of:")."""
    if current.format in ("other", "rounds") and following.format != "other":
        current.format = following.format
    for name in ("rounds", "rep_scheme", "duration_seconds", "interval_seconds"):
        if getattr(current, name) is None:
            setattr(current, name, getattr(following, name))
    current.time_cap_seconds = current.time_cap_seconds or following.time_cap_seconds
    current.max_reps = current.max_reps or following.max_reps
    current.notes.extend(following.notes)
    current.shared.extend(following.shared)
