"""The named workouts Spotter knows (the benchmark girls, hero WODs, a few classics) and how
coaches write their names.

The table is data (`named_workouts.toml`): one row per workout, its canonical name and its
aliases in English, Hebrew and Russian, read once at import. The coach-text parser uses it to
return a title under its canonical name ("HELEN", "«Хелен»" and "הלן" are all "Helen") and to
find the name where a post puts it ("Benchmark Friday: ANNIE", "Today's benchmark is Fran!").
Names are compared in lower case with "ё" as "е"; an alias listed under `word` is also a common
word or first name, so the parser takes it only where a title stands.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

LANGUAGES = ("en", "he", "ru")
_DATA = Path(__file__).with_name("named_workouts.toml")


@dataclass(frozen=True)
class NamedWorkout:
    name: str
    kind: str  # "girls", "heroes", "classics": the table's group
    aliases: dict[str, tuple[str, ...]]
    words: frozenset[str]  # the aliases (compared form) that are also common words


@dataclass(frozen=True)
class Mention:
    """Where a known name is written in a text."""

    workout: NamedWorkout
    start: int
    end: int
    text: str  # as written

    @property
    def word(self) -> bool:
        """The name as written is also a common word or first name ("Grace", "Jack")."""
        return compared(self.text) in self.workout.words


def compared(name: str) -> str:
    """The form names are compared in: lower case, "ё" as "е", single spaces."""
    return " ".join(name.lower().replace("ё", "е").split())


def _load() -> tuple[NamedWorkout, ...]:
    with _DATA.open("rb") as file:
        data = tomllib.load(file)
    rows = []
    for kind, table in data.items():
        for name, row in table.items():
            aliases = {lang: tuple(row.get(lang, ())) for lang in LANGUAGES}
            words = frozenset(compared(word) for word in row.get("word", ()))
            rows.append(NamedWorkout(name, kind, aliases, words))
    return tuple(rows)


WORKOUTS = _load()
_BY_ALIAS = {
    compared(alias): workout
    for workout in WORKOUTS
    for alias in (workout.name, *(a for lang in LANGUAGES for a in workout.aliases[lang]))
}


def _pattern(alias: str) -> str:
    spaced = r"\s+".join(re.escape(part) for part in compared(alias).split())
    return spaced.replace("е", "[её]")


# Every alias as a whole word, longest first ("Mr. Joshua" before "Josh", "Murphy" before "Murph").
_ANY = re.compile(
    r"(?<![\w'’])(?:"
    + "|".join(_pattern(alias) for alias in sorted(_BY_ALIAS, key=len, reverse=True))
    + r")(?![\w])",
    re.I,
)


def known(name: str) -> NamedWorkout | None:
    """The workout a name is written for ("HELEN", "Хелен", "הלן": Helen), or None."""
    return _BY_ALIAS.get(compared(name))


def mentions(text: str) -> list[Mention]:
    """Every known name written in the text, in order."""
    return [
        Mention(_BY_ALIAS[compared(m.group(0))], m.start(), m.end(), m.group(0))
        for m in _ANY.finditer(text)
    ]
