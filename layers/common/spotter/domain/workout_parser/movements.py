"""Recognizing movements: a line into its movement pieces, a piece into a movement.

A movement is what is left of a piece once its numbers are read (quantities.py): "20 wall balls
(9/6kg, 10ft)" is `{reps: 20, load: "9/6kg", height: "10ft", name: "wall balls"}`. Names stay
as the coach wrote them (cleaned); the resolver matches them to the library. The shared
vocabulary is used where grammar alone cannot tell: where a line of movements written without
separators splits ("5 pull-ups 10 push-ups 15 squats"), which "and" joins two movements and
which is part of one ("clean and jerk"), and which implement a piece names.
"""

from __future__ import annotations

import functools
import itertools
import re
from typing import Any

from spotter.domain import movement_vocabulary as vocabulary
from spotter.domain.workout_parser import lexicon, quantities
from spotter.domain.workout_parser.cores import known_core
from spotter.domain.workout_parser.lexicon import TIMES, words
from spotter.domain.workout_parser.lines import (
    LABEL_PREFIX,
    LETTER,
    QUANTITY,
    THOUSANDS,
    inline_numbers,
    outside_brackets,
    squeeze,
)
from spotter.domain.workout_parser.quantities import take

_MIN_WORD = r"(?:[\s-]*(?:min(?:ute)?s?|'|דקות|דק׳|דק|мин(?:ут[аы]?)?)\b|')"
_REST_LENGTH = rf"\d+(?::\d{{2}})?\s*(?:{_MIN_WORD}|['’′]|[\s-]*{words(lexicon.SECONDS)}\b)?"
# "Rest 2 min", "rest 1:00 b/w rounds", "1 min rest", ":90 rest", "מנוחה 2 דקות".
REST = re.compile(
    rf"(?:^|\b){words(lexicon.REST)}\s+\d+(?::\d{{2}})?(?:{_MIN_WORD})?.*$"
    rf"|^:?{_REST_LENGTH}\s*{words(lexicon.REST)}\b.*$"  # "3 min rest between rounds"
    rf"|(?<=[,;]\s){_REST_LENGTH}\s*{words(lexicon.REST)}\b[^:]*$",  # "5 rounds, 3' rest between"
    re.I,
)
# A piece that opens as a note ("sub 3 goal", "scale to 65 lb") is not the quantity of the
# movement before it.
_NOTE_PIECE = re.compile(rf"^{words(lexicon.NOTE_OPENERS)}(?![\w+])", re.I)
_REMAINING = re.compile(rf"\s*(?<!\w){words(lexicon.REMAINING_TIME)}(?!\w)", re.I)
# "Min 1:", "Odd:", "דקה זוגית:", "Partner A:": which minute or partner a movement is for.
SLOT = re.compile(
    rf"^(?:min(?:ute)?\s*\d+|m\d+|\d+(?:st|nd|rd|th)\s*min(?:ute)?|{words(lexicon.ODD)}"
    rf"|{words(lexicon.EVEN)}|partner\s*[ab12]|p[12]|(?:דקה|מינוט)\s*\d+|минута\s*\d+|\d+\s*-?я\s*минута)"
    r"(?:\s*[:\-–—)]\s*|\s+(?=\d))"
    # "min 1 strict pull-ups x 6": a numbered minute before a name, with nothing between
    r"|^(?:min(?:ute)?\s*\d+|(?:דקה|מינוט)\s*\d+|минута\s*\d+)\s+(?=[^\W\d])",
    re.I,
)
THEN = re.compile(rf"^{words(lexicon.THEN)}\b\s*[:,]?\s*", re.I)
MAX = re.compile(r"(?<!\w)(?:max(?:\s+reps?)?|макс(?:имум)?|מקסימום)(?!\w)", re.I)
_MAX_CAL = re.compile(r"\bmax\s+cals?\b", re.I)
_LEADING_REPS = re.compile(rf"^(\d+)\s*(?:{words(lexicon.REPS)}(?!\w))?\s*", re.I)
_TRAILING_REPS = re.compile(rf"\s{TIMES}\s*(\d+)\s*$", re.I)
_DASHED_REPS = re.compile(r"(?<=[^\W\d_])\s*[-–—:=]\s*(\d+)(?=\s*(?:\([^()]*\))?\s*$)")
_CLOCK_LEAD = re.compile(
    rf"^(?:(?:at|on)\s+the\s+(?:top|start)\s+of\s+)?{words(lexicon.EVERY)}\s+(?:\d+(?::\d\d)?\s*)?"
    r"(?:min(?:ute)?s?|mins?|sec(?:ond)?s?|s|['’]|минут[уы]?|мин|секунд|דקה|דקות|שניות)(?!\w)"
    r"\s*[,:]?\s*(?=\d)",
    re.I,
)
_BRACKETED_REST = re.compile(rf"\(([^()]*(?<!\w){words(lexicon.REST)}(?!\w)[^()]*)\)", re.I)
_PAUSE_WORD = rf"(?<!\w){words(lexicon.PAUSE)}(?!\w)"
_PAUSE_LENGTH = rf"\d+(?:[.,]\d+)?\s*-?\s*(?:{words(lexicon.SECONDS)}(?!\w)\.?|[\"”]|'')"
# "(3 sec pause)", ", 2-second pause at the bottom", "с паузой 3 сек", "עם עצירה של 2 שניות"
_WITH = r",?\s*(?:(?:with|w/|с|עם)\s*(?:an?\s+)?)?"
_WHERE = r"(?:\s+(?:at|in|on)\s+(?:the\s+)?\w+|\s+(?:внизу|вверху|בתחתית|למטה))?"
# the word before its length first: "с паузой 3 сек" is not "3 с" then "паузой"
_PAUSE_SAID = (
    re.compile(rf"\([^()]*{_PAUSE_WORD}[^()]*\)", re.I),
    re.compile(rf"{_WITH}{_PAUSE_WORD}\s*:?\s*(?:של\s+|в\s+)?{_PAUSE_LENGTH}{_WHERE}", re.I),
    re.compile(rf"{_WITH}{_PAUSE_LENGTH}\s*-?\s*{_PAUSE_WORD}{_WHERE}", re.I),
)
_SECONDS_ONLY = re.compile(rf"\(\s*{_PAUSE_LENGTH}\s*\)", re.I)


