"""The movements Spotter knows and the forms names are compared in.

The vocabulary is data (`movement_vocabulary.toml`): one row per movement with its category, its
implement and how coaches write it in English, Hebrew and Russian. Three readers share it: the
coach-text parser (to find movements in a line written without separators, and to know which
implement a load stated once belongs to), the resolver (`movement_match`: an alias here reaches
an org's own library) and the demo gym's seed.

Names are compared in `normalize`d form (lower case, hyphens as spaces, English plurals and
"'s" made singular); `base_form` also drops modifiers ("strict", "строгие"); `folded` cuts the
common Russian case endings and folds Hebrew spelling (plurals, final letters, the silent and
doubled letters a transliteration may or may not write: "וול בולס" = "וול בול"). `lookup` tries
these forms from the most literal to the loosest, then three readings of a name written some
other way: its implement said apart ("חתירה עם משקולת יד" is the DB row), an English name
written in Hebrew or Russian letters ("גובלט סקוואט" is the goblet squat, by its consonants),
and a one-letter typo ("back extentions").
"""

from __future__ import annotations

import itertools
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
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


_POSSESSIVE = re.compile(r"(?<=[^\W_])['’]s\b")
_PUNCTUATION = re.compile(r"[-_.,]+")


def normalize(name: str) -> str:
    """The form names are compared in: lower case, no hyphens, English plurals made singular
    ("DU's" and "farmer's" lose their "'s")."""
    words = _PUNCTUATION.sub(" ", _POSSESSIVE.sub("", name.lower())).split()
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
# The shortest stem of three letters or more: the longest ending that leaves one.
_RU_ENDING = re.compile(rf"^(.{{3,}}?)(?:{'|'.join(_RU_ENDINGS)})$")
_HE_PLURALS = ("ים", "ות")
# Final letters as their ordinary forms, and ת as ט (a transliteration writes "t" with either).
_HE_LETTERS = str.maketrans("ךםןףץת", "כמנפצט")
_CYRILLIC = re.compile(r"[а-яё]")
_HEBREW = re.compile(r"[\u0590-\u05ff]")


def _fold_hebrew(word: str) -> str:
    """A Hebrew word as its spelling-free key: "וול בולס" = "וול בול", "סקווט" = "סקוואט".

    Plurals (Hebrew "ים"/"ות", and the English "s" a transliteration keeps: "בולס", "ברפיז"),
    the geresh, final letters, a silent א or final ה, and doubled letters (וו, יי) do not change
    which word it is.
    """
    word = re.sub("[׳״'\"`]", "", word)
    if word.endswith(_HE_PLURALS) and len(word) >= 5:
        word = word[:-2]
    elif word.endswith(("ס", "ז")) and len(word) >= 5:
        word = word[:-1]
    word = word.translate(_HE_LETTERS)
    word = word[:1] + word[1:].replace("א", "")
    if word.endswith(("ה", "א")) and len(word) >= 4:
        word = word[:-1]
    return re.sub(r"(.)\1+", r"\1", word)


@lru_cache(maxsize=16384)
def _fold_word(word: str) -> str:
    word = word.replace("ё", "е")
    if _CYRILLIC.search(word):
        m = _RU_ENDING.match(word)
        return m.group(1) if m else word
    if _HEBREW.search(word):
        return _fold_hebrew(word)
    return word


def folded(key: str) -> str:
    """A normalized key with Russian endings cut and Hebrew spelling folded ("махов гирей" ->
    "мах гир", "וול בולס" -> "ול בול")."""
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
    """The folded keys of a name (and squeezed: "וולבולס"), tried after every form in `forms`.
    Russian puts an adjective after its noun as freely as before it ("скакалок двойных",
    "жим гантелей лёжа"): a Russian name of two words is tried in the other order too."""
    keys = []
    for key in (normalize(name), base_form(name)):
        fold = folded(key)
        swapped = " ".join(reversed(fold.split())) if _two_russian_words(fold) else ""
        for form in (fold, fold.replace(" ", ""), swapped):
            if form and form not in keys:
                keys.append(form)
    return keys


