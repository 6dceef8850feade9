"""A coach's pasted day of training, read into ONE workout: parts, sections, movements.

Pure and deterministic: no database, no model. Movement names come out as the coach wrote them
(cleaned of quantities); `spotter.domain.movement_match` and `workouts.resolve_movements` match
them against the org's exercise library. Every movement carries a stable `key`
("part.section.movement", 1-based) and its verbatim `mention`, so a second call can resolve
exactly the movements the first one could not.

The grammar, line by line (English, Hebrew and lines mixing both):
- part headers (Warm-up, Lift, Conditioning, Optional…, חימום, כוח…) with clock windows, alone
  or followed by their content ("B) Lift: Deadlift 5-5-3-3-1-1");
- a title first: a short line, or "Name - …" / "Name: …" / "JT 21-15-9 for time: …";
- format lines: For Time / RFT / rounds / AMRAP (N min, N-minute, "as many … in N minutes") /
  EMOM, E2MOM, Every 2:00 x 5, every N sec / Tabata / ladders, with rep schemes before or after
  the format (`21-15-9 for time`, `For time: 21-15-9`) and time caps; a format line then its
  movements on the same line after ":", " - " or " of ";
- movements one per line or comma-, slash-, "and"-separated; odd/even and minute slots;
  complexes ("1 power clean + 2 front squats"); sets x reps with % and RPE; loads with and
  without units (225/155, 95/65 lb, 20/14#, 1.5/1 pood, 2x22.5kg); distances, calories,
  heights, holds;
- buy-in / cash-out sections; rest, scaling, notes and advice lines kept as notes.
Lines that carry a quantity but could not be read as anything are listed in `unread`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

_PART_WORDS = (
    r"warm[\s-]?up|lift(?:ing)?|strength|skill|conditioning|metcon|wod|optional|accessor(?:y|ies)"
    r"|cool[\s-]?down|mobility|gymnastics|weightlifting|successory"
    r"|finisher|core|engine|part\s+[a-e]|bonus|חימום|כוח|מטקון|טכניקה|אופציונלי|שחרור"
    r"|מוביליטי|עזר|סיום|בונוס"
)
# "אימון" (training) alone heads a part; "אימון יום שלישי" is the day's title.
_HEADER = re.compile(
    rf"^(?:(?:(?:partner|team|hero)\s+)?(?:{_PART_WORDS})\b[\s\w'&/-]{{0,30}}|אימון)$",
    re.IGNORECASE,
)
_OPTIONAL = re.compile(r"\b(optional|bonus|אופציונלי|בונוס|רשות)\b", re.IGNORECASE)
_LABEL_PREFIX = re.compile(r"^(?:[A-Ea-e][).:]|\d[).])\s+")
_BULLET = re.compile(r"^\s*(?:[-*•·–—]+|\d{1,2}[.)](?=\s))\s*")
_WINDOW = re.compile(
    r"\(?\s*(\d{1,2}(?::\d{2})?)\s*[-–—]\s*(\d{1,2}(?::\d{2})?)\s*(?:'|min(?:utes)?|דק(?:ות)?)?\s*\)?"
)
# Lines that are about the workout, not in it: rest, scaling, standards, advice.
_NOTE_START = re.compile(
    r"^(?:notes?|rest|switch|scale[ds]?|scaling|sub(?:stitute)?s?|modif\w*|beginners?"
    r"|intermediate|masters|advanced|rx\+?|women|men|wearing|partition|teams?\s+of|in\s+teams"
    r"|barbell|weights?|loads?|goal|focus|stimulus|coach|tip|cue|then\s*:?\s*$"
    r"|הערה|מנוחה|דגש|מטרה|שימו|נשים|גברים|מותאם)\b|^[♀♂*]",
    re.IGNORECASE,
)
_PROSE = re.compile(r"\.\.\.|…\s*\w|\buntil\b|\bif you\b|\bbetween (?:sets|rounds)\b", re.I)
_THEN = re.compile(r"^then\b\s*:?\s*", re.IGNORECASE)

_MIN = r"(?:[\s-]*(?:min(?:ute)?s?|'|דקות|דק׳|דק)\b|')"
_AMRAP = re.compile(
    rf"\bAMRAP\s*(?:in\s*)?(\d+)(?:{_MIN})?|(\d+)(?:{_MIN})?\s*AMRAP\b"
    r"|as\s+many\s+(?:rounds|reps)(?:\s+and\s+reps)?\s+as\s+possible\s+in\s+(\d+)"
    r"|כמה\s+שיותר\s+\S+\s+ב-?\s*(\d+)",
    re.IGNORECASE,
)
_EMOM = re.compile(
    rf"\bE(\d*)MOM\b\s*(?:x\s*)?(\d+)?(?:{_MIN})?|(\d+)(?:{_MIN})?\s*E(\d*)MOM\b"
    r"|every\s+minute\s+on\s+the\s+minute(?:\s+for)?\s*(\d+)?",
    re.I,
)
_EVERY = re.compile(
    r"\b(?:every|כל)\s*(\d+(?::\d{2})?)?\s*(min(?:ute)?s?|sec(?:ond)?s?|דקה|דקות|שניות)?"
    r"\s*(?:x|for|×)\s*(\d+)\s*(min(?:ute)?s?|rounds?|sets?|דקות|סבבים)?",
    re.IGNORECASE,
)
_TABATA = re.compile(r"\btabata\b|טבטה|טבאטה", re.IGNORECASE)
_FOR_TIME = re.compile(r"\bfor\s+time\b|\bRFT\b|לזמן", re.IGNORECASE)
_ROUNDS = re.compile(r"(\d+)\s*(?:rounds?|rds?|RFT|סבבים|סבב)(?!\w)", re.IGNORECASE)
_SETS_ONLY = re.compile(r"^(\d+)\s*(?:sets?|סטים)$", re.IGNORECASE)
_CAP = re.compile(
    rf"\b(?:time\s*cap|tc|cap|קאפ)\s*[:=]?\s*(\d+)(?::(\d{{2}}))?(?:{_MIN})?"
    r"|(\d+)\s*min(?:ute)?s?\s*(?:time\s*)?cap\b",
    re.IGNORECASE,
)
_SCHEME_TEXT = r"\d+(?:\s*-\s*\d+){2,}"
_SCHEME = re.compile(rf"^({_SCHEME_TEXT})(?:\s*(?:…|\.\.\.|\+|etc\.?))?(?!\d)")
_ANY_SCHEME = re.compile(rf"(?<![\d:/.])({_SCHEME_TEXT})(?:\s*(?:…|\.\.\.|\+|etc\.?))?(?![\d:])")
_SETS_REPS = re.compile(r"\b(\d+)\s*[x×X]\s*(\d+)\b(?!\s*(?:\.\d|/\d|kg|lb|#|pood))")
_SETS_OF = re.compile(
    r"\b(\d+)\s*(?:sets?|סטים)\s+(?:of|של)\s+(\d+)(?:\s*(?:reps?|חזרות))?(?!\s*(?:kg|lb|#|m\b|cal))(?!\w)",
    re.I,
)
# "3-5 strict HSPU": a range of reps, kept as the movement's note.
_REP_RANGE = re.compile(r"^(\d+)\s*-\s*(\d+)\s+(?=[^\W\d])")
# "3x30s side plank", "4 x 1 min L-sit": sets of a hold.
_SETS_OF_HOLD = re.compile(
    r"\b(\d+)\s*[x×]\s*(?=:?\d+\s*(?:sec(?:ond)?s?|s|min(?:ute)?s?|שניות)(?!\w))", re.I
)
_SETS_MAX = re.compile(r"\b(\d+)\s*[x×X]\s*max\b", re.I)
_SETS_COMPLEX = re.compile(
    r"^(\d+)\s*[x×X]\s*\((.*)\)(.*)$|^(\d+)\s*sets?\s*(?:of|:)\s*(.*)$", re.I
)
_PERCENT = re.compile(r"@?\s*(\d+(?:\.\d+)?)(?:\s*-\s*\d+(?:\.\d+)?)?\s*%")
_RPE = re.compile(r"@?\s*\bRPE\s*(\d+(?:\.\d+)?)", re.I)
_NUMBER = r"\d+(?:\.\d+)?(?:/\d+(?:\.\d+)?)?"
_LOAD = re.compile(
    rf"((?:\d\s*[x×]\s*)?{_NUMBER})\s*-?\s*(kg|kgs|lbs?|pounds?|#|pood|poods|ק\"ג|ק״ג|קג|קילו)"
    r"(?!\w)",
    re.I,
)
# "225/155", "(53/35)": a pair of numbers with no unit is the barbell's (or bell's) load.
_BARE_LOAD = re.compile(r"(?<![\d.:/-])(\d+(?:\.\d+)?/\d+(?:\.\d+)?)(?![\d./:%-])")
_HEIGHT = re.compile(r"(\d+(?:/\d+)?)\s*-?\s*(\"|”|in(?:ch(?:es)?)?|cm)(?!\w)", re.I)
_FEET = re.compile(r"(\d+(?:/\d+)?)\s*-?\s*(ft|feet|foot)(?!\w)", re.I)
_DISTANCE = re.compile(
    r"(\d+(?:\.\d+)?(?:/\d+(?:\.\d+)?)?)\s*-?\s*(km|k|m|mi|miles?|meters?|metres?|מטר|מ׳|ק\"מ)"
    r"(?!\w)",
    re.I,
)
_CALORIES = re.compile(
    r"(\d+(?:/\d+)?)\s*-?\s*(?:cals?|calories|calorie|קלוריות|קל׳|קל)(?!\w)", re.I
)
_SECONDS = re.compile(r"(?<![\d:])(?::(\d{2})|(\d+)\s*(?:sec(?:ond)?s?|s|שניות))(?!\w)", re.I)
_MINUTES = re.compile(r"(?<![\d:])(\d+)\s*(?:min(?:ute)?s?|דקות|דקה)(?!\w)", re.I)
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
_LEADING_REPS = re.compile(r"^(\d+)\s*(?:reps?\b|חזרות\b)?\s*")
_TRAILING_REPS = re.compile(r"\s[x×]\s*(\d+)\s*$", re.I)
_SLOT = re.compile(
    r"^(?:min(?:ute)?\s*\d+|m\d+|\d+(?:st|nd|rd|th)\s*min(?:ute)?|odd(?:\s*min(?:ute)?s?)?"
    r"|even(?:\s*min(?:ute)?s?)?|partner\s*[ab12]|p[12]|דקה\s*\d+|אי[- ]?זוגי|זוגי)\s*[:\-]\s*",
    re.I,
)
_MAX = re.compile(r"\bmax(?:\s+reps?)?\b", re.I)
_MAX_CAL = re.compile(r"\bmax\s+cals?\b", re.I)
_SETS_WORD = re.compile(r"^(\d+)\s*sets?\s*(?:of\b)?", re.I)
_MOVEMENT_SCHEME = re.compile(r"\b(\d+(?:-\d+){2,})\b")
_ROUNDS_X = re.compile(r"^(\d+)\s*[x×]\s*")
_REST = re.compile(rf"\brest\s+\d+(?::\d{{2}})?(?:{_MIN})?.*$", re.I)
# "Buy-in: 50 DU" / "Cash-out: 800m run": a section of its own inside the part.
_BOOKEND = re.compile(r"^(buy[\s-]?in|cash[\s-]?out)\b\s*:?\s*(.*)$", re.I)
_NAMED = re.compile(r"^([^\d:]{2,40}):\s*(.+)$")
_QUANTITY = re.compile(r"\d")
_COLON_TAIL = re.compile(r":\s*(?!\d{2}\b)\S|\s[-–—]\s+\S")
# Bodyweight loads: "bench press, BW", "deadlift 1.5 x BW", "bodyweight".
_BODYWEIGHT = re.compile(
    r"(?<![\w.])(?:(\d+(?:\.\d+)?(?:/\d+)?)\s*[x×]?\s*)?(?:BW|body\s*weight)\b", re.I
)
_TRAILING_REP_COUNT = re.compile(r"[,\s]\s*(\d+)\s*reps?\s*$", re.I)
_LETTER = re.compile(r"[^\W\d_]")
# Words a format line carries around its format ("5 rounds, each for time of:").
_FILLER = re.compile(
    r"\b(?:of|each|reps?|for|the|following|complete|all|in|a|with|then|on|and|rounds?|sets?"
    r"|minutes?|min)\b",
    re.I,
)
# Separators of one line's movements; "clean and jerk" is one movement, not two.
_SPLIT = re.compile(r"\s*[,;]\s*|\s+[/|]\s+|\s+(?:and|&|ו-)\s+(?=\d)|\s+and\s+(?!jerks?\b)", re.I)
_TITLE_SEP = re.compile(r"^(?P<head>[^:]{1,40}?)(?:\s+[-–—]\s+|\s*:\s+)(?P<tail>.+)$")
_FORMAT_SEP = re.compile(r"^(?P<head>.+?)(?P<sep>\s*:\s*|\s+[-–—]\s+|\s+of\s+)(?P<tail>.+)$", re.I)
_LEADING_NAME = re.compile(
    rf"^(?P<name>[A-Z][\w'’.]*(?:\s+[A-Z][\w'’.]*){{0,2}})\s+"
    rf"(?=(?:{_SCHEME_TEXT})\s+for\s+time|for\s+time|AMRAP|E\d*MOM|\d+\s*(?:rounds?|RFT)\b)"
)
_DEATH_BY = re.compile(r"^death\s+by\s+", re.I)
_BUILD_TO = re.compile(
    r"^(?:build|work)\s+(?:up\s+)?to\s+(?:an?\s+)?(?:heavy\s+|max\s+)?"
    r"(?:(?:\d+|single|double|triple)[-\s]?(?:rep|RM)?\s+)?(?P<lift>.+?)"
    r"(?:\s+in\s+\d+.*|\s+over\s+.*)?$",
    re.I,
)
# "Build to a heavy triple across the sets" is about the lift above, not a lift of its own.
_NOT_A_LIFT = re.compile(r"\b(?:across|the|sets?|today|each|every)\b", re.I)
_OPEN_TITLE = re.compile(r"^(?:(?:the\s+)?open\s+)?\d{2}\.\d(?:[AB])?\b", re.I)


@dataclass
class _Section:
    format: str = "other"
    rounds: int | None = None
    rep_scheme: str | None = None
    duration_seconds: int | None = None
    interval_seconds: int | None = None
    time_cap_seconds: int | None = None
    complex: bool = False
    from_header: bool = False
    notes: list[str] = field(default_factory=list)
    movements: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class _Part:
    name: str
    window: dict[str, str] | None = None
    optional: bool = False
    notes: list[str] = field(default_factory=list)
    sections: list[_Section] = field(default_factory=list)


def _clock(value: str) -> str:
    return value if ":" in value else f"{int(value)}:00"


def _seconds_in(value: str) -> int:
    """Minutes ("12") or minutes:seconds ("1:30") as seconds."""
    if ":" in value:
        minutes, seconds = value.split(":")
        return int(minutes) * 60 + int(seconds)
    return int(value) * 60


def _header(line: str) -> _Part | None:
    """A part header ("B) Lift (10:00-25:00)", "Optional Successory:", "חימום") or None."""
    text = _LABEL_PREFIX.sub("", line).strip().rstrip(":").strip()
    window = None
    found = _WINDOW.search(text)
    if found:
        window = {"start": _clock(found.group(1)), "end": _clock(found.group(2))}
        text = (text[: found.start()] + text[found.end() :]).strip(" -–—:")
    if not text or not _HEADER.match(text) or _QUANTITY.search(text):
        return None
    return _Part(name=text, window=window, optional=bool(_OPTIONAL.search(text)))


def _amrap(text: str, section: _Section) -> bool:
    if not (m := _AMRAP.search(text)):
        return False
    section.format = "amrap"
    minutes = next(g for g in m.groups() if g)
    section.duration_seconds = int(minutes) * 60
    return True


def _emom(text: str, section: _Section) -> bool:
    if not (m := _EMOM.search(text)):
        return False
    every = int(m.group(1) or m.group(4) or 1)
    count = m.group(2) or m.group(3) or m.group(5)
    section.format = "emom"
    section.interval_seconds = every * 60
    if count:
        # "E2MOM x 6" counts rounds; "EMOM 12" / "E2MOM 12" count minutes.
        by_rounds = bool(re.search(r"x\s*\d", text, re.I))
        section.rounds = int(count) if by_rounds else max(int(count) // every, 1)
        section.duration_seconds = section.rounds * every * 60
    return True


def _every(text: str, section: _Section) -> bool:
    if not (m := _EVERY.search(text)):
        return False
    unit = (m.group(2) or "min").lower()
    size = m.group(1) or "1"
    seconds = _seconds_in(size) if ":" in size else int(size) * (1 if unit[0] in "sש" else 60)
    section.format = "emom"
    section.interval_seconds = seconds
    count = int(m.group(3))
    # "Every 2 min for 10 min" counts minutes; "every 2 min x 5" counts rounds.
    per_minutes = (m.group(4) or "").lower()[:1] in ("m", "ד")
    section.rounds = max(count * 60 // seconds, 1) if per_minutes else count
    section.duration_seconds = seconds * section.rounds
    return True


def _timed_format(text: str, section: _Section) -> bool:
    """Fill in AMRAP / EMOM / every-N / Tabata timing; False when the line has none."""
    if _amrap(text, section) or _emom(text, section) or _every(text, section):
        return True
    if _TABATA.search(text):
        section.format = "tabata"
        section.rounds = 8
        section.interval_seconds = 30
        return True
    return False


def _format_of(text: str, section: _Section) -> str | None:
    """The section's format from a header's words: the words left, None when it names none."""
    if (times := _ROUNDS_X.match(text)) and (_AMRAP.search(text) or _FOR_TIME.search(text)):
        # "3 x 4 min AMRAP": repeated pieces of the same format.
        section.rounds = int(times.group(1))
        text = text[times.end() :]
    if _timed_format(text, section):
        return text
    if _FOR_TIME.search(text):
        section.format = "for_time"
    elif (_ROUNDS.search(text) and not _SETS_REPS.search(text)) or _SETS_ONLY.match(text):
        section.format = "rounds"
    elif _SCHEME.match(text):
        # A bare descending scheme ("21-15-9", "9-7-5") is for time by convention.
        section.format = "for_time"
    else:
        return None
    return text


def _section_header(line: str, *, header_only: bool = False) -> _Section | None:
    """A format line ("AMRAP 12", "E2MOM x 6", "3 rounds for time", "21-15-9") or None.

    `header_only`: the line ended with ":" — whatever else it says is a note on the section.
    """
    text = line.strip().rstrip(":").strip()
    if not header_only and _COLON_TAIL.search(text):
        return None  # "AMRAP 20: 5 pull-ups, …" is a format and its movements
    section = _Section(from_header=True)
    if rest := _REST.search(text):
        section.notes.append(rest.group(0).strip())
        text = text[: rest.start()].strip(" ,;")
    if (words_left := _format_of(text, section)) is None:
        return None
    text = words_left
    if section.rounds is None and (m := _ROUNDS.search(text)):
        section.rounds = int(m.group(1))
    if section.rounds is None and (m := _SETS_ONLY.match(text)):
        section.rounds = int(m.group(1))
    scheme = _SCHEME.match(text) or (
        _ANY_SCHEME.search(text) if section.format != "rounds" else None
    )
    if scheme:
        section.rep_scheme = re.sub(r"\s+", "", scheme.group(1))
    if m := _CAP.search(text):
        section.time_cap_seconds = _cap_seconds(m)
    leftover = _strip_all(
        text, (_AMRAP, _EMOM, _EVERY, _TABATA, _ROUNDS, _FOR_TIME, _CAP, _ANY_SCHEME)
    )
    leftover = _SETS_ONLY.sub("", leftover)
    words = _FILLER.sub(" ", leftover).strip(" :-–—,.()…")
    # "AMRAP 12: 10 burpees" carries a movement after the format; a word or two is a name.
    if words and _QUANTITY.search(words) and not header_only:
        return None
    if _LETTER.search(words):
        section.notes.insert(0, re.sub(r"\s+", " ", leftover).strip(" :-–—,.…()"))
    return section


def _cap_seconds(m: re.Match[str]) -> int:
    if m.group(3):
        return int(m.group(3)) * 60
    return _seconds_in(f"{m.group(1)}:{m.group(2) or '00'}")


def _strip_all(text: str, patterns: tuple[re.Pattern[str], ...]) -> str:
    for pattern in patterns:
        text = pattern.sub(" ", text)
    return re.sub(r"\s+", " ", text).strip()


def _clean_name(text: str) -> str:
    text = re.sub(r"\([^)]*\)", " ", text)  # what is left in brackets is a comment
    text = re.sub(r"\s*/\s*(?:each\s+|per\s+)?(?:side|arm|leg)\b", " ", text, flags=re.I)
    # "run with a 45 lb plate", "2x5 of today's top set": how, not what
    text = re.sub(
        r"(?:^|\s)(?:with|w/|wearing|of\s+(?:today'?s|the|your))\s.*$", " ", text, flags=re.I
    )
    # "25 box jumps, 30 inch box": the name is before the comma, the rest describes it
    text = next((seg for seg in text.split(",") if _LETTER.search(seg)), "")
    text = re.sub(
        r"\b(?:rx|each(?: side| arm| leg)?|e/s|per side|per arm|alt(?:ernating)? arms?|@|of"
        r"|unbroken|total)\b",
        " ",
        text,
        flags=re.I,
    )
    text = re.sub(r"[,;@()\[\]/+:]", " ", text)
    return re.sub(r"\s+", " ", text).strip(" -–—:.")


def _take(rest: str, m: re.Match[str]) -> str:
    return rest[: m.start()] + " " + rest[m.end() :]


def _measures(rest: str, found: dict[str, Any]) -> str:
    """Loads, calories, heights, distances, holds: into `found`, out of the text."""
    for key, pattern in (("load", _LOAD), ("calories", _CALORIES), ("height", _HEIGHT)):
        if m := pattern.search(rest):
            unit = "" if key == "calories" else _unit(m.group(2))
            found[key] = re.sub(r"\s+", "", m.group(1)).replace("×", "x") + unit
            rest = _take(rest, m)
    if m := _FEET.search(rest):
        # Feet are a wall-ball target or a box height; otherwise how far (walks, lunges).
        key = "height" if re.search(r"target|box|ball", rest, re.I) else "distance"
        found.setdefault(key, m.group(1) + "ft")
        rest = _take(rest, m)
    if m := _DISTANCE.search(rest):
        found["distance"] = m.group(1) + _unit(m.group(2))
        rest = _take(rest, m)
    if m := _SECONDS.search(rest):
        found["seconds"] = int(m.group(1) or m.group(2))
        rest = _take(rest, m)
    elif m := _MINUTES.search(rest):
        found["seconds"] = int(m.group(1)) * 60
        rest = _take(rest, m)
    if "load" not in found and (m := _BODYWEIGHT.search(rest)):
        found["load"] = f"{m.group(1)}xBW" if m.group(1) else "BW"
        rest = _take(rest, m)
    if "load" not in found and (m := _BARE_LOAD.search(rest)):
        found["load"] = m.group(1)
        rest = _take(rest, m)
    return rest


def _sets(rest: str, found: dict[str, Any]) -> str:
    """Sets, sets x reps and rep schemes ("5x3", "5 sets of 2", "4 x max", "3x30s", "5-5-3")."""
    if m := _MOVEMENT_SCHEME.search(rest):
        found["repScheme"] = m.group(1)
        rest = _take(rest, m)
    if m := _SETS_WORD.match(rest):
        found["sets"] = int(m.group(1))
        rest = rest[m.end() :]
    if m := _SETS_OF_HOLD.search(rest):
        found["sets"] = int(m.group(1))
        rest = _take(rest, m)
    elif m := _SETS_OF.search(rest):
        found["sets"], found["reps"] = int(m.group(1)), int(m.group(2))
        rest = _take(rest, m)
    elif m := _SETS_MAX.search(rest):
        found["sets"], found["max"] = int(m.group(1)), True
        rest = _take(rest, m)
    elif m := _SETS_REPS.search(rest):
        found["sets"], found["reps"] = int(m.group(1)), int(m.group(2))
        rest = _take(rest, m)
    return rest


def _movement(text: str) -> dict[str, Any] | None:
    """One movement ("20 wall balls (9/6kg, 10ft)", "Back squat 5x3 @ 80%") or None."""
    mention = text.strip()
    rest = _THOUSANDS.sub("", _SLOT.sub("", _LABEL_PREFIX.sub("", mention))).strip()
    found: dict[str, Any] = {}
    notes = []
    if m := _MAX_CAL.search(rest):
        found["calories"] = "max"
        rest = _take(rest, m)
    if m := _RPE.search(rest):
        notes.append(f"RPE {m.group(1)}")
        rest = _take(rest, m)
    if m := _REP_RANGE.match(rest):
        notes.append(f"{m.group(1)}-{m.group(2)} reps")
        rest = rest[m.end() :]
    rest = _sets(rest, found)
    if m := _PERCENT.search(rest):
        found["percent"] = float(m.group(1))
        rest = _take(rest, m)
    rest = _measures(rest, found).strip()
    if notes:
        found["note"] = "; ".join(notes)
    if "reps" not in found and (m := _LEADING_REPS.match(rest)):
        found["reps"] = int(m.group(1))
        rest = rest[m.end() :]
    if "reps" not in found and (m := _TRAILING_REP_COUNT.search(rest)):
        found["reps"] = int(m.group(1))
        rest = rest[: m.start()]
    if "reps" not in found and (m := _TRAILING_REPS.search(rest)):
        found["reps"] = int(m.group(1))
        rest = rest[: m.start()]
    if _MAX.search(rest):
        found["max"] = True
        rest = _MAX.sub(" ", rest)
    name = _clean_name(rest)
    # T2B and C2B carry digits; a name needs letters, and never starts with a number.
    if not _LETTER.search(name) or re.search(r"(?<!\w)\d+(?!\w)", name):
        return None
    return {"mention": mention, "name": name, **found}


def _unit(raw: str) -> str:
    unit = raw.lower()
    return {
        "kgs": "kg",
        "lb": "lb",
        "lbs": "lb",
        "#": "lb",
        "poods": "pood",
        "pound": "lb",
        "pounds": "lb",
        'ק"ג': "kg",
        "ק״ג": "kg",
        "קג": "kg",
        "קילו": "kg",
        '"': "in",
        "”": "in",
        "inch": "in",
        "inches": "in",
        "k": "km",
        "meter": "m",
        "meters": "m",
        "metre": "m",
        "metres": "m",
        "מטר": "m",
        "מ׳": "m",
        'ק"מ': "km",
        "mile": "mi",
        "miles": "mi",
    }.get(unit, unit)


def _is_prose(text: str) -> bool:
    """A how-to sentence ("1 rep the first minute, 2 the second... until failure")."""
    return bool(_PROSE.search(text))


def _is_note(text: str) -> bool:
    text = _SLOT.sub("", text)
    if _NOTE_START.match(text) or _is_prose(text):
        return True
    words = text.split()
    has_quantity = bool(_QUANTITY.search(text))
    # Without a number, a sentence ("Steady pace, no stopping.") is advice, not a movement.
    sentence = bool(re.search(r"[.!?]", text)) or ("," in text and len(words) > 3)
    if text.endswith(".") and len(words) >= 5:
        return True
    return (not has_quantity and (len(words) > 4 or sentence)) or len(words) > 16


def _complex(text: str) -> tuple[int | None, list[str], str] | None:
    """ "1 power clean + 2 front squats" / "5 x (1 clean + 1 jerk) @ 70%": sets, pieces, tail."""
    if "+" not in text:
        return None
    sets = None
    if named := _NAMED.match(text):
        text = named.group(2)
    body, tail = text, ""
    if at := re.search(r"\s@\s*[^+]*$", text):
        body, tail = text[: at.start()], text[at.start() :]
    if m := _SETS_COMPLEX.match(body):
        if m.group(1):
            sets, body, tail = int(m.group(1)), m.group(2), m.group(3) or tail
        else:
            sets, body = int(m.group(4)), m.group(5)
    pieces = [p.strip() for p in re.split(r"\s\+\s|\+(?=\s*\d)", body) if p.strip()]
    if len(pieces) < 2 or not all(re.match(r"^\d", p) for p in pieces):
        return None
    return sets, pieces, tail


_SEMICOLON = re.compile(r"\s*;\s*")
# What a quantity piece may name besides its number ("25 box jumps, 30 inch box").
# "20 sec side plank / side": a piece that only says how the one before is done.
_QUALIFIERS = frozenset(
    {"side", "each side", "per side", "each", "arm", "each arm", "leg", "each leg"}
)
_EQUIPMENT = frozenset(
    {"box", "plate", "ball", "bar", "barbell", "dumbbell", "dumbbells", "kettlebell",
     "kettlebells", "vest", "target", "ruck", "sandbag", "bell", "bells"}
)  # fmt: skip


def _outside_brackets(text: str, separator: re.Pattern[str]) -> list[str]:
    """`text` split where `separator` matches outside brackets (and not inside "1,000")."""
    depth = 0
    masked = []
    for char in text:
        depth += 1 if char in "([" else -1 if char in ")]" else 0
        masked.append("\0" if depth > 0 and char not in "([" else char)
    plain = _THOUSANDS.sub("\0", "".join(masked))
    spans, start = [], 0
    for m in separator.finditer(plain):
        spans.append(text[start : m.start()])
        start = m.end()
    spans.append(text[start:])
    return [span for span in spans if span.strip()]


def _pieces(text: str) -> list[str]:
    """A line's movements: split on commas, " / ", "and", never inside brackets.

    A piece that is only a quantity ("2 pood", "95/65 lb") belongs to the movement before it.
    """
    merged: list[str] = []
    for piece in _outside_brackets(text, _SPLIT):
        piece = piece.strip()
        movement = _movement(piece)
        bare = movement is None or movement["name"].lower() in _EQUIPMENT | _QUALIFIERS
        if merged and bare and not _REST.match(piece):
            # the quantity piece rejoins its movement as the coach wrote it
            start = text.index(merged[-1])
            merged[-1] = text[start : text.index(piece, start + len(merged[-1])) + len(piece)]
        else:
            merged.append(piece)
    return merged


def _completes(current: _Section, following: _Section) -> bool:
    """Whether a format line adds to the one before it rather than starting a section."""
    return current.format in ("other", "rounds") or following.format in ("rounds", "for_time")


class _Reader:
    def __init__(self) -> None:
        self.title: str | None = None
        self.parts: list[_Part] = []
        self.seen_content = False
        self.unread: list[str] = []

    def part(self) -> _Part:
        if not self.parts:
            self.parts.append(_Part(name="Workout"))
        return self.parts[-1]

    def section(self) -> _Section:
        part = self.part()
        if not part.sections:
            part.sections.append(_Section())
        return part.sections[-1]

    def note(self, text: str) -> None:
        part = self.part()
        (part.sections[-1].notes if part.sections else part.notes).append(text)

    def add_section(self, section: _Section) -> None:
        """A format line; one right after another format line with no movements completes it
        ("All for time:" then "5 rounds of:", "לזמן:" then "21-15-9")."""
        self.seen_content = True
        part = self.part()
        current = part.sections[-1] if part.sections else None
        empty = current is not None and current.from_header and not current.movements
        if current is not None and empty and _completes(current, section):
            if current.format in ("other", "rounds"):
                current.format = section.format
            for name in ("rounds", "rep_scheme", "duration_seconds", "interval_seconds"):
                if getattr(current, name) is None:
                    setattr(current, name, getattr(section, name))
            current.time_cap_seconds = current.time_cap_seconds or section.time_cap_seconds
            current.notes.extend(section.notes)
            return
        part.sections.append(section)

    def line(self, raw: str) -> None:
        text = _BULLET.sub("", raw).strip()
        if not text:
            return
        if part := _header(text):
            self.parts.append(part)
            return
        head, sep, tail = text.partition(":")
        if sep and tail.strip() and (part := _header(head)):
            self.parts.append(part)
            self.line(tail)
            return
        if bookend := _BOOKEND.match(text):
            self.part().sections.append(_Section(notes=[bookend.group(1)]))
            self.seen_content = True
            if bookend.group(2).strip():
                self.content(bookend.group(2).strip())
            return
        if _NOTE_START.match(text) and not _THEN.match(text):
            self.seen_content = True
            self.note(text)
            return
        text = _THEN.sub("", text) or text
        if self.titled(text):
            return
        self.body(text)

    def titled(self, text: str) -> bool:
        """A line that names a workout: "Helen", "Kelly - 5 rounds…", "JT 21-15-9…".

        First in the text, the name is the title; inside a part ("Conditioning" then
        "Barbara — 5 rounds, each for time: …"), it is a note on the section it names.
        """
        first = not (self.seen_content or self.title is not None or self.parts)
        name, rest = None, ""
        if (m := _LEADING_NAME.match(text)) and not _header(m.group("name")):
            name, rest = m.group("name"), text[m.end() :]
        elif (m := _TITLE_SEP.match(text)) and _is_name(m.group("head")):
            name, rest = m.group("head").strip(), m.group("tail")
        if name is None:
            return False
        names_a_format = bool(
            _section_header(rest, header_only=rest.endswith(":"))
            or self.format_and_movements(rest, dry=True)
        )
        if first and (names_a_format or _TITLE_SEP.match(text)):
            self.title = name
            self.line(rest)
            return True
        if not first and names_a_format:
            self.body(rest)
            self.section().notes.insert(0, name)
            return True
        return False

    def body(self, text: str) -> None:
        if m := _DEATH_BY.match(text):
            # "Death by thrusters": every minute one more rep, until the minute is not enough.
            death = _Section(format="emom", interval_seconds=60, from_header=True)
            death.notes.append(text[: m.end()].strip())
            self.add_section(death)
            self.content(text[m.end() :].strip(), listed=True)
            return
        if (m := _BUILD_TO.match(text)) and not _NOT_A_LIFT.search(m.group("lift")):
            # "Build to a heavy 3-rep back squat in 15 min": a lift worked up to, not a set.
            self.part().sections.append(_Section(format="strength", notes=[text]))
            self.seen_content = True
            if (movement := _movement(m.group("lift"))) is not None:
                movement["mention"] = text
                self.section().movements.append(movement)
            return
        tabata = _TABATA.match(text)
        if tabata and re.match(r"\s+[^\W\d]", text[tabata.end() :]) and not text.endswith(":"):
            # "Tabata air squats": the format, then the one movement it is done with.
            self.add_section(_Section(format="tabata", rounds=8, interval_seconds=30))
            self.content(text[tabata.end() :].strip(), listed=True)
            return
        if section := _section_header(text, header_only=text.endswith(":")):
            self.add_section(section)
            return
        if self.format_and_movements(text):
            return
        if (m := _CAP.search(text)) and self.parts and self.parts[-1].sections and len(text) < 30:
            self.section().time_cap_seconds = _cap_seconds(m)
            return
        self.content(text)

    def format_and_movements(self, text: str, *, dry: bool = False) -> bool:
        """ "AMRAP 20: 5 pull-ups, …", "3 rounds - 10 …", "75 power snatches for time @ …"."""
        m = _FORMAT_SEP.match(text)
        # "3 sets of max strict pull-ups" is one lift; "3 sets: 12 DB rows, 20 sec L-sit" rounds.
        lift = m is not None and m.group("sep").strip() == "of" and _SETS_ONLY.match(m["head"])
        if m and not lift and (section := _section_header(m.group("head"))):
            if not dry:
                tail = m.group("tail").strip()
                if scheme := _SCHEME.fullmatch(tail.rstrip(" .…")):
                    section.rep_scheme = re.sub(r"\s+", "", scheme.group(1))
                    self.add_section(section)
                    return True
                self.add_section(section)
                self.content(tail, listed=True)
            return True
        found = _FOR_TIME.search(text)
        if found and found.start() > 0:
            # "30 snatches for time (135/95 lb)": the format inside the movement's line.
            rest = (text[: found.start()] + text[found.end() :]).strip()
            pieces = _pieces(rest)
            if pieces and all(_movement(p) is not None for p in pieces):
                if not dry:
                    section = _Section(format="for_time", from_header=True)
                    self.add_section(section)
                    self.content(rest)
                    for movement in self.section().movements:
                        # a mention is verbatim: the line, when "for time" split the movement
                        if movement["mention"] not in text:
                            movement["mention"] = text
                return True
        return False

    def content(self, text: str, *, listed: bool = False) -> None:
        """Movements (or notes) of the current section.

        `listed`: the text followed a format on its line ("21-15-9 for time: HSPU, ring dips"),
        so it is a list of movements even without numbers and however long.
        """
        if not self.seen_content and not self.parts and self.title is None and _is_title(text):
            title = text.rstrip(":").strip()
            quoted = len(title) > 2 and title[0] in "\"'“" and title[-1] in "\"'”"
            self.title = title[1:-1] if quoted else title
            return
        self.seen_content = True
        notey = _NOTE_START.match(_SLOT.sub("", text)) or _is_prose(text)
        pieces = _pieces(text) if _complex(_LABEL_PREFIX.sub("", text)) is None else [text]
        # A long line of counted movements ("20 pull-ups, 30 push-ups, …") is a list, not prose.
        counted = len(pieces) > 1 and all(
            _QUANTITY.search(p) and (_movement(p) or _REST.match(p)) for p in pieces
        )
        if notey or (not listed and not counted and _is_note(text)):
            self.note(text)
            return
        for piece in pieces:
            self.piece(piece)

    def piece(self, text: str) -> None:
        if _NOTE_START.match(text) or _REST.match(text):
            self.note(text)
            return
        if complex_ := _complex(_LABEL_PREFIX.sub("", text)):
            self.add_complex(text, *complex_)
            return
        movement = _movement(text)
        if movement is None:
            if _QUANTITY.search(text):
                self.unread.append(text)
            self.note(text)
            return
        part = self.part()
        current = part.sections[-1] if part.sections else None
        lift = "sets" in movement or "repScheme" in movement
        # A lift stated as sets x reps (or 5-5-3) is its own strength section, unless it is
        # the first line under a format header ("E2MOM x 5:" then "3 x 2 snatch").
        if lift and (current is None or current.movements or current.format == "other"):
            part.sections.append(_Section(format="strength"))
        self.section().movements.append(movement)

    def add_complex(self, text: str, sets: int | None, pieces: list[str], tail: str) -> None:
        text = _LABEL_PREFIX.sub("", text)
        part = self.part()
        current = part.sections[-1] if part.sections else None
        # A complex joins a format line just read ("E2MOM x 6:"), else it is its own section.
        if current is None or current.movements:
            current = _Section(format="strength" if sets else "other")
            part.sections.append(current)
        current.complex = True
        percent = _PERCENT.search(tail)
        load = _LOAD.search(tail)
        for piece in pieces:
            movement = _movement(piece)
            if movement is None:
                current.notes.append(piece)
                continue
            movement["mention"] = text
            if sets is not None:
                movement["sets"] = sets
            # "@ 70%" after the complex applies to every piece of it.
            if percent:
                movement["percent"] = float(percent.group(1))
            if load:
                movement["load"] = re.sub(r"\s+", "", load.group(1)) + _unit(load.group(2))
            current.movements.append(movement)


def _is_name(text: str) -> bool:
    """A workout's name before "-" or ":" ("Kelly", "Open 21.1"), not a format or a part."""
    text = text.strip()
    if not text or len(text.split()) > 4 or not _LETTER.search(text):
        return False
    if _header(text) or _section_header(text) or _NOTE_START.match(text) or _SLOT.match(text + ":"):
        return False
    if _BOOKEND.match(text) or re.match(r"^\d", text):
        return False
    return _OPEN_TITLE.match(text) is not None or not _QUANTITY.search(text)