def _pause(rest: str) -> re.Match[str] | None:
    """A pause inside the rep, said with its length; on a paused lift ("Pause squat 5x3 (2
    sec)") a bracket of seconds alone is the pause too."""
    for said in _PAUSE_SAID:
        if m := said.search(rest):
            return m
    if re.search(_PAUSE_WORD, rest, re.I):
        return _SECONDS_ONLY.search(rest)
    return None


_CALORIES_FIRST = re.compile(rf"^\s*{words(lexicon.CALORIES)}\.?\s+(?=[^\W\d])", re.I)
_CALORIES_LAST = re.compile(rf"(?<=[^\W\d])\s+\(?{words(lexicon.CALORIES)}\)?\.?\s*$", re.I)
_BARE_COUNT = re.compile(r"(?<=[^\W\d_])\s+(\d{1,3})(?=\s*(?:\([^()]*\))?\s*$)")
_TRAILING_REP_COUNT = re.compile(
    rf"[,\s]\s*(\d+)\s*(?:{words(lexicon.REPS)}|{words(lexicon.COUNT_NOUNS)})\s*$", re.I
)  # "thrusters, 21 reps", "Walking lunge, 50 steps"
_SETS_COMPLEX = re.compile(
    rf"^(\d+)\s*{TIMES}\s*\((.*)\)(.*)$|^(\d+)\s*sets?\s*(?:of|:)\s*(.*)$|^\((.*)\)\s*{TIMES}\s*(\d+)(.*)$",
    re.I,
)
# "Snatch pull + snatch 3x(2+1)", "power clean + front squat (1+2)": names, then their counts.
_COUNTS = re.compile(
    rf"[\s,]*(?:(\d+)\s*(?:{TIMES}|{words(lexicon.SETS)}\s*(?:of|по|של|{TIMES})?)\s*)?"
    rf"\(?\s*(\d+(?:\s*\+\s*\d+)+)\s*\)?(?:\s*{TIMES}\s*(\d+)(?:\s*{words(lexicon.SETS)})?)?\s*$",
    re.I,
)
_NAMED = re.compile(r"^([^\d:]{2,40}):\s*(.+)$")
# The marks after a complex's last lift, for all of its lifts: "… @ 70%", "…, 65-70%", "… ב-70%",
# "… at 75%", "… RPE 8".
_COMPLEX_TAIL = re.compile(
    rf"(?:\s*@|\s*,\s*(?=\d[\d.,\s–-]*%|RPE|tempo)|\s+(?={quantities.AT_MARK}\s*\d[\d.,\s–-]*%))[^+]*$",
    re.I,
)
# Separators of one line's movements; "clean and jerk" is one movement, not two.
_SPLIT = re.compile(
    r"\s*;\s*|(?<!\d),\s*|,(?!\d)\s*|\s+[/|]\s+|\s+[–—]\s+|\s+\+\s+"
    # "1000m row then 50 thrusters then 30 pull-ups": "then" before the next count
    r"|\s+(?:and\s+then|then|ואז|затем|потом)\s+(?=\d)"
    r"|\s+(?:and|&|и|ו-?)\s+(?=\d)|\s+(?:and|&|и)\s+|\s+ו-?(?=\d)|\s*\x02"
    # "400m/21 KBS 24kg/12 PU": a slash with no spaces before the next count and its name
    r"|(?<=[^\W\d_])/(?=\d+(?:[.,]\d+)?\s+(?!(?:kg|lbs?|pood|кг|cm|см|in|m|м)\b)[^\W\d])",
    re.I,
)
# Hebrew writes "and" as a letter on the next word: "תראסטרים ומתח" (thrusters and pull-ups).
_VAV = re.compile(r"\s(?=ו[\u05d0-\u05ea])")
_EQUIPMENT = frozenset(lexicon.EQUIPMENT_NAMES)
_LEADING = re.compile(r"^(?:(?:on|at|in)\s+)?(?:the|a|an)\s+(?=\S)|^(?:on|at)\s+(?=\S)", re.I)
_DANGLING = re.compile(
    rf"(?:\s+(?:{words(lexicon.DANGLING)}-?|{words(lexicon.COUNT_NOUNS)}))+$", re.I
)