def _two_russian_words(key: str) -> bool:
    return len(key.split()) == 2 and bool(_CYRILLIC.search(key))


# An English name written in Hebrew or Russian letters keeps its consonants: "גובלט סקוואט" and
# "goblet squat" are both g-b-l-t-s-k-t. Letters that sound alike share a class; vowels, and the
# letters a transliteration uses for them (א ו י ע, а е и о у ы э ю я), are dropped.
_EN_SOUNDS = (
    ("tch", "c"), ("ch", "c"), ("sh", "s"), ("th", "t"), ("ph", "p"), ("ck", "k"), ("qu", "k"),
    ("dge", "j"), ("ge ", "j "),
    ("x", "ks"), ("ce", "s"), ("ci", "s"), ("cy", "s"), ("c", "k"), ("q", "k"), ("f", "p"),
    ("v", "b"), ("z", "s"), ("w", ""), ("y", ""),
)  # fmt: skip
_HE_SOUNDS = (
    ("ג'", "j"), ("ג׳", "j"), ("צ'", "c"), ("צ׳", "c"), ("ץ'", "c"), ("ץ׳", "c"), ("ז'", "j"),
    ("ז׳", "j"), ("ב", "b"), ("ג", "g"), ("ד", "d"), ("ה", "h"), ("ז", "s"), ("ח", "h"),
    ("ט", "t"), ("ת", "t"), ("כ", "k"), ("ך", "k"), ("ק", "k"), ("ל", "l"), ("מ", "m"),
    ("ם", "m"), ("נ", "n"), ("ן", "n"), ("ס", "s"), ("ש", "s"), ("פ", "p"), ("ף", "p"),
    ("צ", "ts"), ("ץ", "ts"), ("ר", "r"),
)  # fmt: skip
_RU_SOUNDS = (
    ("дж", "j"), ("б", "b"), ("в", "b"), ("г", "g"), ("д", "d"), ("ж", "j"), ("з", "s"),
    ("к", "k"), ("л", "l"), ("м", "m"), ("н", "n"), ("п", "p"), ("р", "r"), ("с", "s"),
    ("т", "t"), ("ф", "p"), ("х", "h"), ("ц", "ts"), ("ч", "c"), ("ш", "s"), ("щ", "s"),
)  # fmt: skip
_MIN_SKELETON = 4  # fewer consonants than this say too little to tell names apart


@cache
def _sound_pattern(table: tuple[tuple[str, str], ...]) -> tuple[re.Pattern[str], dict[str, str]]:
    return re.compile("|".join(re.escape(spelled) for spelled, _ in table)), dict(table)


def _sounds(text: str, table: tuple[tuple[str, str], ...]) -> str:
    pattern, sounds = _sound_pattern(table)
    return pattern.sub(lambda m: sounds[m.group(0)], text)


def _hebrew_singulars(text: str) -> list[str]:
    """A Hebrew name as written and with its words' plural endings cut: "ים"/"ות", and the "ס"
    a transliteration keeps from English ("פוש אפס"; "פרס", press, keeps its own)."""
    options: list[list[str]] = []
    for word in text.split():
        if _HEBREW.search(word) and word.endswith(_HE_PLURALS) and len(word) >= 4:
            options.append([word[:-2]])
        elif _HEBREW.search(word) and word.endswith(("ס", "ז")) and len(word) >= 3:
            options.append([word, word[:-1]])
        else:
            options.append([word])
    return [" ".join(choice) for choice in itertools.product(*options)][:8]


def skeletons(name: str) -> frozenset[str]:
    """The consonants of a name as it sounds, whichever script wrote it (in Russian "в" is a "v"
    or, writing an English "w", nothing: both are kept)."""
    return _skeletons(normalize(name))


