"""Reading the text: lines, their bullets and labels, and splitting outside brackets."""

from __future__ import annotations

import re
import unicodedata

from spotter.domain.workout_parser.lexicon import ABBREVIATIONS

# "- ", "• ", "1) ", "1️⃣ " (a keycap emoji numbers a list, it is not a count).
BULLET = re.compile(r"^\s*(?:[-*•·–—▪►✅🔥💪👉]+|\d{1,2}[.)](?=\s)|[\d#*]\ufe0f?\u20e3)\s*")
LABEL_PREFIX = re.compile(
    r"^(?:[A-Ea-eА-Да-д]\d?[).:]|[א-ה]\d?\)|[A-Da-dА-Га-г]\d(?=\s)|\d[).])\s+"
)
# ";" and " // " end a line ("Strength: OHS 5x3 @ 80% // Metcon: 21-15-9 …").
SEMICOLON = re.compile(r"\s*;\s*|\s+//\s+")
THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
QUANTITY = re.compile(r"\d")
LETTER = re.compile(r"[^\W\d_]")


def lines_of(text: str) -> list[str]:
    """The text's lines; ";" or " // " outside brackets ends a line too ("Strength: …; Metcon:
    …")."""
    out = []
    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        out.extend(outside_brackets(raw, SEMICOLON) or [""])
    return out


def outside_brackets(text: str, separator: re.Pattern[str]) -> list[str]:
    """`text` split where `separator` matches outside brackets (and not inside "1,000")."""
    depth = 0
    masked = []
    for char in text:
        # a label's bracket ("A) …") closes nothing
        depth = depth + 1 if char in "([" else max(depth - 1, 0) if char in ")]" else depth
        masked.append("\0" if depth > 0 and char not in "([" else char)
    plain = THOUSANDS.sub("\0", "".join(masked))
    spans, start = [], 0
    for m in separator.finditer(plain):
        spans.append(text[start : m.start()])
        start = m.end()
    spans.append(text[start:])
    return [span for span in spans if span.strip()]


# "1) 12 cal row 2) 10 wall balls 3) …", "(1) … (2) …", "1. … 2. …", "1️⃣ … 2️⃣ …", "min 1 … min 2 …",
# "M1: … M2: …": a list numbered inside one line.
_INLINE_NUMBER = re.compile(
    r"(?:^|(?<=\s))(?:\((\d{1,2})\)|(\d{1,2})[).]|(\d)\ufe0f?\u20e3"
    r"|(?:min(?:ute)?\s*|m|דקה\s*|минута\s*)(\d{1,2})(?:\s*[:\-–—)])?"
    r"|(\d{1,2})\s*(?:min|мин|דקה|דק['׳]?)\.?\s*[:\-–—])(?=\s)",
    re.I,
)


def inline_numbers(text: str) -> list[re.Match[str]]:
    """The numbers of a list numbered inside one line, when they count on from 1 (or from 2,
    a bullet having taken the "1)" that opened the line): [] for fewer than two."""
    found = list(_INLINE_NUMBER.finditer(text))
    numbers = [int(next(g for g in m.groups() if g)) for m in found]
    if len(found) < 2 or numbers[0] not in (1, 2):
        return []
    if numbers != list(range(numbers[0], numbers[0] + len(numbers))):
        return []
    return found


_ABBREVIATIONS = frozenset(ABBREVIATIONS)
# A unit's full stop before a capital ends the sentence too: "Rest 3 min. Then 10 min AMRAP …".
_UNITS = frozenset(("min", "mins", "sec", "secs"))
_SENTENCE_END = re.compile(r"(?<=[^\W_]|[)\]'\"%#])([.!?]+)(?=\s+\S)")
_ARROWS = "→⇒➔➜➡"


def _pictograph(char: str) -> bool:
    """An emoji or pictograph standing between two parts of a line ("… lunges 🙃 rest 1:00")."""
    if char in "♀♂°©®™":
        return False
    return char in _ARROWS or unicodedata.category(char) == "So" or char in "\ufe0f\u200d"


def _emoji_runs(text: str) -> list[tuple[int, int]]:
    """(start, end) of each run of emoji (with their joiners and variation selectors) that stands
    apart, with a space or the line's end on each side."""
    runs: list[tuple[int, int]] = []
    if text.isascii():  # no emoji, arrow or joiner is
        return runs
    index = 0
    while index < len(text):
        if not _pictograph(text[index]):
            index += 1
            continue
        start = index
        while index < len(text) and (
            _pictograph(text[index])
            or unicodedata.category(text[index]) in ("Sk", "Mn")
            or _joined_sign(text, index)  # 🏋️‍♀️ is one emoji
        ):
            index += 1
        apart_before = start == 0 or text[start - 1].isspace()
        apart_after = index == len(text) or text[index].isspace()
        if apart_before and apart_after:
            runs.append((start, index))
    return runs


_ABBREVIATED = re.compile(
    rf"(?<![^\W\d_])(?:{'|'.join(re.escape(a) for a in ABBREVIATIONS)}|[^\W\d_])\.", re.I
)


def unabbreviated(text: str) -> str:
    """The text without the full stops of abbreviations and initials ("Mr.", "approx.", "J.")."""
    return _ABBREVIATED.sub(lambda m: m.group(0)[:-1], text)