def _joined_names() -> re.Pattern[str]:
    """Known names that hold a separator ("clean and jerk", "взятие и толчок")."""
    joined = {
        written
        for movement in vocabulary.movements()
        for written in (movement.name, *movement.all_aliases)
        if re.search(r"\s(?:and|&|и)\s|\+", written, re.I)
    }
    return re.compile(rf"(?<!\w){words(tuple(joined))}(?:e?s)?(?!\w)", re.I)


_JOINED = _joined_names()


# "run with a 45 lb plate", "2x5 of today's top set", "max burpees in the remaining time": how,
# not what. "… with dumbbells" stays: the vocabulary reads it as the DB variant.
_HOW_TAIL = re.compile(
    rf"(?:^|\s)(?:(?:with|w/)(?!\s+(?:an?\s+|two\s+)?{words(lexicon.VARIANT_IMPLEMENTS)}(?!\w))"
    r"|wearing|of\s+(?:today'?s|the|your)|(?:in|for)\s+(?:the\s+)?(?:remaining|rest\s+of)"
    r"|@(?=\s*[^\W\d])|at\s+(?=(?:\w+\s+)?pace\b))\s.*$",  # "400m run @ mile pace"
    re.I,
)
# "5 burpees at the top of every minute", "в начале каждой минуты", "בתחילת כל דקה": when it is
# done, not what.
_CLOCK_TAIL = re.compile(
    r"(?:^|\s)(?:(?:at|on)\s+the\s+(?:top|start|beginning)\s+of\s+|в\s+начале\s+|בתחילת\s+)?"
    r"(?:every|each|on\s+the|каждую|каждой|каждые|כל)\s+(?:\d+(?::\d\d)?\s*)?"
    r"(?:minutes?|mins?|rounds?|минут[уы]?|раунд\w*|דקה|דקות|סבב)(?!\w).*$",
    re.I,
)
# "85%x3", "95% x 1+", "@ 80% x 2", "3 @ 85%", "2x85%": one set of a lift by its percent;
# "1 x max @ 75%", "2x3 @ 80%": more sets of it.
PERCENT_SET = re.compile(
    r"^@?\s*\d+(?:[.,]\d+)?\s*%\s*[xX×х]\s*\d+\+?$|^\d+\+?\s*(?:[xX×х@]|на|ב-?)\s*\d+(?:[.,]\d+)?\s*%$"
    r"|^\d+\s*[xX×х]\s*(?:\d+|max|макс\w*)\+?\s*(?:@|на\s|ב-?)\s*\d+(?:[.,]\d+)?\s*%$",
    re.I,
)
# "superset w/ strict pull-ups 4x8", "סופרסט עם מתח", "суперсет с подтягиваниями": the lift
# is done in turn with the one above, in its section.
PAIRED = re.compile(
    rf"^(?:{words(lexicon.GROUPS)}|ss|paired|alternate|alternating)(?:\s*:\s*|\s+)"
    r"(?:(?:with|עם|с|со)\s+|w/\s*)?(?=\S)",
    re.I,
)
_COUNT_AT_PERCENT = re.compile(r"(?<=[^\W\d])\s+(\d{1,2})\+?\s*$")


def _count_at_percent(rest: str, found: dict[str, Any]) -> str:
    """ "Deadlift 3 @ 80%": with its percent read, the count after the name is the reps."""
    if "percent" in found and "reps" not in found and (m := _COUNT_AT_PERCENT.search(rest)):
        found["reps"] = int(m.group(1))
        return rest[: m.start()]
    return rest


_W_SLASH = re.compile(r"(?<!\w)w/\s*(?=[^\W\d])", re.I)
_SIDE_TAIL = re.compile(r"\s*/\s*(?:each\s+|per\s+)?(?:side|arm|leg)\b", re.I)
_NOT_THE_NAME = re.compile(
    rf"\b(?:rx|each(?: side| arm| leg)?|{words(lexicon.EACH)}|e/s|per side|per arm"
    rf"|alt(?:ernating)? arms?|@|of"
    rf"|unbroken|total|touch[\s-]and[\s-]go|TNG|{words(lexicon.COUNTING)}"
    # "Back squat back-off 2x8": which sets; "you go I go": how partners share the work
    r"|back[\s-]?offs?(?:\s+sets?)?|באק[\s-]?אוף|бэк[\s-]?офф?"
    r"|you\s+go,?\s+I\s+go|YGIG|I\s+go,?\s+you\s+go|IGYG"
    r"|[EЕ]\d*(?:MOM|MOTM|МОМ)|OTM)\b",  # "Power clean 10x1 @ 80% EMOM": the clock, not the name
    re.I,
)


def _name_of(text: str) -> str:
    text = re.sub(r"\([^)]*\)|\[[^\]]*\]", " ", text)  # what is left in brackets is a comment
    text = _W_SLASH.sub("with ", text)  # "w/ DBs", "w/DB"
    text = _SIDE_TAIL.sub(" ", text)
    text = _HOW_TAIL.sub(" ", text)
    text = _CLOCK_TAIL.sub(" ", text)
    # "25 box jumps, 30 inch box": the name is before the comma, the rest describes it
    text = next((seg for seg in text.split(",") if LETTER.search(seg)), "")
    text = _NOT_THE_NAME.sub(" ", text)
    text = re.sub(r"[,;@()\[\]/+:=]", " ", text)
    text = _DANGLING.sub("", squeeze(text).strip(" -–—:."))
    return _LEADING.sub("", text).strip(" -–—:.")  # "3 minutes on the rower"