@lru_cache(maxsize=8192)
def _skeletons(text: str) -> frozenset[str]:
    text = text.replace("ё", "е")
    out = set()
    for spelled in _hebrew_singulars(text) if _HEBREW.search(text) else [text]:
        # English first: the Hebrew and Russian letters' sounds are already the classes
        spelled = _sounds(spelled + " ", _EN_SOUNDS)
        if _HEBREW.search(spelled):
            spelled = _sounds(spelled, _HE_SOUNDS)
        if _CYRILLIC.search(spelled):
            spelled = _sounds(spelled.replace("в", "\0"), _RU_SOUNDS)
        spelled = re.sub(r"[^a-z\0]|[aeiou]", "", spelled)
        for choice in itertools.product(("b", ""), repeat=min(spelled.count("\0"), 3)):
            sounded = spelled
            for letter in choice:
                sounded = sounded.replace("\0", letter, 1)
            out.add(re.sub(r"(.)\1+", r"\1", sounded.replace("\0", "")))
    return frozenset(s for s in out if len(s) >= _MIN_SKELETON)


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


@cache
def _implements() -> tuple[tuple[re.Pattern[str], str], ...]:
    """(how an implement is said beside a name, the prefix of its variants' names), longest
    phrase first."""
    table = _data()["implements"]
    assert isinstance(table, dict)
    phrases = [
        (phrase, row["prefix"])
        for row in table.values()
        for language in LANGUAGES
        for phrase in row.get(language, ())
    ]
    phrases.sort(key=lambda item: len(item[0]), reverse=True)
    return tuple(
        (re.compile(rf"(?<!\w){re.escape(normalize(phrase))}(?!\w)"), prefix)
        for phrase, prefix in phrases
    )


@cache
def _how() -> re.Pattern[str]:
    """Where a name's "how" tail starts ("… with a plate", "… עם אפוד", "… с жилетом")."""
    table = _data()["how"]
    assert isinstance(table, dict)
    said = sorted({normalize(w) for language in LANGUAGES for w in table.get(language, ())})
    return re.compile(rf"\s(?:{'|'.join(re.escape(w) for w in said)})(?:\s|$)")


@cache
def _headings() -> frozenset[str]:
    table = _data()["headings"]
    assert isinstance(table, dict)
    return frozenset(normalize(w) for language in LANGUAGES for w in table.get(language, ()))


def is_heading(name: str) -> bool:
    """Whether a name holds a heading word ("squat cycle", "Snatch complex", "שבוע 3"): it
    heads movements rather than names one."""
    return any(word in _headings() for word in normalize(name).split())


@dataclass(frozen=True)
class _Index:
    exact: dict[str, tuple[Movement, ...]]
    loose: dict[str, tuple[Movement, ...]]
    longest: int  # words in the longest known name


def _table(pairs: Iterable[tuple[str, Movement]]) -> dict[str, tuple[Movement, ...]]:
    """Each form with the movements written so, in the file's order, once each."""
    found: dict[str, dict[str, Movement]] = {}
    for form, movement in pairs:
        found.setdefault(form, {}).setdefault(movement.name, movement)
    return {form: tuple(by_name.values()) for form, by_name in found.items()}


@cache
def _index() -> _Index:
    """Every written form as written and folded: what a name is looked up by first."""
    exact: list[tuple[str, Movement]] = []
    loose: list[tuple[str, Movement]] = []
    longest = 1
    for movement in movements():
        for written in (movement.name, *movement.all_aliases):
            key = normalize(written)
            longest = max(longest, len(key.split()))
            exact += [(key, movement), (key.replace(" ", ""), movement)]
            loose += [(folded(key), movement), (folded(key).replace(" ", ""), movement)]
    return _Index(_table(exact), _table(loose), longest)


