"""A coach's pasted day of training, read into ONE workout: parts, sections, movements.

Pure: no database. Movement names come out as the coach wrote them (cleaned of quantities);
`spotter.domain.workouts.resolve_movements` matches them against the org's exercise library.
Every movement carries a stable `key` ("part.section.movement", 1-based) and its verbatim
`mention`, so a second call can resolve exactly the movements the first one could not.

Handles English and Hebrew (and lines mixing both): part headers (Warm-up, Lift, Conditioning,
Optional…, חימום, כוח…) with clock windows, AMRAP / EMOM / E2MOM / For Time / rounds / Tabata
sections, time caps, rep schemes (21-15-9), sets x reps with percentages, complexes
("1 power clean + 2 front squats"), loads, distances, calories, heights and durations.
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
_HEADER = re.compile(
    rf"^(?:(?:(?:partner|team|hero)\s+)?(?:{_PART_WORDS})\b[\s\w'&/-]{{0,30}})$", re.IGNORECASE
)
_OPTIONAL = re.compile(r"\b(optional|bonus|אופציונלי|בונוס|רשות)\b", re.IGNORECASE)
_LABEL_PREFIX = re.compile(r"^(?:[A-Ea-e][).:]|\d[).])\s+")
_BULLET = re.compile(r"^\s*(?:[-*•·–—]+|\d{1,2}[.)](?=\s))\s*")
_WINDOW = re.compile(
    r"\(?\s*(\d{1,2}(?::\d{2})?)\s*[-–—]\s*(\d{1,2}(?::\d{2})?)\s*(?:'|min(?:utes)?|דק(?:ות)?)?\s*\)?"
)
_NOTE_START = re.compile(
    r"^(?:notes?|rest|switch|scale|scaling|goal|focus|stimulus|coach|tip|cue|then|הערה|מנוחה|דגש|מטרה|שימו)\b",
    re.IGNORECASE,
)

_MIN = r"(?:min(?:ute)?s?|'|דקות|דק׳|דק)"
_AMRAP = re.compile(rf"\bAMRAP\s*(\d+)\s*{_MIN}?|(\d+)\s*{_MIN}?\s*AMRAP\b", re.IGNORECASE)
_EMOM = re.compile(rf"\bE(\d*)MOM\s*(?:x\s*)?(\d+)?\s*{_MIN}?|(\d+)\s*{_MIN}?\s*E(\d*)MOM\b", re.I)
_EVERY = re.compile(
    r"\b(?:every|כל)\s*(\d+(?::\d{2})?)?\s*(min(?:ute)?s?|sec(?:ond)?s?|דקה|דקות|שניות)?"
    r"\s*(?:x|for|×)\s*(\d+)",
    re.IGNORECASE,
)
_TABATA = re.compile(r"\btabata\b", re.IGNORECASE)
_FOR_TIME = re.compile(r"\bfor\s+time\b|\bRFT\b|לזמן", re.IGNORECASE)
_ROUNDS = re.compile(r"(\d+)\s*(?:rounds?|rds?|סבבים|סבב)\b", re.IGNORECASE)
_CAP = re.compile(
    rf"\b(?:time\s*cap|tc|cap|קאפ)\s*[:=]?\s*(\d+)(?::(\d{{2}}))?\s*{_MIN}?", re.IGNORECASE
)
_SCHEME = re.compile(r"^(\d+(?:\s*-\s*\d+){2,})\b")
_SETS_REPS = re.compile(r"\b(\d+)\s*[x×X]\s*(\d+)\b")
_SETS_COMPLEX = re.compile(
    r"^(\d+)\s*[x×X]\s*\((.*)\)(.*)$|^(\d+)\s*sets?\s*(?:of|:)\s*(.*)$", re.I
)
_PERCENT = re.compile(r"@?\s*(\d+(?:\.\d+)?)(?:\s*-\s*\d+(?:\.\d+)?)?\s*%")
_LOAD = re.compile(
    r"(\d+(?:\.\d+)?(?:/\d+(?:\.\d+)?)?)\s*(kg|kgs|lbs?|#|ק\"ג|ק״ג|קג|קילו)(?![A-Za-z])", re.I
)
_HEIGHT = re.compile(r"(\d+(?:/\d+)?)\s*(\"|”|in(?:ch(?:es)?)?|cm|ft)(?![A-Za-z])", re.I)
_DISTANCE = re.compile(
    r"(\d+(?:\.\d+)?(?:/\d+(?:\.\d+)?)?)\s*(km|m|mi|miles?|meters?|metres?|מטר|מ׳|ק\"מ)(?![A-Za-z])",
    re.I,
)
_CALORIES = re.compile(r"(\d+(?:/\d+)?)\s*(?:cals?|calories|קלוריות|קל׳|קל)(?![A-Za-z])", re.I)
_SECONDS = re.compile(r"(?<![\d:])(?::(\d{2})|(\d+)\s*(?:sec(?:ond)?s?|s|שניות))(?![A-Za-z])", re.I)
_LEADING_REPS = re.compile(r"^(\d+)\s*(?:reps?\b|חזרות\b)?\s*")
_TRAILING_REPS = re.compile(r"\s[x×]\s*(\d+)\s*$", re.I)
_SLOT = re.compile(
    r"^(?:min(?:ute)?\s*\d+|odd|even|partner\s*[ab12]|p[12]|אי[- ]?זוגי|זוגי)\s*[:\-]\s*", re.I
)
_MAX = re.compile(r"\bmax(?:\s+reps)?\b", re.I)
_MAX_CAL = re.compile(r"\bmax\s+cals?\b", re.I)
_SETS_WORD = re.compile(r"^(\d+)\s*sets?\s*(?:of\b)?", re.I)
_MOVEMENT_SCHEME = re.compile(r"\b(\d+(?:-\d+){2,})\b")
_ROUNDS_X = re.compile(r"^(\d+)\s*[x×]\s*")
_REST = re.compile(rf"\brest\s+\d+(?::\d{{2}})?\s*{_MIN}?.*$", re.I)
# "Buy-in: 50 DU" / "Cash-out: 800m run": a section of its own inside the part.
_BOOKEND = re.compile(r"^(buy[\s-]?in|cash[\s-]?out)\b\s*:?\s*(.*)$", re.I)
_NAMED = re.compile(r"^([^\d:]{2,40}):\s*(.+)$")
_QUANTITY = re.compile(r"\d")
_LETTER = re.compile(r"[^\W\d_]")


@dataclass
class _Section:
    format: str = "other"
    rounds: int | None = None
    rep_scheme: str | None = None
    duration_seconds: int | None = None
    interval_seconds: int | None = None
    time_cap_seconds: int | None = None
    complex: bool = False
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


def _timed_format(text: str, section: _Section) -> bool:
    """Fill in AMRAP / EMOM / every-N / Tabata timing; False when the line has none."""
    if m := _AMRAP.search(text):
        section.format = "amrap"
        section.duration_seconds = int(m.group(1) or m.group(2)) * 60
    elif m := _EMOM.search(text):
        every = int(m.group(1) or m.group(4) or 1)
        count = m.group(2) or m.group(3)
        section.format = "emom"
        section.interval_seconds = every * 60
        if count:
            # "E2MOM x 6" counts rounds; "EMOM 12" / "E2MOM 12" count minutes.
            by_rounds = bool(re.search(r"x\s*\d", text, re.I))
            section.rounds = int(count) if by_rounds else int(count) // every
            section.duration_seconds = section.rounds * every * 60
    elif m := _EVERY.search(text):
        unit = (m.group(2) or "min").lower()
        size = m.group(1) or "1"
        seconds = _seconds_in(size) if ":" in size else int(size) * (1 if unit[0] in "sש" else 60)
        section.format = "emom"
        section.interval_seconds = seconds
        section.rounds = int(m.group(3))
        section.duration_seconds = seconds * section.rounds
    elif _TABATA.search(text):
        section.format = "tabata"
        section.rounds = 8
        section.interval_seconds = 30
    else:
        return False
    return True


def _section_header(line: str) -> _Section | None:
    """A format line ("AMRAP 12", "E2MOM x 6", "3 rounds for time", "21-15-9") or None."""
    text = line.strip().rstrip(":")
    section = _Section()
    if rest := _REST.search(text):
        section.notes.append(rest.group(0).strip())
        text = text[: rest.start()].strip(" ,;")
    if (times := _ROUNDS_X.match(text)) and (_AMRAP.search(text) or _FOR_TIME.search(text)):
        # "3 x 4 min AMRAP": repeated pieces of the same format.
        section.rounds = int(times.group(1))
        text = text[times.end() :]
    if _timed_format(text, section):
        pass
    elif _FOR_TIME.search(text):
        section.format = "for_time"
    elif _ROUNDS.search(text) and not _SETS_REPS.search(text):
        section.format = "rounds"
    elif not _SCHEME.match(text):
        return None
    if section.rounds is None and (m := _ROUNDS.search(text)):
        section.rounds = int(m.group(1))
    if m := _SCHEME.match(text):
        section.rep_scheme = re.sub(r"\s+", "", m.group(1))
        if section.format == "other":
            section.format = "for_time" if _FOR_TIME.search(text) else "rounds"
    if m := _CAP.search(text):
        section.time_cap_seconds = _seconds_in(f"{m.group(1)}:{m.group(2) or '00'}")
    leftover = _strip_all(text, (_AMRAP, _EMOM, _EVERY, _TABATA, _FOR_TIME, _ROUNDS, _CAP))
    leftover = _SCHEME.sub("", leftover).strip(" :-–—,.()")
    # "AMRAP 12: 10 burpees" carries a movement after the format; a word or two is a name.
    if leftover and _QUANTITY.search(leftover):
        return None
    if _LETTER.search(leftover):
        section.notes.insert(0, leftover)  # "AMRAP 20 (partner style)": keep the words
    return section


def _strip_all(text: str, patterns: tuple[re.Pattern[str], ...]) -> str:
    for pattern in patterns:
        text = pattern.sub(" ", text)
    return re.sub(r"\s+", " ", text).strip()


def _clean_name(text: str) -> str:
    text = re.sub(r"\(\s*[,;/\s]*\)", " ", text)
    text = re.sub(r"\b(?:rx|each(?: side| arm| leg)?|e/s|per side|@|of)\b", " ", text, flags=re.I)
    text = re.sub(r"[,;@()\[\]/+]", " ", text)
    return re.sub(r"\s+", " ", text).strip(" -–—:.")


def _movement(text: str) -> dict[str, Any] | None:
    """One movement ("20 wall balls (9/6kg, 10ft)", "Back squat 5x3 @ 80%") or None."""
    mention = text.strip()
    rest = _SLOT.sub("", _LABEL_PREFIX.sub("", mention))
    found: dict[str, Any] = {}
    if m := _MAX_CAL.search(rest):
        found["calories"] = "max"
        rest = rest[: m.start()] + " " + rest[m.end() :]
    if m := _MOVEMENT_SCHEME.search(rest):
        found["repScheme"] = m.group(1)
        rest = rest[: m.start()] + " " + rest[m.end() :]
    if m := _SETS_WORD.match(rest):
        found["sets"] = int(m.group(1))
        rest = rest[m.end() :]
    if m := _SETS_REPS.search(rest):
        found["sets"], found["reps"] = int(m.group(1)), int(m.group(2))
        rest = rest[: m.start()] + " " + rest[m.end() :]
    if m := _PERCENT.search(rest):
        found["percent"] = float(m.group(1))
        rest = rest[: m.start()] + " " + rest[m.end() :]
    for key, pattern in (("load", _LOAD), ("calories", _CALORIES), ("height", _HEIGHT)):
        if m := pattern.search(rest):
            unit = "" if key == "calories" else _unit(m.group(2))
            found[key] = m.group(1) + unit
            rest = rest[: m.start()] + " " + rest[m.end() :]
    if m := _DISTANCE.search(rest):
        found["distance"] = m.group(1) + _unit(m.group(2))
        rest = rest[: m.start()] + " " + rest[m.end() :]
    if m := _SECONDS.search(rest):
        found["seconds"] = int(m.group(1) or m.group(2))
        rest = rest[: m.start()] + " " + rest[m.end() :]
    rest = rest.strip()
    if "reps" not in found and (m := _LEADING_REPS.match(rest)):
        found["reps"] = int(m.group(1))
        rest = rest[m.end() :]
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
        'ק"ג': "kg",
        "ק״ג": "kg",
        "קג": "kg",
        "קילו": "kg",
        '"': "in",
        "”": "in",
        "inch": "in",
        "inches": "in",
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


def _is_note(text: str) -> bool:
    text = _SLOT.sub("", text)
    if _NOTE_START.match(text):
        return True
    words = text.split()
    has_quantity = bool(_QUANTITY.search(text))
    # Without a number, a sentence ("Steady pace, no stopping.") is advice, not a movement.
    sentence = bool(re.search(r"[,.!?]", text))
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


class _Reader:
    def __init__(self) -> None:
        self.title: str | None = None
        self.parts: list[_Part] = []
        self.seen_content = False

    def part(self) -> _Part:
        if not self.parts:
            self.parts.append(_Part(name="Workout"))
        return self.parts[-1]

    def section(self) -> _Section:
        part = self.part()
        if not part.sections:
            part.sections.append(_Section())
        return part.sections[-1]

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
        if section := _section_header(text):
            self.part().sections.append(section)
            self.seen_content = True
            return
        if sep and tail.strip() and (section := _section_header(head)):
            # "E2MOM x 6: 1 power clean + 2 front squats": the format, then its movement.
            self.part().sections.append(section)
            self.seen_content = True
            self.content(tail.strip())
            return
        if (m := _CAP.search(text)) and self.part().sections and len(text) < 30:
            self.section().time_cap_seconds = _seconds_in(f"{m.group(1)}:{m.group(2) or '00'}")
            return
        self.content(text)

    def content(self, text: str) -> None:
        if not self.seen_content and not self.parts and self.title is None and _is_title(text):
            title = text.rstrip(":").strip()
            quoted = len(title) > 2 and title[0] in "\"'“" and title[-1] in "\"'”"
            self.title = title[1:-1] if quoted else title
            return
        self.seen_content = True
        if _is_note(text):
            part = self.part()
            (part.sections[-1].notes if part.sections else part.notes).append(text)
            return
        if complex_ := _complex(_LABEL_PREFIX.sub("", text)):
            self.add_complex(text, *complex_)
            return
        movement = _movement(text)
        if movement is None:
            part = self.part()
            (part.sections[-1].notes if part.sections else part.notes).append(text)
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
                movement["load"] = load.group(1) + _unit(load.group(2))
            current.movements.append(movement)


def _is_title(text: str) -> bool:
    if _header(text) or _section_header(text) or _is_note(text):
        return False
    if re.match(r"^\d", text) or _SETS_REPS.search(text):
        return False
    return len(text.split()) <= 8 and (
        bool(re.search(r"[\"'“”״׳]", text)) or bool(re.search(r"\d", text)) or text.isupper()
        or text.endswith(":") or (len(text.split()) <= 3 and text[:1].isupper())
        or (len(text.split()) <= 4 and not text.isascii())
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
    """`{title, parts: [...]}` read from a coach's text; the text itself is kept by the caller."""
    reader = _Reader()
    for raw in text.replace("\r\n", "\n").split("\n"):
        reader.line(raw)
    parts = [p for p in reader.parts if p.sections or p.notes]
    return {
        "title": reader.title,
        "parts": [_part_out(i, part) for i, part in enumerate(parts, start=1)],
    }


def movements_of(parsed: dict[str, Any]) -> list[dict[str, Any]]:
    """Every movement of a parsed (or stored) workout, in order."""
    return [m for part in parsed["parts"] for s in part["sections"] for m in s["movements"]]