def _alternatives(text: str, found: dict[str, Any]) -> str:
    """ "DU/SU": the movement and its scaled alternative; the name is the first."""
    m = _SLASHED.search(text)
    if m and _one_or_the_other(m.group(1), m.group(2)):
        found["note"] = f"or {m.group(2)}"
        return text[: m.start()] + m.group(1) + text[m.end() :]
    return text


_SLASHED = re.compile(r"(?<![\w/])([^\W\d_][\w-]*)/([^\W\d_][\w-]*)(?![\w/])")


def _one_or_the_other(first: str, second: str) -> bool:
    """ "DU/SU", "HSPU/push-ups", "T2B/K2E": one movement and its scaled form (the same kind of
    movement); "thrusters/pull-ups" are two movements."""
    a, b = vocabulary.lookup(first), vocabulary.lookup(second)
    return a is not None and b is not None and a.category == b.category


def _two_by_a_slash(m: re.Match[str]) -> bool:
    a, b = vocabulary.lookup(m.group(1)), vocabulary.lookup(m.group(2))
    return a is not None and b is not None and a.category != b.category


def movement(text: str) -> dict[str, Any] | None:
    """One movement ("20 wall balls (9/6kg, 10ft)", "Back squat 5x3 @ 80%") or None."""
    read = _read_movement(text)
    if read is None and (first := LOAD_FIRST.match(text)):
        # "♂ 60 ♀ 40 kg x 30 G2OH": the load, then the count and the name
        read = _read_movement(f"{first['n']} {first['name']} {first['load']}")
        if read is not None:
            read = {**read, "mention": text}
    if read is None and (when := _WHEN_PAIRED.search(text)) and when.start() > 0:
        # "strict pull-ups x 8 each set": when it is done (a note), after the movement
        read = _read_movement(text[: when.start()])
        if read is not None:
            read = {**read, "mention": text, "note": when.group(0).strip(" ,")}
    return dict(read) if read is not None else None  # the caller's own copy to fill in


LOAD_FIRST = re.compile(
    rf"^(?P<load>\S.*?\d\s*{quantities.LOAD_UNIT})\s*{TIMES}\s*(?P<n>\d+)\s+(?P<name>[^\W\d].*)$",
    re.I,
)
_WHEN_PAIRED = re.compile(rf"[\s,]*(?<!\w){words(lexicon.BETWEEN_SETS)}\.?$", re.I)


def _reps(rest: str, found: dict[str, Any]) -> str:
    """The count of a piece, wherever it is written: "21 thrusters", "thrusters, 21 reps",
    "HSPU – 5", "Подтягивания 10", "KB swings x 21"; or the sets of a measured piece ("Run 400m
    x 6")."""
    if "distance" not in found and (metres := _bare_metres(rest)) is not None:
        found["distance"], rest = metres
    if "reps" not in found and (m := _LEADING_REPS.match(rest)):
        found["reps"] = int(m.group(1))
        rest = rest[m.end() :]
    if "reps" not in found and (m := _TRAILING_REP_COUNT.search(rest)):
        found["reps"] = int(m.group(1))
        rest = rest[: m.start()]
    measured = any(k in found for k in ("distance", "calories", "seconds"))
    if "reps" not in found and not measured and (m := _DASHED_REPS.search(rest)):
        found["reps"] = int(m.group(1))  # "HSPU – 5", "Thrusters: 21", "Pistols – 10 (alt)"
        rest = rest[: m.start()] + " " + rest[m.end() :]
    if "reps" not in found and not measured and (m := _BARE_COUNT.search(rest)):
        # "Подтягивания 10", "Махи гирей 20 (24/16 кг)", "Pull-ups 10", "מתח 10": a known
        # name, then its count with nothing between
        known = vocabulary.lookup(_name_of(rest[: m.start()]))
        # not "Run 400" (metres or calories, the coach did not say) nor "Deadlift 225" (a load)
        if (
            known is not None
            and known.category != "monostructural"
            and (int(m.group(1)) <= 50 or known.category in _UNLOADED)
        ):
            found["reps"] = int(m.group(1))
            rest = rest[: m.start()] + " " + rest[m.end() :]
    if "reps" not in found and not measured and (m := _TRAILING_REPS.search(rest)):
        found["reps"] = int(m.group(1))
        rest = rest[: m.start()]
    elif (m := _TRAILING_REPS.search(rest)) and "sets" not in found:
        # "10 push-ups x 3", "Run 400m x 6": that many sets of it
        found["sets"] = int(m.group(1))
        rest = rest[: m.start()]
    return rest


# "400 ריצה", "500 гребля", "Run 400": a bare number of a hundred or more beside a run, row,
# ski or swim is its metres, as coaches count them; a bike's bare number may be calories, and a
# smaller number is left as written.
_METRES_BEFORE = re.compile(r"^(\d{3,5})\s+(?=[^\W\d_])")
_METRES_AFTER = re.compile(r"(?<=[^\W\d_])\s+(\d{3,5})(?=\s*(?:\([^()]*\))?\s*$)")


