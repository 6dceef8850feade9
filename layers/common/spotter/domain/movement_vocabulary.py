"""The movements Spotter knows and the forms names are compared in.

The vocabulary is data (`movement_vocabulary.toml`): one row per movement with its category, its
implement and how coaches write it in English, Hebrew and Russian. Three readers share it: the
coach-text parser (to find movements in a line written without separators, and to know which
implement a load stated once belongs to), the resolver (`movement_match`: an alias here reaches
an org's own library) and the demo gym's seed.

Names are compared in `normalize`d form (lower case, hyphens as spaces, English plurals made
singular); `base_form` also drops modifiers ("strict", "строгие"); `folded` cuts the common
Russian case endings and Hebrew plural suffixes ("подтягиваний" = "подтягивания"), which is why
lookups try it last: it is the loosest of the forms.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

LANGUAGES = ("en", "he", "ru")
_DATA = Path(__file__).with_name("movement_vocabulary.toml")


@dataclass(frozen=True)
class Movement:
    name: str
    category: str
    equipment: str | None
    aliases: dict[str, tuple[str, ...]]

    @property
    def all_aliases(self) -> tuple[str, ...]:
        return tuple(a for language in LANGUAGES for a in self.aliases.get(language, ()))


def normalize(name: str) -> str:
    """The form names are compared in: lower case, no hyphens, English plurals made singular."""
    words = re.sub(r"[-_.,]+", " ", name.lower()).split()
    return " ".join(_singular(w) for w in words)


def _singular(word: str) -> str:
    if not word.isascii() or len(word) < 3 or word.endswith("ss"):
        return word
    if word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") else word


def base_form(name: str) -> str:
    """The normalized name without modifiers; empty when nothing else is left."""
    return " ".join(w for w in normalize(name).split() if w not in modifiers())


# Russian case and number endings, longest first; a stem keeps at least three letters.
_RU_ENDINGS = tuple(
    sorted(
        [
            "ями",
            "ами",
            "ого",
            "его",
            "ому",
            "ему",
            "ыми",
            "ими",
            "ых",
            "их",
            "ой",
            "ей",
            "ий",
            "ый",
            "ая",
            "яя",
            "ое",
            "ее",
            "ые",
            "ие",
            "ую",
            "юю",
            "ов",
            "ев",
            "ам",
            "ям",
            "ах",
            "ях",
            "ом",
            "ем",
            "ия",
            "ью",
            "ы",
            "и",
            "а",
            "я",
            "о",
            "е",
            "у",
            "ю",
            "ь",
            "й",
        ],
        key=len,
        reverse=True,
    )
)
_HE_PLURALS = ("ים", "ות")
_CYRILLIC = re.compile(r"[а-яё]")
_HEBREW = re.compile(r"[\u0590-\u05ff]")


def _fold_word(word: str) -> str:
    word = word.replace("ё", "е").replace("׳", "'").replace("״", '"')
    if _CYRILLIC.search(word):
        for ending in _RU_ENDINGS:
            if word.endswith(ending) and len(word) - len(ending) >= 3:
                return word[: -len(ending)]
        return word
    if _HEBREW.search(word) and word.endswith(_HE_PLURALS) and len(word) >= 5:
        return word[:-2]
    return word


def folded(key: str) -> str:
    """A normalized key with Russian endings and Hebrew plurals cut ("махов гирей" -> "мах гир")."""
    return " ".join(_fold_word(w) for w in key.split())


def forms(name: str) -> list[str]:
    """The keys a name is looked up under, most literal first (squeezed: "pullups"; "&" read
    as "and": "clean & jerk")."""
    keys: list[str] = []
    anded = re.sub(r"\s*&\s*", " and ", name) if re.search(r"\s&\s|\w&\w{2,}", name) else name
    for key in (normalize(name), base_form(name), normalize(anded), base_form(anded)):
        for form in (key, key.replace(" ", "")):
            if form and form not in keys:
                keys.append(form)
    return keys


def loose_forms(name: str) -> list[str]:
    """The folded keys of a name, tried after every form in `forms` failed."""
    keys = []
    for key in (normalize(name), base_form(name)):
        if (fold := folded(key)) and fold not in keys:
            keys.append(fold)
    return keys


@cache
def _data() -> dict[str, object]:
    with _DATA.open("rb") as handle:
        return tomllib.load(handle)


@cache
def modifiers() -> frozenset[str]:
    table = _data()["modifiers"]
    assert isinstance(table, dict)
    return frozenset(normalize(w) for language in LANGUAGES for w in table.get(language, ()))


@cache
def movements() -> tuple[Movement, ...]:
    """Every movement of the vocabulary, in the file's order."""
    out = []
    groups = _data()["movements"]
    assert isinstance(groups, dict)
    for category, rows in groups.items():
        for name, row in rows.items():
            aliases = {language: tuple(row.get(language, ())) for language in LANGUAGES}
            out.append(Movement(name, category, row.get("equipment"), aliases))
    return tuple(out)


@dataclass(frozen=True)
class _Index:
    exact: dict[str, tuple[Movement, ...]]
    loose: dict[str, tuple[Movement, ...]]
    longest: int  # words in the longest known name


@cache
def _index() -> _Index:
    exact: dict[str, list[Movement]] = {}
    loose: dict[str, list[Movement]] = {}
    longest = 1
    for movement in movements():
        for written in (movement.name, *movement.all_aliases):
            key = normalize(written)
            longest = max(longest, len(key.split()))
            for table, form in (
                (exact, key),
                (exact, key.replace(" ", "")),
                (loose, folded(key)),
            ):
                found = table.setdefault(form, [])
                if movement not in found:
                    found.append(movement)
    return _Index(
        {k: tuple(v) for k, v in exact.items()},
        {k: tuple(v) for k, v in loose.items()},
        longest,
    )


def lookup(name: str) -> Movement | None:
    """The one movement `name` is written for (as a name or alias), else None (or ambiguous)."""
    index = _index()
    for form in forms(name):
        if found := index.exact.get(form):
            return found[0] if len(found) == 1 else None
    for form in loose_forms(name):
        if found := index.loose.get(form):
            return found[0] if len(found) == 1 else None
    return None


def known_words(words: list[str]) -> int:
    """How many of `words` (from the start) name a known movement, longest first; 0 for none."""
    index = _index()
    for size in range(min(len(words), index.longest), 0, -1):
        key = normalize(" ".join(words[:size]))
        if key and (key in index.exact or folded(key) in index.loose):
            return size
    return 0
