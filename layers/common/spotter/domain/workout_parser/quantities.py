"""The numbers of a movement: loads (per sex and unit), distances, calories, heights, holds,
percentages, tempo, sets x reps and rep schemes. Each reader takes what it recognizes out of
the text and writes it into `found`, so what is left is the movement's name."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from spotter.domain import movement_vocabulary as vocabulary
from spotter.domain.workout_parser import lexicon
from spotter.domain.workout_parser.lexicon import TIMES, words
from spotter.domain.workout_parser.lines import squeeze

NUM = r"\d+(?:[.,]\d+)?"
_LOAD_UNIT, LOAD_SPELLING = lexicon.units(lexicon.LOAD_UNITS)
LOAD_UNIT = _LOAD_UNIT  # what a load is written in: kg, lb, #, pood, ק"ג, кг
DIST_UNIT, DIST_SPELLING = lexicon.units(
    {k: v for k, v in lexicon.DISTANCE_UNITS.items() if k != "ft"}
)
_HEIGHT_UNIT, HEIGHT_SPELLING = lexicon.units(lexicon.HEIGHT_UNITS)
_FEET_UNIT = words(lexicon.DISTANCE_UNITS["ft"])
_CAL = words(lexicon.CALORIES)
_SEC = words(lexicon.SECONDS)
_MINS = words(lexicon.MINUTES)
_IMPLEMENT = words(tuple(w for ws in lexicon.IMPLEMENTS.values() for w in ws))
IMPLEMENT_OF = {w: name for name, ws in lexicon.IMPLEMENTS.items() for w in ws}
_ANY_UNIT = rf"(?:{_LOAD_UNIT}|{DIST_UNIT}|{_HEIGHT_UNIT}|{_FEET_UNIT}|{_CAL}|{_SEC}|{_MINS})"
_END = r"(?!\w)"  # a unit ends where its word ends ("m" is not the start of "min")

# "2x22.5/15kg", "95/65 lb", "1.5/1 pood", "24kg/16kg".
LOAD = re.compile(
    rf"((?:\d\s*{TIMES}\s*)?{NUM}(?:\s*/\s*{NUM})?)\s*-?\s*({_LOAD_UNIT}){_END}", re.I
)
_LOAD_PAIR = re.compile(rf"({NUM})\s*({_LOAD_UNIT})\s*/\s*({NUM})\s*\2{_END}", re.I)
_HEIGHT_PAIR = re.compile(rf"(\d+)\s*({_HEIGHT_UNIT})\s*/\s*(\d+)\s*\2{_END}", re.I)
# "225/155", "(53/35)": a pair of numbers with no unit is the barbell's (or bell's) load.
BARE_LOAD = re.compile(r"(?<![\d.:/-])(\d+(?:\.\d+)?/\d+(?:\.\d+)?)(?![\d./:%-])")
HEIGHT = re.compile(rf"(\d+(?:/\d+)?)\s*-?\s*({_HEIGHT_UNIT}){_END}", re.I)
FEET = re.compile(rf"(\d+(?:/\d+)?)\s*-?\s*{_FEET_UNIT}{_END}", re.I)
DISTANCE = re.compile(
    rf"({NUM}(?:\s*/\s*{NUM})?)\s*-?\s*({DIST_UNIT}){_END}(?:\s*/\s*(\d+)\s*\2{_END})?", re.I
)
CALORIES = re.compile(rf"(\d+(?:/\d+)?)\s*-?\s*{_CAL}{_END}", re.I)
SECONDS = re.compile(rf"(?<![\d:])(?::(\d{{2}})|(\d+)\s*-?\s*{_SEC}{_END})", re.I)
CLOCK_HOLD = re.compile(r"(?<![\d:])(\d{1,2}):(\d{2})(?![\d:])")
MINUTES = re.compile(rf"(?<![\d:])(\d+)\s*-?\s*{_MINS}{_END}", re.I)
# "BW", "1.5 BW", "2 x BW", "0.75xBW" — a whole number needs its "x" ("12 bodyweight
# deadlifts" are twelve of them).
BODYWEIGHT = re.compile(
    rf"(?<![\w.])(?:(\d+\.\d+|\d+/\d+)\s*{TIMES}?\s*|(\d+)\s*{TIMES}\s*)?"
    rf"{words(lexicon.BODYWEIGHT)}{_END}",
    re.I,
)
# "@ 75%", "at 75%", "ב-75%", "на 75%": the "at" is part of the mark, not of the name.
AT_MARK = rf"(?:@|(?<!\w){words(lexicon.AT)}(?:\s+|-)|(?<!\S)ב-?)"
PERCENT = re.compile(  # (a decimal comma too: "72,5%")
    rf"{AT_MARK}?\s*(\d+(?:[.,]\d+)?)(?:\s*%?\s*[-–]\s*(\d+(?:[.,]\d+)?))?\s*(?:%|{words(lexicon.PERCENT_WORDS)}(?!\w))",
    re.I,
)
# "65/75/85%", "75-85-95%" (a 5/3/1 week): a percent per set, three or more (two with a dash
# are a range)
_PERCENT_WAVE = re.compile(
    rf"{AT_MARK}?\s*(\d+(?:\.\d+)?)(?:(?:\s*/\s*\d+(?:\.\d+)?)+|(?:\s*[-–]\s*\d+(?:\.\d+)?){{2,}})\s*%",
    re.I,
)
# "… of back squat 1RM", "… of 1RM", "… от ПМ": whose maximum a percentage is of.
_PERCENT_OF = re.compile(
    r"\s*(?:of|от)\s+(?:(?:your|the|a)\s+)?(?P<of>[^\d,;@()+]*?)\s*"
    r"(?P<max>\b1\s*-?\s*RM\b|\bmax\b|\bPR\b|ПМ|РМ)?(?=\s*(?:$|[,;)(@+]))",
    re.I,
)
_OWN_MAX = re.compile(r"\s*(?:1\s*-?\s*RM|ПМ)\b", re.I)
# "65% FS 1RM", "70% back squat max", "80% ПМ приседа": the lift's max named without "of".
_NAMED_MAX = re.compile(
    r"\s+(?!(?:of|от)\s)(?P<of>[^\W\d][^\d,;@()+%]*?)\s*(?:\b1\s*-?\s*RM\b|\bmax\b|\bPR\b|ПМ|РМ)"
    r"(?=\s*(?:$|[,;)(@+]))"
    r"|\s*(?:1\s*-?\s*RM|ПМ|РМ)\s+(?P<after>[^\W\d][^\d,;@()+%]*?)(?=\s*(?:$|[,;)(@+]))",
    re.I,
)
# "@ RPE 8", "RPE 8-9" (a range: the note keeps it whole, not "3-9 reps" with the sets' 3).
RPE = re.compile(r"@?\s*\bRPE\s*(\d+(?:\.\d+)?(?:\s*[-–]\s*\d+(?:\.\d+)?)?)", re.I)
# "tempo 3-1-1-0", "בטמפו 3-1-1-0", "в темпе 3-1-1-0", "@ 32X1", "(33X1)": a tempo in brackets
# is written with a capital X (or as four digits) — "(3x10)" is sets.
TEMPO = re.compile(
    r"@?\s*\b(?:tempo|(?:в\s+)?темпе?|[בו]?-?טמפו)\s*:?\s*@?\s*([\dxX](?:[-.\s]?[\dxX]){3})(?![\d])"
    r"|@\s*(?=[\dxX]{4}(?![\w.]))(\d*[xX]\d*)"
    r"|\(\s*(\d{2}(?-i:X)\d|\d(?-i:X)\d{2}|\d{4})\s*\)"
    # "@ 3-1-1-0" (no rep scheme follows an "@"), "4x4 3-1-X-1" (a scheme holds no 0 or X)
    r"|@\s*(\d(?:\s*[-.]\s*[\dxX]){3})(?![\d-])"
    r"|(?<![\d-])((?=[\dxX-]*[0xX])[\dxX](?:-[\dxX]){3})(?![\d-])",
    re.I,
)
# "3RM", "1-RM", "5 rep max": a rep max worked up to.
REP_MAX = re.compile(r"\b(\d+)\s*-?\s*(?:RM|ПМ|rep\s+max)\b", re.I)
PER_SIDE = re.compile(rf"(?:\s*{words(lexicon.PER_SIDE)}{_END})+", re.I)
# "10/10 single-arm DB row": the same count for each side.
SIDE_PAIR = re.compile(r"^(\d+)\s*/\s*(\d+)(?=\s+[^\W\d])")

SCHEME_TEXT = r"\d+(?:\s*-\s*\d+){2,}"
MOVEMENT_SCHEME = re.compile(r"\b(\d+(?:-\d+){2,})\b|(?<![\d.])(\d{1,2}(?:/\d{1,2}){2,})(?![\d/])")
_NOT_A_UNIT = rf"(?!\s*(?:[.,/]\d|{_ANY_UNIT}{_END}))"
SETS_REPS = re.compile(
    rf"(?<![\d.])(\d+)\s*{TIMES}\s*(\d+)(?![\d.])(?:\s*/\s*\d+(?![\d.]))?{_NOT_A_UNIT}", re.I
)
SETS_OF = re.compile(
    rf"\b(\d+)\s*{words(lexicon.SETS)}\s*(?:of|של|по|{TIMES})\s*(\d+)(?:\s*{words(lexicon.REPS)})?"
    rf"{_NOT_A_UNIT}{_END}",
    re.I,
)
# "3x30s side plank", "4 x 400m run", "5 x 1 min L-sit": sets of a hold, a distance, calories.
SETS_OF_QUANTITY = re.compile(
    rf"(?<![\d.])(\d+)\s*{TIMES}\s*(?=:?\d+(?:[.,]\d+)?\s*-?\s*(?:{_SEC}|{_MINS}|{DIST_UNIT}|{_CAL}){_END}"
    r"|\d{0,2}:\d{2}(?!\d))",  # "2 x 1:00 plank", "3 x :45 hollow hold": sets of a hold
    re.I,
)
SETS_MAX = re.compile(
    rf"\b(\d+)\s*(?:{TIMES}|{words(lexicon.SETS)}\s*(?:of|של|по|{TIMES})?)\s*"
    r"(?:max(?:imum)?(?:\s+effort)?|ME|макс\w*|מקסימום)(?!\w)",
    re.I,
)
SETS_WORD = re.compile(rf"^(\d+)\s*{words(lexicon.SETS)}\s*(?:of\b|по\b|של\b)?", re.I)
SETS_RANGE = re.compile(
    rf"(?<![\d.])(\d+)\s*(?:{TIMES}|{words(lexicon.SETS)}\s*(?:of|по|של|{TIMES})?)\s*"
    rf"(\d+)\s*[-–]\s*(\d+)(?![\d.%:])(?:\s*{words(lexicon.REPS)}{_END})?{_NOT_A_UNIT}",
    re.I,
)
# "3-5 strict HSPU": a range of reps, kept as the movement's note.
REP_RANGE = re.compile(r"^(\d+)\s*-\s*(\d+)\s+(?=[^\W\d])")


def clean_number(text: str) -> str:
    """A number as written out: no spaces, a decimal comma as a point, "×" as "x"."""
    text = re.sub(r"\s+", "", text).replace("×", "x").replace("*", "x")
    return re.sub(r"(?<=\d)[хХX](?=\d)", "x", re.sub(r"(?<=\d),(?=\d)", ".", text))


def unit_of(spelled: str) -> str:
    key = spelled.lower()
    for table in (LOAD_SPELLING, DIST_SPELLING, HEIGHT_SPELLING):
        if key in table:
            return table[key]
    return key


def take(text: str, m: re.Match[str]) -> str:
    return text[: m.start()] + " " + text[m.end() :]


@dataclass(frozen=True)
class Sexed:
    """One sex's quantity: "♀ 65 lb", "M: 22.5 kg", "♂ 24-in box"."""

    sex: str  # "m" or "f"
    kind: str  # "load", "height", "distance", "calories"
    number: str
    unit: str
    implement: str | None