def _bare_metres(rest: str) -> tuple[str, str] | None:
    """(the distance, the rest) when a bare number beside the name is its metres."""
    before, after = _METRES_BEFORE.match(rest), _METRES_AFTER.search(rest)
    beside = [(before, rest[before.end() :])] if before else []
    beside += [(after, rest[: after.start()])] if after else []
    for m, name in beside:
        if int(m.group(1)) < 100:
            continue
        known = vocabulary.lookup(_name_of(name))
        if (
            known is not None
            and known.category == "monostructural"
            and "bike" not in (known.equipment or "")
        ):
            return f"{int(m.group(1))}m", rest[: m.start()] + " " + rest[m.end() :]
    return None


_SECOND_MARK = re.compile(r"(?<=\d)\s*(?:\"|”|'')(?!\w)")
_NUMBERS = re.compile(r"[\d.,/xX×х\"”'@%]+")


def _seconds_marked(rest: str) -> str:
    """ "L-sit 3x20\"", "plank 45\"", "hollow hold 30''": the mark after a number is seconds on
    a movement that reaches no height (a box's or a wall ball's 24\" stays inches)."""
    if not _SECOND_MARK.search(rest):
        return rest
    known = vocabulary.lookup(_name_of(_NUMBERS.sub(" ", rest)))
    if known is None or known.category not in ("core", "gymnastics") or _reaches_up(known.name):
        return rest
    return _SECOND_MARK.sub("s", rest)


def _not_holds(rest: str, notes: list[str]) -> str:
    """The piece without the times that are no hold of the movement, each kept as a note: a rest
    in brackets ("Front squat 5x3 @ 80% (rest 2:00)"), a pause in the rep ("(3 sec pause)")."""
    if m := _BRACKETED_REST.search(rest):
        notes.append(m.group(1).strip())
        rest = take(rest, m)
    if (m := _pause(rest)) and LETTER.search(_name_of(take(rest, m))):
        notes.append(m.group(0).strip(" ,()"))
        rest = take(rest, m)
    return rest


_TIME_WINDOW = re.compile(r"\(\s*(\d+\s*(?:min\w*|мин\w*|דק\w*|['’]))\s*\)", re.I)
_END_STOP = re.compile(r"(?<=[\w)%])\s*[.!]+$")


# The reader asks about the same pieces several times (is it a movement? a list? a title?).
@functools.lru_cache(maxsize=4096)
def _read_movement(text: str) -> dict[str, Any] | None:
    mention = text.strip()
    rest = THOUSANDS.sub("", SLOT.sub("", LABEL_PREFIX.sub("", mention))).strip()
    rest = THEN.sub("", rest) or rest
    rest = _END_STOP.sub("", rest)  # "Back squat 5x5.", "SA DB press 4x8 ea!": the sentence's end
    rest = _seconds_marked(rest)
    found: dict[str, Any] = {}
    notes: list[str] = []
    if m := _MAX_CAL.search(rest):
        found["calories"] = "max"
        rest = take(rest, m)
    if m := _CLOCK_LEAD.match(rest):
        notes.append(m.group(0).strip(" ,:"))  # "every 2 min 5 thrusters": when, then what
        rest = rest[m.end() :]
    rest = _not_holds(rest, notes)
    rest = quantities.strength_marks(rest, found, notes).strip()
    if m := quantities.REP_RANGE.match(rest):
        notes.append(f"{m.group(1)}-{m.group(2)} reps")
        rest = rest[m.end() :]
    rest = quantities.per_side(rest, found)
    rest = quantities.sets(rest.strip(), found)
    lifted = found.keys() & {"sets", "repScheme"} or any("RM" in n for n in notes)
    if lifted and (m := _TIME_WINDOW.search(rest)):
        notes.append(m.group(1))  # "Thruster 1RM (15 min)": the time to find it, not a hold
        rest = take(rest, m)
    rest = quantities.measures(rest, found)
    rest = re.sub(r"\(\s*\)|\[\s*\]", " ", rest).strip()  # brackets whose load was read
    rest = _reps(rest, found)
    rest = _count_at_percent(rest, found)
    if m := _REMAINING.search(rest):
        found["max"] = True  # "… in the remaining time", "… до конца интервала"
        rest = take(rest, m)
    if MAX.search(rest):
        found["max"] = True
        rest = MAX.sub(" ", rest)
    rest = _alternatives(rest, found)
    cal = _CALORIES_FIRST.match(rest) or _CALORIES_LAST.search(rest)
    if cal and "calories" not in found and vocabulary.lookup(_name_of(take(rest, cal))):
        # "21-15-9 Cal row / BBJ", "кал байк", "row cal": counted in calories, by the section's
        # scheme or clock
        found["note"] = "; ".join(filter(None, ("calories", found.get("note"))))
        rest = take(rest, cal)
    name = _name_of(rest)
    if name.startswith("ו") and not vocabulary.lookup(name) and vocabulary.lookup(name[1:]):
        name = name[1:]  # "ומתח": "and" written on the name
    name = known_core(name) or name  # "push-ups FT", "RFT SDHP": the known movement inside
    # T2B and C2B carry digits; a name needs letters, and never starts with a number.
    if not LETTER.search(name) or re.search(r"(?<!\w)\d+(?!\w)", name):
        return None
    if "perSide" not in found and EACH_AFTER_COUNT.search(mention) and one_sided(name):
        found["perSide"] = True  # "DB lunges 3x10 each", "SA DB press 4x8 ea"
    if notes:
        found["note"] = "; ".join([*notes, *([found["note"]] if "note" in found else [])])
    if "load" in found and _VEST.search(mention) and not _VEST.fullmatch(name):
        # "1,6 км бег (в жилете 9 кг)", "run … עם ווסט 9/6 ק"ג": worn, not the movement's load
        found["note"] = "; ".join(filter(None, (found.get("note"), f"vest {found.pop('load')}")))
    if "load" in found and re.fullmatch(r"[\d./]+", found["load"]) and _box(name):
        found.setdefault("height", found.pop("load"))  # "15 box jumps 24/20": the box's height
    if re.fullmatch(r"[\d./]+(?:ft|m|cm)", str(found.get("distance", ""))) and _reaches_up(name):
        # "150 WB (20/14, 10/9 ft)", "(9/6 kg, 3/2.7 m)": the target's height, not a distance
        found.setdefault("height", found.pop("distance"))
    return {"mention": mention, "name": name, **found}


