"""What the reader builds: parts holding sections holding movements, and their JSON form."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from spotter.domain.workout_parser.quantities import Sexed


@dataclass
class Section:
    format: str = "other"
    rounds: int | None = None
    rep_scheme: str | None = None
    duration_seconds: int | None = None
    interval_seconds: int | None = None
    time_cap_seconds: int | None = None
    complex: bool = False
    from_header: bool = False
    # "5 rounds, max reps:": movements without a count are done for max reps
    max_reps: bool = False
    # Quantities stated once for several movements: (kind, implement or None, value), and the
    # per-sex halves of standards lines ("♀ 95 lb, 20-in box" then "♂ 135 lb, 24-in box").
    shared: list[tuple[str, str | None, str]] = field(default_factory=list)
    halves: list[Sexed] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    movements: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Part:
    name: str
    window: dict[str, str] | None = None
    optional: bool = False
    notes: list[str] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)


def part_out(index: int, part: Part) -> dict[str, Any]:
    sections = []
    for s_index, section in enumerate(part.sections, start=1):
        movements = [
            {"key": f"{index}.{s_index}.{m_index}", **movement}
            for m_index, movement in enumerate(section.movements, start=1)
        ]
        out: dict[str, Any] = {"format": section.format}
        for key, value in (
            ("rounds", section.rounds),
            ("repScheme", section.rep_scheme),
            ("durationSeconds", section.duration_seconds),
            ("intervalSeconds", section.interval_seconds),
            ("timeCapSeconds", section.time_cap_seconds),
            ("complex", section.complex or None),
            ("note", "\n".join(section.notes) or None),
        ):
            if value is not None:
                out[key] = value
        out["movements"] = movements
        sections.append(out)
    result: dict[str, Any] = {"name": part.name}
    if part.notes:
        result["note"] = "\n".join(part.notes)
    if part.window:
        result["window"] = part.window
    result["optional"] = part.optional
    result["sections"] = sections
    return result


def movements_of(parsed: dict[str, Any]) -> list[dict[str, Any]]:
    """Every movement of a parsed (or stored) workout, in order."""
    return [m for part in parsed["parts"] for s in part["sections"] for m in s["movements"]]