_MALE = {w.lower() for w in lexicon.MALE}
# A sex's mark, right before its number: "♀ 65 lb", "M: 22.5 kg", "(W) 15", "мужчины 60 кг".
_MARK = re.compile(
    rf"(?:(?<![\w.])|(?<=[♂♀]))(?<!\u200d)\(?(?P<mark>[♂♀]\ufe0f?|"
    rf"{words(tuple({*lexicon.MALE, *lexicon.FEMALE} - {'♂', '♀'}))}(?!\w))\)?"
    rf"(?:\s+{words(lexicon.SEX_VERBS)}(?!\w))?"  # "Men use 225-lb. deadlifts"
    r"(?:\s+(?:a|an|the)(?!\w))?"  # "Men use a 20-lb ball"
    r"(?=\s*[:=]?\s*\(?\s*\d)",
    re.I,
)
_QTY = re.compile(
    rf"(?P<num>{NUM})\s*-?\s*(?:(?P<unit>{_ANY_UNIT}){_END}\.?)?"  # "a 20-lb. ball"
    rf"(?:[\s-]*(?P<impl>{_IMPLEMENT}){_END})?",
    re.I,
)


def _kind(unit: str, implement: str | None) -> str:
    unit = unit.lower()
    if unit in LOAD_SPELLING or not unit:
        return "load"
    if unit in HEIGHT_SPELLING:
        return "height"
    if re.fullmatch(_FEET_UNIT, unit, re.I):
        return "height" if implement in ("box", "medicine ball") else "distance"
    if re.fullmatch(_CAL, unit, re.I):
        return "calories"
    return "distance"