# "3x10 each", "4x8 ea", "3х10 каждой": "each" straight after the count.
EACH_AFTER_COUNT = re.compile(
    rf"\d\s*(?:{words(lexicon.REPS)}\s*)?{words(lexicon.EACH)}(?!\w)(?!\s+(?:round|minute|min|мин|раунд))",
    re.I,
)
_ONE_SIDED = re.compile(rf"(?<!\w){words(lexicon.ONE_SIDED)}(?!\w)", re.I)


def one_sided(name: str) -> bool:
    """A movement done one side at a time ("single-arm DB row", "lunges", "выпады", "מכרעים"):
    "each" after its count is per side."""
    return bool(_ONE_SIDED.search(name))


_VEST = re.compile(rf"(?<!\w){words(lexicon.IMPLEMENTS['vest'])}(?!\w)", re.I)


def _box(name: str) -> bool:
    known = vocabulary.lookup(name)
    return known is not None and known.equipment == "box"


def _reaches_up(name: str) -> bool:
    """A movement whose feet are a height: a wall ball's target, a box, a rope."""
    known = vocabulary.lookup(name)
    return known is not None and (
        known.equipment in ("box", "rope") or "wall ball" in known.name.lower()
    )


@functools.lru_cache(maxsize=4096)
def names_a_movement(text: str) -> bool:
    """Whether any run of the text's words is a known movement's name."""
    words_ = re.findall(r"[^\W\d_][\w'-]*", text)
    if any(vocabulary.known_words(words_[i:]) for i in range(len(words_))):
        return True
    # "ומתח לזמן": Hebrew "and" written on a movement's name
    return any(
        vocabulary.known_words([word[1:], *words_[i + 1 :]])
        for i, word in enumerate(words_)
        if word.startswith("ו") and len(word) > 2
    )


def implement(move: dict[str, Any]) -> str | None:
    """The implement a movement is done with, as the vocabulary knows it (None: bodyweight)."""
    known = vocabulary.lookup(move["name"])
    if known is not None:
        return known.equipment
    words_ = re.findall(r"[^\W\d_]+", move["name"].lower())
    return next((quantities.IMPLEMENT_OF[w] for w in words_ if w in quantities.IMPLEMENT_OF), None)


# Movements that carry their implement without loading it ("burpee over the bar", "box jump").
_UNLOADED = frozenset({"conditioning", "plyometric", "monostructural", "gymnastics"})


def loadable(move: dict[str, Any]) -> str | None:
    """The implement a load stated for the movement would be on; None when it takes none."""
    known = vocabulary.lookup(move["name"])
    if known is not None and known.category in _UNLOADED:
        return None
    return implement(move)


def is_lift(move: dict[str, Any]) -> bool:
    """A lift stated as sets x reps, a rep scheme or a rep max ("Deadlift 1RM")."""
    return "sets" in move or "repScheme" in move or "RM" in move.get("note", "")


_COUNT_NOUNS = frozenset(lexicon.COUNT_NOUNS)


def _counts_only(move: dict[str, Any]) -> bool:
    """ "50 steps", "30 reps": a count and the word for what it counts, no movement's name."""
    return move["name"].lower() in _COUNT_NOUNS and "reps" in move


def equipment_only(move: dict[str, Any]) -> bool:
    """ "Vest 20/14 lb", "Box 24/20\"": what the movements are done with, not a movement."""
    return move["name"].lower() in _EQUIPMENT