def _is_title(text: str) -> bool:
    if _OPEN_TITLE.match(text):
        return True
    if _header(text) or _section_header(text) or _is_note(text):
        return False
    if re.match(r"^\d", text) or _SETS_REPS.search(text):
        return False
    # "Deadlift 5-5-5-3-3-3", "Deadlift, 1.5 x BW": a lift, even first; "Monday 3/2" a title
    measured: dict[str, Any] = {}
    _measures(_CAP.sub(" ", text), measured)  # "Chipper (cap 25 min)" is still a name
    if _MOVEMENT_SCHEME.search(text) or "%" in text or "@" in text or measured.keys() - {"load"}:
        return False
    if "load" in measured and not _BARE_LOAD.search(text):
        return False
    return len(text.split()) <= 8 and (
        bool(re.search(r"[\"'“”״׳]", text)) or bool(re.search(r"\d", text)) or text.isupper()
        or text.endswith(":") or (len(text.split()) <= 5 and text[:1].isupper())
        or (len(text.split()) <= 5 and not text.isascii())
    )  # fmt: skip


def _part_out(index: int, part: _Part) -> dict[str, Any]:
    sections = []
    for s_index, section in enumerate(part.sections, start=1):
        movements = [
            {"key": f"{index}.{s_index}.{m_index}", **movement}
            for m_index, movement in enumerate(section.movements, start=1)
        ]
        out: dict[str, Any] = {"format": section.format}
        for key, value in (
            ("rounds", section.rounds),
            ("repScheme", section.rep_scheme),
            ("durationSeconds", section.duration_seconds),
            ("intervalSeconds", section.interval_seconds),
            ("timeCapSeconds", section.time_cap_seconds),
            ("complex", section.complex or None),
            ("note", "\n".join(section.notes) or None),
        ):
            if value is not None:
                out[key] = value
        out["movements"] = movements
        sections.append(out)
    result: dict[str, Any] = {"name": part.name}
    if part.notes:
        result["note"] = "\n".join(part.notes)
    if part.window:
        result["window"] = part.window
    result["optional"] = part.optional
    result["sections"] = sections
    return result


def parse_workout(text: str) -> dict[str, Any]:
    """`{title, parts: [...], unread: [...]}` read from a coach's text.

    The text itself is kept by the caller. `unread` lists the pieces with a quantity that were
    neither a movement nor a format (they are kept as notes too, so nothing is dropped).
    """
    reader = _Reader()
    for raw in text.replace("\r\n", "\n").split("\n"):
        # "Strength: Front squat 5-5-5; Metcon: 10 min AMRAP; 5 pull-ups": ";" ends a line too.
        for line in _outside_brackets(raw, _SEMICOLON):
            reader.line(line)
    parts = [p for p in reader.parts if p.sections or p.notes]
    return {
        "title": reader.title,
        "parts": [_part_out(i, part) for i, part in enumerate(parts, start=1)],
        "unread": reader.unread,
    }


def movements_of(parsed: dict[str, Any]) -> list[dict[str, Any]]:
    """Every movement of a parsed (or stored) workout, in order."""
    return [m for part in parsed["parts"] for s in part["sections"] for m in s["movements"]]