def _item(sex: str, m: re.Match[str], previous: Sexed | None) -> Sexed:
    unit = m.group("unit") or ""
    implement = IMPLEMENT_OF.get(re.sub(r"[\s-]+", " ", (m.group("impl") or "").lower()))
    feet = bool(re.fullmatch(_FEET_UNIT, unit, re.I))
    if feet and implement is None and previous is not None:
        implement = previous.implement  # "14-lb ball to 9 ft": the ball's target
    short = "ft" if feet else unit_of(unit) if unit else ""
    return Sexed(sex, _kind(unit, implement), clean_number(m.group("num")), short, implement)


def sexed(text: str) -> tuple[list[Sexed], str]:
    """The per-sex quantities of `text` and the text without them (when any were read).

    After a mark, its first number is that sex's, and so is every following number that
    carries a unit or an implement ("♀ 14-lb ball to 9 ft, 95-lb barbell"), up to the next
    mark.
    """
    marks = list(_MARK.finditer(text))
    items: list[Sexed] = []
    end = 0
    for index, mark in enumerate(marks):
        sex = "m" if mark.group("mark").lower().rstrip("\ufe0f") in _MALE else "f"
        stop = marks[index + 1].start() if index + 1 < len(marks) else len(text)
        previous: Sexed | None = None
        for count, m in enumerate(_QTY.finditer(text, mark.end(), stop)):
            if count and not (m.group("unit") or m.group("impl")):
                break
            item = _item(sex, m, previous)
            items.append(item)
            previous, end = item, m.end()
    if not items:
        return [], text
    return items, text[: marks[0].start()] + " " + text[end:]