def complex_of(text: str) -> tuple[int | None, list[str], str] | None:
    """ "1 power clean + 2 front squats" / "5 x (1 clean + 1 jerk) @ 70%": sets, pieces, tail.

    Pieces carry their counts; "power clean + front squat (1+2)" gives "1 power clean" and
    "2 front squat". None unless every piece reads as a movement.
    """
    found = _complex_of(text)
    if found is None:
        return None
    reads = [movement(piece) for piece in found[1]]
    if any(read is None for read in reads):
        return None
    # "10 GHD situps + 20 KBS + 30s L-sit": a circuit, not a complex; a complex is lifts of
    # one loaded implement, done as one set
    if any(read is not None and (loadable(read) is None or "seconds" in read) for read in reads):
        return None
    if len({loadable(read) for read in reads if read is not None}) > 1:
        return None  # "20 wall balls + 10 power cleans": a ball and a bar, not one complex
    # "3x12 DB rows + 3x15 face pulls": each lift its own sets, done in turn, not one set
    if len(reads) > 1 and all(read is not None and "sets" in read for read in reads):
        return None
    return found


def _complex_of(text: str) -> tuple[int | None, list[str], str] | None:
    if "+" not in text:
        return None
    sets = None
    if named := _NAMED.match(text):
        text = named.group(2)
    body, tail = text, ""
    if at := _COMPLEX_TAIL.search(text):
        body, tail = text[: at.start()], text[at.start() :]
    if (after := _SETS_AFTER.search(body)) and not _SETS_COMPLEX.match(body):
        # "2 cleans + 2 jerks x 5 sets", "2 взятия + 2 толчка, 5 подходов": the complex's sets
        sets, body = int(after.group(1)), body[: after.start()]
    if m := _SETS_COMPLEX.match(body):
        if m.group(1):
            sets, body, tail = int(m.group(1)), m.group(2), m.group(3) or tail
        elif m.group(4):
            sets, body = int(m.group(4)), m.group(5)
        else:
            body, sets, tail = m.group(6), int(m.group(7)), m.group(8) or tail
    pieces = [p.strip() for p in re.split(r"\s\+\s|\+(?=\s*\d)", body) if p.strip()]
    if len(pieces) >= 2 and all(re.match(r"^\d", p) and LETTER.search(p) for p in pieces):
        return sets, pieces, tail  # "1 power clean + 2 front squats"; "(1+2+1) x 4" names none
    if (named_sets := _complex_with_sets(pieces)) is not None:
        return named_sets[0], named_sets[1], named_sets[2] or tail
    if (
        len(pieces) >= 2
        and ("%" in tail or sets is not None)  # "power clean + hang clean + jerk x 5 sets"
        and all(not re.search(r"\d", p) and vocabulary.lookup(p) for p in pieces)
    ):
        return sets, [f"1 {p}" for p in pieces], tail  # "snatch pull + power snatch + OHS @ 60%"
    counts = _COUNTS.search(body)
    if counts and not re.match(r"^\d", body):
        named_pieces = [p.strip() for p in body[: counts.start()].split("+") if p.strip()]
        reps = re.findall(r"\d+", counts.group(2))
        if len(named_pieces) == len(reps) >= 2:
            times = counts.group(1) or counts.group(3)
            sets = int(times) if times else sets
            return sets, [f"{n} {p}" for n, p in zip(reps, named_pieces, strict=True)], tail
    return None


_SETS_AFTER = re.compile(
    rf"(?<=[^\W\d])\s*(?:,\s*|\s{TIMES}\s*)(\d+)\s*{words(lexicon.SETS)}(?!\w)\s*$", re.I
)
# "… + jerk x 5 sets, build to heavy", "… + jerk, 5 sets": the last lift, then the sets.
_LAST_WITH_SETS = re.compile(
    rf"^(?P<name>[^\d]+?)\s*(?:{TIMES}\s*(?P<n>\d+)(?:\s*{words(lexicon.SETS)})?|,?\s*(?P<n2>\d+)"
    rf"\s*{words(lexicon.SETS)})(?!\w)\s*(?P<tail>[,;].*)?$",
    re.I,
)


def _complex_with_sets(parts: list[str]) -> tuple[int, list[str], str] | None:
    """ "power clean + hang clean + jerk x 5 sets": lifts named without counts, one rep each,
    and the sets of the whole (None when a piece is not a known lift)."""
    if len(parts) < 2 or (m := _LAST_WITH_SETS.match(parts[-1])) is None:
        return None
    names = [*parts[:-1], m.group("name")]
    if any(re.search(r"\d", n) or not vocabulary.lookup(n) for n in names):
        return None
    return int(m.group("n") or m.group("n2")), [f"1 {n}" for n in names], m.group("tail") or ""


def _masked(text: str) -> str:
    """The text with the separators inside known names ("clean and jerk") hidden, a Hebrew
    "and" on a movement's name ("ומתח") marked: the space before it is a separator ("\\x02"),
    and the piece keeps its "ו" (the name drops it); the numbers of a list numbered inside the
    line ("1) … 2) …") are separators too."""
    for m in reversed(inline_numbers(text)):
        text = text[: m.start()] + "\x02" + " " * (m.end() - m.start() - 1) + text[m.end() :]
    for m in reversed([m for m in _SLASHED.finditer(text) if _two_by_a_slash(m)]):
        # "21-15-9 thrusters/pull-ups": two movements, not one and its scaled form
        slash = m.start(2) - 1
        text = text[:slash] + "\x02" + text[slash + 1 :]
    text = _JOINED.sub(lambda m: re.sub(r"[\s&+]", "\1", m.group(0)), text)
    for m in reversed(list(_VAV.finditer(text))):
        joined = text[m.end() :].split()
        after = [joined[0][1:], *joined[1:]]
        if vocabulary.known_words(after) and not vocabulary.known_words(joined):
            text = text[: m.start()] + "\x02" + text[m.end() :]
    return text