# The sound and typo tables are built on the first name that needs them (most texts name
# movements as written): a Lambda's first text does not pay for them.
@cache
def _sounds_index() -> dict[str, tuple[Movement, ...]]:
    """English names by their consonants."""
    pairs = []
    for movement in movements():
        for written in (movement.name, *movement.aliases.get("en", ())):
            # "toes to bar" as written too: the plural's "s" is heard ("טוז טו בר")
            heard = skeletons(written) | _skeletons(re.sub(r"[-_]", " ", written.lower()))
            pairs += [(skeleton, movement) for skeleton in heard]
    return _table(pairs)


@cache
def _by_start() -> dict[tuple[str, int], tuple[str, ...]]:
    """The exact keys by first letter and length."""
    by_start: dict[tuple[str, int], list[str]] = {}
    for key in _index().exact:
        by_start.setdefault((key[0], len(key)), []).append(key)
    return {k: tuple(v) for k, v in by_start.items()}


def _one(found: tuple[Movement, ...] | list[Movement] | None) -> Movement | None:
    return found[0] if found and len({m.name for m in found}) == 1 else None


def _as_written(name: str) -> tuple[bool, Movement | None]:
    """(whether any form of the name is known, the one movement it is) — literal forms first,
    then the folded ones, then with its short words written out ("bk sq"); a form two
    movements share answers None."""
    index = _index()
    for form in forms(name):
        if found := index.exact.get(form):
            return True, _one(found)
    for form in loose_forms(name):
        if found := index.loose.get(form):
            return True, _one(found)
    words = normalize(name).split()
    if any(word in short_words() for word in words):
        return _as_written(" ".join(short_words().get(word, word) for word in words))
    return False, None


@cache
def short_words() -> dict[str, str]:
    """A word written short inside a name, and the word it is ("sq": "squat")."""
    table = _data()["short_words"]
    assert isinstance(table, dict)
    return {normalize(short): str(full) for short, full in table.items()}


def known_as_written(name: str) -> bool:
    """Whether the name is one movement's name or alias as written (modifiers dropped, endings
    and spelling folded), without a guess (a typo, a sound, a movement inside it)."""
    return _as_written(name)[1] is not None


def _edits(a: str, b: str, most: int) -> int:
    """The typing distance of a and b (a letter added, dropped, changed, or two swapped), or
    most + 1 once it is sure to be more than `most`."""
    before: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i]
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            best = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                best = min(best, before[j - 2] + 1)
            current.append(best)
        if min(current) > most:
            return most + 1
        before, previous = previous, current
    return previous[-1]


def _typo(name: str) -> Movement | None:
    """The one movement a name is a typo of: one letter off (two in a long name), same first
    letter; names under five letters are never guessed ("row" is not "run"). A plural is a typo
    of its singular too ("burpess" is "burpes", one letter off "burpee"), and a word the plural
    rule cut is tried as written ("bench pres" is "bench press", not "bench pre")."""
    key = normalize(name)
    if key.endswith("s") and (singular := _typo_of(key[:-1])) is not None:
        return singular
    written = " ".join(_PUNCTUATION.sub(" ", name.lower()).split())
    return _typo_of(key) or (_typo_of(written) if written != key else None)


# A name shorter than this is a typo only by a letter dropped, doubled or swapped.
_SHORT = 6


def _typo_of(key: str) -> Movement | None:
    if not 5 <= len(key) <= 40:
        return None
    most = 1 if len(key) < 10 else 2
    index, letters = _index(), set(key)
    best: dict[int, list[Movement]] = {}
    for length in range(len(key) - most, len(key) + most + 1):
        for known in _by_start().get((key[0], length), ()):
            # each edit brings or takes at most two letters: a cheap bound before the table
            if len(letters ^ set(known)) > 2 * most:
                continue
            if len(key) < _SHORT and len(known) == len(key) and sorted(known) != sorted(key):
                continue  # "squad", "coach", "clear" are words: a short name only drops,
                # doubles or swaps a letter ("burpe", "sqaut"), never changes one
            if (distance := _edits(key, known, most)) <= most:
                best.setdefault(distance, []).extend(index.exact[known])
    if not best:
        return None
    return _one(best[min(best)])