_STATED = re.compile(
    # "KB 24/16", "DBs 22.5/15kg": the implement may come before its load
    rf"(?:(?<!\w)(?P<lead>{_IMPLEMENT})\s*[:\-–]?\s*(?=\d))?(?P<num>{NUM}(?:\s*/\s*{NUM})?)\s*-?\s*(?P<unit>{_LOAD_UNIT}|{_HEIGHT_UNIT}|{_FEET_UNIT})?"
    rf"{_END}(?:[\s-]*(?P<impl>{_IMPLEMENT}){_END})?",
    re.I,
)
_AROUND_STATED = re.compile(
    rf"(?<!\w)(?:to|for|all|lifts?|the|a|an|on|rx|with|w(?=/)|{words(lexicon.AT['en'])})(?!\w)"
    r"|[@(),;:/|+&]",
    re.I,
)


def stated(text: str) -> list[tuple[str, str | None, str]]:
    """A line of loads and heights only, for no sex ("(155/105 lb)", "20/14 lb ball, 10/9 ft
    target", "95/65"): (kind, implement or None, value) each; [] when the line says more."""
    items: list[tuple[str, str | None, str]] = []
    for m in _STATED.finditer(text):
        number, unit = clean_number(m.group("num")), m.group("unit") or ""
        written = m.group("impl") or m.group("lead") or ""
        implement = IMPLEMENT_OF.get(re.sub(r"[\s-]+", " ", written.lower()))
        if not unit and "/" not in number:
            return []  # a lone number with no unit is not a load
        kind = _kind(unit, implement)
        if kind not in ("load", "height"):
            return []
        short = "ft" if re.fullmatch(_FEET_UNIT, unit, re.I) else unit_of(unit) if unit else ""
        items.append((kind, implement, number + short))
    left = _AROUND_STATED.sub(" ", _STATED.sub(" ", text))
    return items if items and not re.search(r"[^\W_]", left) else []


