"""Which library exercise a parsed movement names: exact name, then alias, never a guess.

Pure: it works on the library rows `exercises.load_library` returns (id, name, aliases), so the
resolver and the parser's fixture metrics share it. Each step tries the movement's name as
written, then its base form (modifiers such as "strict" or "banded" dropped), then the same
with spaces and hyphens squeezed out ("pullups" is "pull-ups"). A key that two exercises share
is ambiguous: the movement stays unresolved with both as candidates, so the coach is asked.
Trigram-close matches are the database's job (`exercises.fuzzy_candidates`) and come after.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from spotter.domain.exercises import base_form, normalize

MatchKind = Literal["exact", "alias"]


@dataclass(frozen=True)
class Match:
    kind: MatchKind
    rows: tuple[Mapping[str, Any], ...]

    @property
    def ambiguous(self) -> bool:
        return len(self.rows) > 1


def _squeezed(key: str) -> str:
    return key.replace(" ", "")


def _forms(name: str) -> list[str]:
    """The keys a name is looked up under, most literal first."""
    forms: list[str] = []
    for key in (normalize(name), base_form(name)):
        for form in (key, _squeezed(key)):
            if form and form not in forms:
                forms.append(form)
    return forms


@dataclass
class MovementIndex:
    """Library rows by normalized name and by alias; several rows under one key: ambiguous."""

    by_name: dict[str, list[Mapping[str, Any]]] = field(default_factory=dict)
    by_alias: dict[str, list[Mapping[str, Any]]] = field(default_factory=dict)

    @classmethod
    def of(cls, library: Iterable[Mapping[str, Any]]) -> MovementIndex:
        index = cls()
        for row in library:
            for key in {normalize(row["name"]), _squeezed(normalize(row["name"]))}:
                _add(index.by_name, key, row)
            for alias in row.get("aliases") or ():
                for key in {normalize(alias), _squeezed(normalize(alias))}:
                    _add(index.by_alias, key, row)
        return index

    def match(self, name: str) -> Match | None:
        """Exact name before alias, at each form of the name; None when nothing fits."""
        for form in _forms(name):
            if rows := self.by_name.get(form):
                return Match("exact" if form == normalize(name) else "alias", tuple(rows))
            if rows := self.by_alias.get(form):
                return Match("alias", tuple(rows))
        return None


def _add(index: dict[str, list[Mapping[str, Any]]], key: str, row: Mapping[str, Any]) -> None:
    rows = index.setdefault(key, [])
    if all(str(r["id"]) != str(row["id"]) for r in rows):
        rows.append(row)