def _by_sound(name: str) -> Movement | None:
    """An English name written in Hebrew or Russian letters ("גובלט סקוואט", "бэк сквот")."""
    if name.isascii():
        return None
    sounds = _sounds_index()
    return _one([m for skeleton in skeletons(name) for m in sounds.get(skeleton, ())])


def _core(name: str) -> Movement | None:
    known, movement = _as_written(name)
    if known:
        return movement
    return _by_sound(name) or _typo(name)


def _with_implement(name: str) -> Movement | None:
    """ "חתירה עם משקולת יד", "rows with a dumbbell", "присед с гирей": the movement, as its
    implement's variant when the vocabulary has one ("DB row"), else as itself."""
    key = normalize(name)
    for phrase, prefix in _implements():
        if not (m := phrase.search(key)):
            continue
        rest = " ".join((key[: m.start()] + " " + key[m.end() :]).split())
        if not rest or (plain := _core(rest)) is None:
            continue
        for written in (plain.name, *plain.aliases.get("en", ())):
            if (variant := _as_written(f"{prefix} {written}")[1]) is not None:
                return variant
        return plain
    return None


@lru_cache(maxsize=8192)
def lookup(name: str) -> Movement | None:
    """The one movement `name` is written for, else None (unknown, or two movements' form).

    As written (name, alias, modifiers dropped, endings and spelling folded); then with its
    implement said apart or a "with …" tail dropped; then an English name in other letters; then
    a typo; last, the one movement named inside a longer name.
    """
    known, movement = _as_written(name)
    if known:
        return movement
    return (
        _with_implement(name)
        or _without_how(name)
        or _by_sound(name)
        or _typo(name)
        or _inside(name)
    )


def _inside(name: str) -> Movement | None:
    """The one movement named inside a longer name ("pause front squat, 3 sec pause at the
    bottom"): the longest run of two words or more that names a movement, when only one does and
    no other word of the name belongs to a movement's name. "Zombie squat", "Anderson squat",
    "sled sprint" name movements of their own, and stay unknown."""
    words = normalize(name).split()
    if len(words) > 8 or any(word in _headings() for word in words):
        return None  # a sentence names no one movement
    for size in range(len(words) - 1, 1, -1):
        found = []
        for start in range(len(words) - size + 1):
            movement = _as_written(" ".join(words[start : start + size]))[1]
            others = words[:start] + words[start + size :]
            if movement is not None and not any(w in _named_words() for w in others):
                found.append(movement)
        if found:
            return _one(found)
    return None


@cache
def _named_words() -> frozenset[str]:
    """Every word of every movement's names, modifiers aside ("sled" of "sled push")."""
    return frozenset(
        word
        for movement in movements()
        for written in (movement.name, *movement.all_aliases)
        for word in normalize(written).split()
        if word not in modifiers() and word not in _FUNCTION_WORDS
    )


# Words movement names share with any sentence ("burpee over the bar", "toes to bar").
_FUNCTION_WORDS = frozenset(
    {"the", "a", "an", "at", "of", "to", "in", "on", "for", "and", "with", "over", "up", "off"}
)


def _without_how(name: str) -> Movement | None:
    """ "run with a plate", "ריצה עם אפוד": the movement before what it is done with."""
    key = normalize(name)
    if m := _how().search(key):
        return _core(key[: m.start()])
    return None


def known_words(words: list[str]) -> int:
    """How many of `words` (from the start) name a known movement, longest first; 0 for none."""
    index = _index()
    for size in range(min(len(words), index.longest), 0, -1):
        key = normalize(" ".join(words[:size]))
        if key and (key in index.exact or folded(key) in index.loose):
            return size
    return 0