def paired(items: list[Sexed]) -> dict[tuple[str, str | None], str]:
    """Male and female quantities of the same kind (and implement) as "M/F" plus the unit.

    A number written without a unit ("♀16 / ♂24 kg") takes the unit of its pair.
    """
    out: dict[tuple[str, str | None], str] = {}
    females = [i for i in items if i.sex == "f"]
    for male in (i for i in items if i.sex == "m"):
        female = next(
            (f for f in females if f.kind == male.kind or not (f.unit and male.unit)), None
        )
        if female is None:
            continue
        females.remove(female)
        kind = male.kind if male.unit else female.kind
        implement = male.implement or female.implement
        out.setdefault(
            (kind, implement), f"{male.number}/{female.number}{male.unit or female.unit}"
        )
    return out


def measures(rest: str, found: dict[str, Any]) -> str:
    """Loads, calories, heights, distances, holds: into `found`, out of the text."""
    items, without = sexed(rest)
    pairs = paired(items)
    if pairs:
        rest = without
        for (kind, _implement), value in pairs.items():
            found.setdefault(kind, value)
    for key, pattern in (("load", _LOAD_PAIR), ("height", _HEIGHT_PAIR)):
        if key not in found and (m := pattern.search(rest)):
            found[key] = f"{clean_number(m.group(1))}/{clean_number(m.group(3))}"
            found[key] += unit_of(m.group(2))
            rest = take(rest, m)
    for key, pattern in (("load", LOAD), ("calories", CALORIES), ("height", HEIGHT)):
        if key not in found and (m := pattern.search(rest)):
            unit = "" if key == "calories" else unit_of(m.group(2))
            found[key] = clean_number(m.group(1)) + unit
            rest = take(rest, m)
    if m := FEET.search(rest):
        # Feet are a wall-ball target or a box height; otherwise how far (walks, lunges).
        key = "height" if re.search(r"target|box|ball|rope", rest, re.I) else "distance"
        found.setdefault(key, m.group(1) + "ft")
        rest = take(rest, m)
    if "distance" not in found and (m := DISTANCE.search(rest)):
        number = clean_number(m.group(1)) + (f"/{m.group(3)}" if m.group(3) else "")
        found["distance"] = number + unit_of(m.group(2))
        rest = take(rest, m)
    if m := SECONDS.search(rest):
        found["seconds"] = int(m.group(1) or m.group(2))
        rest = take(rest, m)
    elif m := MINUTES.search(rest):
        found["seconds"] = int(m.group(1)) * 60
        rest = take(rest, m)
    elif m := CLOCK_HOLD.search(rest):
        found["seconds"] = int(m.group(1)) * 60 + int(m.group(2))
        rest = take(rest, m)
    if "load" not in found and (m := BODYWEIGHT.search(rest)):
        times = m.group(1) or m.group(2)
        found["load"] = f"{clean_number(times)}xBW" if times else "BW"
        rest = take(rest, m)
    if "load" not in found and (m := BARE_LOAD.search(rest)):
        found["load"] = m.group(1)
        rest = take(rest, m)
    return rest