def first_piece(text: str) -> str:
    """What a line says before its first separator ("5 burpees" of "5 burpees and do 5 …")."""
    masked = _masked(text)
    spans = outside_brackets(masked, _SPLIT)
    if not spans:
        return ""
    start = masked.index(spans[0])
    end = start + len(spans[0])
    start += len(spans[0]) - len(spans[0].lstrip())  # past a masked list number ("1) ")
    return text[start:end].strip()


def _standard_only(piece: str, read: dict[str, Any] | None) -> bool:
    """A piece that opens with a number and says only loads and heights, naming no known
    movement ("20/14 lb ball to a 10/9 ft target")."""
    if not piece[:1].isdigit() or (read is not None and vocabulary.lookup(read["name"])):
        return False
    return bool(quantities.stated(piece))


_CAP_PIECE = re.compile(
    rf"\(?(?:time\s+)?{words(lexicon.CAP)}\s*[:=]?\s*\d+(?::\d{{2}})?\s*"
    rf"(?:{words(lexicon.MINUTES)}|['’′])?\)?\.?"
    rf"|\(?\d+\s*(?:{words(lexicon.MINUTES)}|['’′])\s*(?:time\s+)?{words(lexicon.CAP)}\)?\.?",
    re.I,
)


def pieces(text: str) -> list[str]:
    """A line's movements: split on commas, " / ", " + ", "and", never inside brackets.

    A piece that is only a quantity ("2 pood", "95/65 lb") belongs to the movement before it;
    a piece that holds several movements written without separators is split before each
    count that a known movement follows ("5 pull-ups 10 push-ups").
    """
    return list(_pieces(text))  # the caller's own list


@functools.lru_cache(maxsize=4096)
def _pieces(text: str) -> tuple[str, ...]:
    masked = _masked(text)
    spans = outside_brackets(masked, _SPLIT)
    merged: list[str] = []
    cursor = 0
    label: int | None = None  # where a slot label split off its movement started ("odd —")
    for span in spans:
        start = masked.index(span, cursor)
        cursor = start + len(span)
        start += len(span) - len(span.lstrip())  # past a masked list number ("2) ")
        if label is not None:
            start, label = label, None
        piece = text[start:cursor].strip()
        if (slot := SLOT.match(piece + ": ")) and slot.end() >= len(piece):
            label = start
            continue
        read = movement(piece)
        runs = _runs(piece) if read is None else []
        bare = (
            (read is None and not runs)
            or (read is not None and (equipment_only(read) or _counts_only(read)))
            or _standard_only(piece, read)  # "…, 20/14 lb ball to a 10/9 ft target"
        )  # "Walking lunge, 50 steps": the steps are the lunge's
        if any(said.fullmatch(piece) for said in _PAUSE_SAID[1:]):
            bare = True  # "Front squat 4x3, 2-second pause at the bottom": the lift's pause
        apart = (
            _CAP_PIECE.fullmatch(piece)  # "… | 30 KBS | cap 16'": the list's cap
            or REST.match(piece)
            or _NOTE_PIECE.match(piece)
            or PERCENT_SET.match(piece)
            or ((lead := PAIRED.match(piece)) and movement(piece[lead.end() :]))
        )
        if merged and bare and not apart:
            # the quantity piece rejoins its movement as the coach wrote it
            begin = text.index(merged[-1])
            merged[-1] = text[begin : text.index(piece, begin + len(merged[-1])) + len(piece)]
        elif runs:
            merged.extend(runs)
        else:
            merged.append(piece)
    if label is not None:
        merged.append(text[label:].strip())
    return tuple(merged)


_RUN_START = re.compile(
    rf"(?<=\S)\s+(?=(?:\d+(?:[.,/]\d+)*)\s*-?\s*(?:(?:{quantities.DIST_UNIT}|{words(lexicon.CALORIES)})(?![^\W\d_])\s*)?[^\W\d_])",
    re.I,
)


_UNIT_FIRST = re.compile(rf"^(?:{quantities.DIST_UNIT}|{words(lexicon.CALORIES)})\s+", re.I)


def _runs(piece: str) -> list[str]:
    """ "5 pull-ups 10 push-ups 15 squats" as three pieces; [] when it is not such a run."""
    cuts = [0]
    for m in _RUN_START.finditer(piece):
        after = re.sub(r"^[\d.,/]+\s*-?\s*", "", piece[m.end() :])
        after_unit = _UNIT_FIRST.sub("", after)
        for candidate in (after, after_unit):
            if vocabulary.known_words(candidate.split()):
                cuts.append(m.end())
                break
    if len(cuts) < 2:
        return []
    bounds = [*cuts, len(piece)]
    runs = [piece[a:b].strip() for a, b in itertools.pairwise(bounds)]
    if all(r[:1].isdigit() and movement(r) is not None for r in runs):
        return runs
    return []


def counted(text: str) -> bool:
    return bool(QUANTITY.search(text))
