"""Reading the text: lines, their bullets and labels, and splitting outside brackets."""

from __future__ import annotations

import re
import unicodedata

BULLET = re.compile(r"^\s*(?:[-*•·–—▪►✅🔥💪👉]+|\d{1,2}[.)](?=\s))\s*")
LABEL_PREFIX = re.compile(r"^(?:[A-Ea-eА-Да-д]\d?[).:]|\d[).])\s+")
SEMICOLON = re.compile(r"\s*;\s*")
THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
QUANTITY = re.compile(r"\d")
LETTER = re.compile(r"[^\W\d_]")


def lines_of(text: str) -> list[str]:
    """The text's lines; ";" outside brackets ends a line too ("Strength: …; Metcon: …")."""
    out = []
    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        out.extend(outside_brackets(raw, SEMICOLON) or [""])
    return out


def outside_brackets(text: str, separator: re.Pattern[str]) -> list[str]:
    """`text` split where `separator` matches outside brackets (and not inside "1,000")."""
    depth = 0
    masked = []
    for char in text:
        depth += 1 if char in "([" else -1 if char in ")]" else 0
        masked.append("\0" if depth > 0 and char not in "([" else char)
    plain = THOUSANDS.sub("\0", "".join(masked))
    spans, start = [], 0
    for m in separator.finditer(plain):
        spans.append(text[start : m.start()])
        start = m.end()
    spans.append(text[start:])
    return [span for span in spans if span.strip()]


def _decoration(char: str) -> bool:
    """Emoji, symbols, joiners and direction marks a line may open with ("▪️", "⏱", RTL)."""
    if char in "♀♂#@\"'“”«(":
        return False
    return unicodedata.category(char)[0] in "SCZ" or unicodedata.category(char) == "Mn"


def unbulleted(line: str) -> str:
    text = line.strip()
    start = 0
    while start < len(text) and (_decoration(text[start]) or text[start].isspace()):
        start += 1
    return BULLET.sub("", text[start:]).strip()


def squeeze(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()
