"""How well the parser reads a fixture set, by category: movements named, formats, schemes, loads.

Each fixture (tests/fixtures/workout_set/*.json, tests/fixtures/workout_heldout/*.json) is a
coach-style text with what a reader should get out of it: the sections that hold movements, in
order (format, rounds, rep scheme, clock) and each movement by its library name with its scheme
(reps, sets, rep scheme, percent, tempo) and quantities (load, distance, calories, height).
Predicted names are the parser's names resolved against the seeded library exactly as the
resolver does before trigram (exact name, then alias); an ambiguous or unknown name counts as not
named.

The categories:
- movements named: recall (expected movements read under the right library name) and precision;
- formats: sections whose kind is right, with the rounds and clock (duration, interval, cap) the
  fixture states; each expected section is compared with the read section that holds its
  movements (`aligned_sections`), so one lost or split section does not shift the rest;
- schemes: every expected movement (reps always compared, a missing count included; sets, rep
  scheme, percent and tempo where the fixture states them) and every section rep scheme;
- loads: every movement that carries a load, distance, calories or height (expected, or invented
  by the reader): all four right.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from spotter.domain.movement_match import MovementIndex
from spotter.domain.workout_parser import movements_of, parse_workout
from spotter.seed.training import EXERCISES

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
TUNED = FIXTURES / "workout_set"
HELD_OUT = FIXTURES / "workout_heldout"
BLIND = FIXTURES / "workout_blind1"
BLIND2 = FIXTURES / "workout_blind2"
BLIND3 = FIXTURES / "workout_blind3"
QUANTITIES = ("load", "distance", "calories")
CLOCK = ("rounds", "durationSeconds", "intervalSeconds", "timeCapSeconds")
SCHEME_GIVEN = ("sets", "repScheme", "percent", "tempo")


def load_fixtures(folder: Path = TUNED) -> list[dict[str, Any]]:
    return [json.loads(path.read_text(encoding="utf-8")) for path in sorted(folder.glob("*.json"))]


def seeded_index() -> MovementIndex:
    return MovementIndex.of(
        {"id": name, "name": name, "aliases": list(aliases)}
        for name, _category, _equipment, aliases in EXERCISES
    )


def library_name(name: str) -> str | None:
    """A parsed movement's name as the seeded library reads it (exact name, then alias); None
    when it is unknown or ambiguous."""
    match = seeded_index().match(name)
    return match.rows[0]["name"] if match and not match.ambiguous else None


def named_movements(text: str) -> list[str | None]:
    """The library names of the movements a text is read into, in order."""
    return [library_name(m["name"]) for m in movements_of(parse_workout(text))]


@dataclass
class Score:
    expected_movements: int = 0
    predicted_movements: int = 0
    named: int = 0
    sections: int = 0
    formats_right: int = 0
    schemes: int = 0
    schemes_right: int = 0
    loads: int = 0
    loads_right: int = 0
    titles: int = 0
    titles_right: int = 0
    misses: list[str] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.named / self.expected_movements

    @property
    def precision(self) -> float:
        return self.named / max(self.predicted_movements, 1)

    @property
    def format_accuracy(self) -> float:
        return self.formats_right / self.sections

    @property
    def scheme_accuracy(self) -> float:
        return self.schemes_right / self.schemes

    @property
    def load_accuracy(self) -> float:
        return self.loads_right / max(self.loads, 1)

    def summary(self) -> str:
        return (
            f"movements named: recall {self.recall:.1%}, precision {self.precision:.1%}"
            f" ({self.named}/{self.expected_movements} expected, {self.predicted_movements}"
            f" read); formats {self.format_accuracy:.1%} ({self.formats_right}/{self.sections});"
            f" schemes {self.scheme_accuracy:.1%} ({self.schemes_right}/{self.schemes});"
            f" loads {self.load_accuracy:.1%} ({self.loads_right}/{self.loads});"
            f" titles {self.titles_right}/{self.titles}"
        )


def _predicted_sections(text: str, index: MovementIndex) -> tuple[Any, list[dict[str, Any]]]:
    parsed = parse_workout(text)
    sections = []
    for part in parsed["parts"]:
        for section in part["sections"]:
            if not section["movements"]:
                continue
            movements = []
            for movement in section["movements"]:
                match = index.match(movement["name"])
                name = match.rows[0]["name"] if match and not match.ambiguous else movement["name"]
                movements.append(movement | {"name": name})
            sections.append(section | {"movements": movements})
    return parsed["title"], sections


def _scheme_of(predicted: dict[str, Any]) -> Any:
    if predicted["format"] == "strength" and len(predicted["movements"]) == 1:
        # A lift's scheme ("Deadlift 5-5-3-3-1-1") is written on the lift itself.
        return predicted.get("repScheme") or predicted["movements"][0].get("repScheme")
    return predicted.get("repScheme")


def _format_right(expected: dict[str, Any], predicted: dict[str, Any] | None) -> bool:
    if predicted is None or predicted["format"] != expected["format"]:
        return False
    return all(predicted.get(key) == expected[key] for key in CLOCK if key in expected)


def _movement_scheme_right(expected: dict[str, Any], got: dict[str, Any]) -> bool:
    if got.get("reps") != expected.get("reps"):
        return False
    return all(got.get(key) == expected[key] for key in SCHEME_GIVEN if key in expected)


def _loads_right(expected: dict[str, Any], got: dict[str, Any]) -> bool:
    if any(got.get(key) != expected.get(key) for key in QUANTITIES):
        return False
    return "height" not in expected or got.get("height") == expected["height"]


def _carries_load(movement: dict[str, Any]) -> bool:
    return any(key in movement for key in (*QUANTITIES, "height"))


def _likeness(expected: dict[str, Any], got: dict[str, Any]) -> float:
    """How much a read section looks like an expected one: its movements read under their names
    (half a point more for the same count, which tells "build to a single" from "2 @ 80%")."""
    score = 0.0
    for movement in expected["movements"]:
        same = [m for m in got["movements"] if m["name"] == movement["name"]]
        if same:
            score += 1 + 0.5 * any(m.get("reps") == movement.get("reps") for m in same)
    return score


def aligned_sections(
    expected: list[dict[str, Any]], predicted: list[dict[str, Any]]
) -> list[dict[str, Any] | None]:
    """The read section each expected one is compared with: the sections are aligned in order
    by the movements they share (the alignment that shares most); an expected section that
    shares none takes the read section left between its neighbours' partners, in order, or none.
    (By position alone, one section lost or read as two would count every section after it as
    wrong.)"""
    rows, cols = len(expected), len(predicted)
    best = [[0.0] * (cols + 1) for _ in range(rows + 1)]
    for i in range(rows):
        for j in range(cols):
            like = _likeness(expected[i], predicted[j])
            paired = best[i][j] + like if like else 0.0
            best[i + 1][j + 1] = max(best[i][j + 1], best[i + 1][j], paired)
    pairs: dict[int, int] = {}
    i, j = rows, cols
    while i and j:  # (ties go to the earlier read section)
        like = _likeness(expected[i - 1], predicted[j - 1])
        if best[i][j] == best[i][j - 1]:
            j -= 1
        elif like and best[i][j] == best[i - 1][j - 1] + like:
            pairs[i - 1] = j - 1
            i, j = i - 1, j - 1
        else:
            i -= 1
    aligned: list[dict[str, Any] | None] = []
    taken = -1  # the last read section given out
    for i in range(rows):
        if i in pairs:
            taken = pairs[i]
            aligned.append(predicted[taken])
            continue
        bound = next((pairs[k] for k in range(i + 1, rows) if k in pairs), cols)
        if taken + 1 < bound:
            taken += 1
            aligned.append(predicted[taken])
        else:
            aligned.append(None)
    return aligned


def _score_sections(
    name: str, expected: list[dict[str, Any]], predicted: list[dict[str, Any]], score: Score
) -> None:
    aligned = aligned_sections(expected, predicted)
    for position, (section, got) in enumerate(zip(expected, aligned, strict=True)):
        score.sections += 1
        if _format_right(section, got):
            score.formats_right += 1
        else:
            score.misses.append(f"{name}: section {position + 1} format {section} != {got}")
        if "repScheme" in section:
            score.schemes += 1
            if got is not None and _scheme_of(got) == section["repScheme"]:
                score.schemes_right += 1
            else:
                score.misses.append(f"{name}: section {position + 1} scheme {section} != {got}")


def score_fixture(fixture: dict[str, Any], index: MovementIndex, score: Score) -> None:
    title, predicted = _predicted_sections(fixture["text"], index)
    name = fixture["name"]
    if "title" in fixture:
        score.titles += 1
        if title == fixture["title"]:
            score.titles_right += 1
        else:
            score.misses.append(f"{name}: title {fixture['title']!r} != {title!r}")
    _score_sections(name, fixture["sections"], predicted, score)
    expected = [m for s in fixture["sections"] for m in s["movements"]]
    read = [m for s in predicted for m in s["movements"]]
    score.expected_movements += len(expected)
    score.predicted_movements += len(read)
    names = Counter(m["name"] for m in expected) & Counter(m["name"] for m in read)
    score.named += sum(names.values())
    cursor = 0
    for movement in expected:
        score.schemes += 1
        found = next(
            (i for i in range(cursor, len(read)) if read[i]["name"] == movement["name"]), None
        )
        if found is None:
            score.loads += _carries_load(movement)
            score.misses.append(f"{name}: movement {movement} not read")
            continue
        cursor = found + 1
        got = read[found]
        if _movement_scheme_right(movement, got):
            score.schemes_right += 1
        else:
            score.misses.append(f"{name}: scheme {movement} != {got}")
        if _carries_load(movement) or _carries_load(got):
            score.loads += 1
            if _loads_right(movement, got):
                score.loads_right += 1
            else:
                score.misses.append(f"{name}: quantities {movement} != {got}")
    extra = Counter(m["name"] for m in read) - Counter(m["name"] for m in expected)
    for extra_name in extra.elements():
        score.misses.append(f"{name}: read a movement not there: {extra_name!r}")


def score_fixtures(fixtures: list[dict[str, Any]]) -> Score:
    index = seeded_index()
    score = Score()
    for fixture in fixtures:
        score_fixture(fixture, index, score)
    return score