def sentences(text: str) -> list[tuple[str, str]]:
    """A line's sentences, each with the separator that ends it: a full stop, "!" or "?" before
    more text ("… 10 HSPU. cap 15"), or an emoji standing between two parts ("… burpees 🔥 TC
    12'"). Brackets, decimals ("22.5"), abbreviations ("approx. 50") and labels ("A. Bench
    press") do not end one. A line with no such break is one sentence with no separator."""
    depth = 0
    cuts: list[tuple[int, int]] = []
    listed = {m.end() - 1 for m in inline_numbers(text)}  # "1. 15 cal row 2. 12 T2B"
    for index, char in enumerate(text):
        depth += 1 if char in "([" else -1 if char in ")]" else 0
        if depth > 0 or char not in ".!?" or index in listed:
            continue
        m = _SENTENCE_END.match(text, index) if index else None
        if m is None or (index > 0 and text[index - 1] in ".!?") or ".." in m.group(1):
            continue  # "2 the second... until failure": an ellipsis goes on
        letters = re.search(r"(?:^|[^\w'])([^\W\d_]*)$", text[:index])
        before = letters.group(1).lower() if letters else ""
        initial = len(before) == 1 and not re.search(r"\d\s*[^\W\d_]$", text[:index])
        unit_then_sentence = before in _UNITS and text[m.end() :].lstrip()[:1].isupper()
        if (
            len(text[:index].strip()) <= 2
            or initial
            or (before in _ABBREVIATIONS and not unit_then_sentence)
        ):
            continue  # "A. Back squat", "J. Smith", "approx. 50", "19-cal. row"; "500 m." ends
        cuts.append((index, m.end()))
    cuts += _emoji_runs(text)
    out: list[tuple[str, str]] = []
    start = 0
    for begin, end in sorted(cuts):
        if begin < start:
            continue
        spaces = re.match(r"\s*", text[end:])
        stop = end + (spaces.end() if spaces else 0)
        piece = text[start:begin].strip()
        if piece:
            out.append((piece, text[begin:stop]))
        elif out:
            out[-1] = (out[-1][0], out[-1][1] + text[begin:stop])
        start = stop
    if text[start:].strip():
        out.append((text[start:].strip(), ""))
    return out


def _decoration(char: str) -> bool:
    """Emoji, symbols, joiners and direction marks a line may open with ("▪️", "⏱", RTL)."""
    if char in "♀♂#@\"'“”«(":
        return False
    return unicodedata.category(char)[0] in "SCZ" or unicodedata.category(char) == "Mn"


# "1 - 12 cal row", "2 — 10 бёрпи", "3: rest": a number and a dash or colon open the line.
_NUMBERED = re.compile(
    r"^\s*(\d{1,2})\s*(?:(?:min|мин|דקה|דק['׳]?)\.?\s*)?[-–—:]\s+(?=\S)", re.I
)  # "1 мин — 15 кал гребля", "2 min: 12 T2B": the minute of a list counting 1, 2, 3


def numbered(lines: list[str]) -> set[int]:
    """The lines a list number opens, "1 - …", "2 - …" (counted from 1, each the next): a count
    so written is a number of the list only when the lines count 1, 2, 3 ("1 - 10 cal row" is
    not the range 1-10)."""
    opened = [(i, int(m.group(1))) for i, line in enumerate(lines) if (m := _NUMBERED.match(line))]
    out: set[int] = set()
    run: list[int] = []
    for index, number in opened:
        if number == 1:
            run = [index]
        elif run and number == len(run) + 1:
            run.append(index)
        else:
            run = []
        if len(run) >= 2:
            out.update(run)
    return out


# "21–15–9", "21 - 15 - 9", "5—5—5—3—3": a phone's dash or spaces in a rep scheme.
_DASHED_RUN = re.compile(r"(?<![\d:.,/])\d+(?:(?:\s*[–—]\s*|\s+-\s+|-)\d+){2,}(?![\d.,/]|:\d)")


def hyphened(text: str) -> str:
    """The text with its runs of three numbers or more joined by hyphens, as a rep scheme is
    read ("21 – 15 – 9 thrusters" → "21-15-9 thrusters"); two numbers ("HSPU – 5", "1 - 10")
    are left as written."""
    return _DASHED_RUN.sub(lambda m: re.sub(r"\s*[-–—]\s*", "-", m.group(0)), text)


def _joined_sign(text: str, index: int) -> bool:
    """A sex sign joined to the emoji before it ("🏃‍♂️", "🏋️‍♀️"): part of that emoji, not a
    men's or women's mark."""
    return text[index] in "♀♂" and index > 0 and text[index - 1] == "\u200d"


def unbulleted(line: str, *, numbered: bool = False) -> str:
    text = line.strip()
    start = 0
    while start < len(text) and (
        _decoration(text[start]) or text[start].isspace() or _joined_sign(text, start)
    ):
        start += 1
    text = text[start:]
    if numbered:
        text = _NUMBERED.sub("", text)
    return BULLET.sub("", text).strip()


def without_trailing_emoji(text: str) -> str:
    """The text without the emoji it ends with, stuck to its last word or not ("… HSPU 🔥",
    "… C2B🤘", "… приседаний 💪"); the text as it is when it ends otherwise."""
    end = len(text)
    while end > 0 and (
        _pictograph(text[end - 1])
        or unicodedata.category(text[end - 1]) in ("Sk", "Mn")
        or _joined_sign(text, end - 1)
        or (text[end - 1].isspace() and end < len(text))
    ):
        end -= 1
    return text[:end].rstrip() if text[:end].strip() else text


def undecorated(text: str) -> str:
    """The text without the emoji and symbols it ends with ("MURPH 🇺🇸", "GRACE 🔥")."""
    end = len(text)
    while end > 0 and (
        _decoration(text[end - 1])
        or text[end - 1].isspace()
        or _pictograph(text[end - 1])
        or _joined_sign(text, end - 1)
    ):
        end -= 1
    return text[:end]


def squeeze(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()