def sets(rest: str, found: dict[str, Any]) -> str:
    """Sets, sets x reps and rep schemes ("5x3", "5 sets of 2", "4 x max", "3x30s", "5-5-3")."""
    if m := SETS_RANGE.search(rest):
        # "4x6-8", "3 sets of 8-10", "3 подхода по 8-10": the sets, and the range of reps as the
        # movement's note (a range is no one count)
        found["sets"] = int(m.group(1))
        found["note"] = "; ".join(
            filter(None, (f"{m.group(2)}-{m.group(3)} reps", found.get("note")))
        )
        rest = take(rest, m)
    if m := MOVEMENT_SCHEME.search(rest):
        found["repScheme"] = (m.group(1) or m.group(2)).replace("/", "-")
        rest = take(rest, m)
    if (m := SETS_WORD.match(rest)) and not SETS_OF.match(rest):
        found["sets"] = int(m.group(1))
        rest = rest[m.end() :]
    if m := SETS_OF_QUANTITY.search(rest):
        found["sets"] = int(m.group(1))
        rest = take(rest, m)
    elif m := SETS_MAX.search(rest):
        found["sets"], found["max"] = int(m.group(1)), True
        rest = take(rest, m)
    elif m := SETS_OF.search(rest):
        found["sets"], found["reps"] = int(m.group(1)), int(m.group(2))
        rest = take(rest, m)
    elif m := SETS_REPS.search(rest):
        found["sets"], found["reps"] = int(m.group(1)), int(m.group(2))
        if "/" in m.group(0):
            found["perSide"] = True  # "3x8/8": eight a side
        rest = take(rest, m)
    return rest


def strength_marks(rest: str, found: dict[str, Any], notes: list[str]) -> str:
    """Percent (of a named lift's 1RM), RPE, tempo and rep maxes: into `found` and `notes`."""
    if m := TEMPO.search(rest):
        code = next(group for group in m.groups() if group)
        digits = re.sub(r"[-.\s]", "", code).upper()
        found["tempo"] = "-".join(digits)
        rest = take(rest, m)
    if m := RPE.search(rest):
        notes.append(f"RPE {m.group(1)}")
        rest = take(rest, m)
    if m := _PERCENT_WAVE.search(rest):
        # "5/3/1 @ 75/85/95%": a percent per set; the first is the lift's, all are its note
        found["percent"] = float(m.group(1))
        notes.append(squeeze(m.group(0).lstrip("@ ")))
        rest = take(rest, m)
    elif m := PERCENT.search(rest):
        found["percent"] = float(clean_number(m.group(1)))
        if m.group(2):
            found["percentTo"] = float(clean_number(m.group(2)))  # "@ 65-75%": from 65 to 75
            notes.append(f"{clean_number(m.group(1))}-{clean_number(m.group(2))}%")
        end = m.end()
        if (named := _NAMED_MAX.match(rest, end)) and vocabulary.lookup(
            lift := (named["of"] or named["after"]).strip(" -")
        ):
            found["percentOf"] = lift  # "65% FS 1RM", "70% ПМ приседа"
            end = named.end()
        elif own := _OWN_MAX.match(rest, end):
            end = own.end()  # "75% 1RM"
        elif of := _PERCENT_OF.match(rest, end):
            lift = of.group("of").strip(" -")
            if lift and vocabulary.lookup(lift):
                found["percentOf"] = lift
                end = of.end()
            elif not lift and of.group("max"):
                end = of.end()  # "of 1RM": of the lift itself
        rest = rest[: m.start()] + " " + rest[end:]
    if m := REP_MAX.search(rest):
        found.setdefault("reps", int(m.group(1)))
        notes.append(f"{m.group(1)}RM")
        rest = take(rest, m)
    return rest


def per_side(rest: str, found: dict[str, Any]) -> str:
    """ "10/10 …", "… each side", "8/leg": the count is per side."""
    if (m := SIDE_PAIR.match(rest)) and m.group(1) == m.group(2):
        found["reps"], found["perSide"] = int(m.group(1)), True
        rest = rest[m.end() :]
    if m := PER_SIDE.search(rest):
        found["perSide"] = True
        rest = take(rest, m)
    return rest


def seconds_in(value: str) -> int:
    """Minutes ("12") or minutes:seconds ("1:30") as seconds."""
    if ":" in value:
        minutes, seconds = value.split(":")
        return int(minutes) * 60 + int(seconds)
    return int(value) * 60


def clock(value: str) -> str:
    return value if ":" in value else f"{int(value)}:00"
