"""Which library exercise a parsed movement names: exact name, then alias, never a guess.

Pure: it works on the library rows `exercises.load_library` returns (id, name, aliases), so the
resolver and the parser's fixture metrics share it. Each step tries the movement's name as
written, then its base form (modifiers such as "strict" or "banded" dropped), then the same
with spaces and hyphens squeezed out ("pullups" is "pull-ups"). A name the org's library does not
know but the shared vocabulary does ("махи гирей", "KBS") is looked up under that movement's own
name and aliases; Russian endings and Hebrew plurals are folded last. A key that two exercises
share is ambiguous: the movement stays unresolved with both as candidates, so the coach is asked.
Trigram-close matches are the database's job (`exercises.fuzzy_candidates`) and come after.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from spotter.domain import movement_vocabulary as vocabulary
from spotter.domain.movement_vocabulary import folded, forms, loose_forms, normalize

MatchKind = Literal["exact", "alias"]


@dataclass(frozen=True)
class Match:
    kind: MatchKind
    rows: tuple[Mapping[str, Any], ...]

    @property
    def ambiguous(self) -> bool:
        return len(self.rows) > 1


@dataclass
class MovementIndex:
    """Library rows by normalized name and by alias; several rows under one key: ambiguous."""

    by_name: dict[str, list[Mapping[str, Any]]] = field(default_factory=dict)
    by_alias: dict[str, list[Mapping[str, Any]]] = field(default_factory=dict)
    by_fold: dict[str, list[Mapping[str, Any]]] = field(default_factory=dict)

    @classmethod
    def of(cls, library: Iterable[Mapping[str, Any]]) -> MovementIndex:
        index = cls()
        for row in library:
            for key in {normalize(row["name"]), normalize(row["name"]).replace(" ", "")}:
                _add(index.by_name, key, row)
            for alias in row.get("aliases") or ():
                for key in {normalize(alias), normalize(alias).replace(" ", "")}:
                    _add(index.by_alias, key, row)
            for written in (row["name"], *(row.get("aliases") or ())):
                _add(index.by_fold, folded(normalize(written)), row)
        return index

    def _literal(self, name: str) -> Match | None:
        for form in forms(name):
            if rows := self.by_name.get(form):
                return Match("exact" if form == normalize(name) else "alias", tuple(rows))
            if rows := self.by_alias.get(form):
                return Match("alias", tuple(rows))
        return None

    def match(self, name: str) -> Match | None:
        """Exact name before alias, at each form of the name; None when nothing fits."""
        if found := self._literal(name):
            return found
        known = vocabulary.lookup(name)
        if known is not None:
            # The coach wrote a known movement the library lists under another of its names.
            for written in (known.name, *known.all_aliases):
                if (found := self._literal(written)) is not None:
                    return Match("alias", found.rows)
        for form in loose_forms(name):
            if rows := self.by_fold.get(form):
                return Match("alias", tuple(rows))
        return None


def _add(index: dict[str, list[Mapping[str, Any]]], key: str, row: Mapping[str, Any]) -> None:
    if not key:
        return
    rows = index.setdefault(key, [])
    if all(str(r["id"]) != str(row["id"]) for r in rows):
        rows.append(row)
