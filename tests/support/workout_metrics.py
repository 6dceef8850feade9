"""How well the parser reads the fixture set: movement recall/precision, formats, reps, loads.

Each fixture (tests/fixtures/workout_set/*.json) is a coach-style text with what a reader should
get out of it: the sections that hold movements, in order (format, rep scheme, rounds) and each
movement by its library name with reps, load, distance and calories. Predicted names are the
parser's names resolved against the seeded library exactly as the resolver does before trigram
(exact name, then alias); an ambiguous or unknown name counts as not named.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from spotter.domain.movement_match import MovementIndex
from spotter.domain.workout_parser import parse_workout
from spotter.seed.training import EXERCISES

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "workout_set"
QUANTITIES = ("load", "distance", "calories")


def load_fixtures() -> list[dict[str, Any]]:
    return [
        json.loads(path.read_text(encoding="utf-8")) for path in sorted(FIXTURES.glob("*.json"))
    ]


def seeded_index() -> MovementIndex:
    return MovementIndex.of(
        {"id": name, "name": name, "aliases": list(aliases)}
        for name, _category, _equipment, aliases in EXERCISES
    )


@dataclass
class Score:
    expected_movements: int = 0
    predicted_movements: int = 0
    named: int = 0
    sections: int = 0
    formats_right: int = 0
    reps_right: int = 0
    quantities_right: int = 0
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
    def rep_accuracy(self) -> float:
        return self.reps_right / self.expected_movements

    @property
    def load_accuracy(self) -> float:
        return self.quantities_right / self.expected_movements

    def summary(self) -> str:
        return (
            f"movements named: recall {self.recall:.1%}, precision {self.precision:.1%}"
            f" ({self.named}/{self.expected_movements} expected, {self.predicted_movements}"
            f" read); formats {self.format_accuracy:.1%} ({self.formats_right}/{self.sections});"
            f" reps {self.rep_accuracy:.1%}; loads/distances/calories {self.load_accuracy:.1%};"
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


def _format_right(expected: dict[str, Any], predicted: dict[str, Any] | None) -> bool:
    if predicted is None or predicted["format"] != expected["format"]:
        return False
    if predicted["format"] == "strength" and len(predicted["movements"]) == 1:
        # A lift's scheme ("Deadlift 5-5-3-3-1-1") is written on the lift itself.
        lift = predicted["movements"][0]
        predicted = {"repScheme": lift.get("repScheme"), **predicted}
    return all(
        predicted.get(key) == expected[key] for key in ("repScheme", "rounds") if key in expected
    )


def score_fixture(fixture: dict[str, Any], index: MovementIndex, score: Score) -> None:
    title, predicted = _predicted_sections(fixture["text"], index)
    name = fixture["name"]
    if "title" in fixture:
        score.titles += 1
        score.titles_right += title == fixture["title"]
    for position, section in enumerate(fixture["sections"]):
        got = predicted[position] if position < len(predicted) else None
        score.sections += 1
        if _format_right(section, got):
            score.formats_right += 1
        else:
            score.misses.append(f"{name}: section {position + 1} format {section} != {got}")
    expected = [m for s in fixture["sections"] for m in s["movements"]]
    read = [m for s in predicted for m in s["movements"]]
    score.expected_movements += len(expected)
    score.predicted_movements += len(read)
    names = Counter(m["name"] for m in expected) & Counter(m["name"] for m in read)
    score.named += sum(names.values())
    cursor = 0
    for movement in expected:
        found = next(
            (i for i in range(cursor, len(read)) if read[i]["name"] == movement["name"]), None
        )
        if found is None:
            score.misses.append(f"{name}: movement {movement} not read")
            continue
        cursor = found + 1
        got = read[found]
        if got.get("reps") == movement.get("reps"):
            score.reps_right += 1
        else:
            score.misses.append(f"{name}: reps {movement} != {got}")
        if all(got.get(key) == movement.get(key) for key in QUANTITIES):
            score.quantities_right += 1
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
