"""The compact text form of a reading (`spotter parse-workout`): what was read, at a glance.

    Eva
    Workout
      for time · 5 rounds
        800m Run
        30 × KBS (Kettlebell Swing) · 2/1.5pood
        30 × pull-ups (Pull-up)

A movement shows its count, its name as written and, when the shared vocabulary knows it under
another name, that name in brackets; then its quantities. Notes, unread pieces and warnings
follow what they belong to, so every line of the text shows up somewhere.
"""

from __future__ import annotations

from typing import Any

from spotter.domain import movement_vocabulary as vocabulary
from spotter.domain.movement_vocabulary import normalize


def _clock(seconds: int) -> str:
    return f"{seconds // 60}:{seconds % 60:02d}"


def _format(section: dict[str, Any]) -> str:
    kind = section["format"]
    rounds = section.get("rounds")
    words: list[str] = []
    if kind == "for_time":
        words.append("for time")
        if rounds:
            words.append(f"{rounds} rounds")
    elif kind == "amrap":
        minutes = _clock(section["durationSeconds"]) if "durationSeconds" in section else ""
        words.append(f"{rounds} × AMRAP {minutes}" if rounds else f"AMRAP {minutes}")
    elif kind == "emom":
        every = _clock(section.get("intervalSeconds", 60))
        words.append(f"every {every}" + (f" × {rounds}" if rounds else ""))
    elif kind == "tabata":
        words.append(f"Tabata {rounds or 8} × 0:20/0:10")
    elif kind == "rounds":
        words.append(f"{rounds} rounds" if rounds else "rounds")
    else:
        words.append("strength" if kind == "strength" else "movements")
    if "repScheme" in section:
        words.append(section["repScheme"])
    if "timeCapSeconds" in section:
        words.append(f"cap {_clock(section['timeCapSeconds'])}")
    if section.get("complex"):
        words.append("complex")
    return " · ".join(w.strip() for w in words)


def _count(movement: dict[str, Any]) -> str:
    sets, reps = movement.get("sets"), movement.get("reps")
    scheme = movement.get("repScheme")
    if scheme:
        return f"{sets} × {scheme} " if sets else f"{scheme} "
    if sets and reps:
        return f"{sets} × {reps} "
    if sets:
        return f"{sets} sets "
    if reps:
        return f"{reps} × "
    return "max " if movement.get("max") else ""


def _quantities(movement: dict[str, Any]) -> list[str]:
    out = []
    for key, suffix in (("load", ""), ("distance", ""), ("calories", " cal"), ("height", "")):
        if key in movement:
            out.append(f"{movement[key]}{suffix}")
    if "seconds" in movement:
        out.append(
            _clock(movement["seconds"]) if movement["seconds"] >= 60 else f"{movement['seconds']}s"
        )
    if "percent" in movement:
        of = f" of {movement['percentOf']}" if "percentOf" in movement else ""
        upto = f"-{movement['percentTo']:g}" if "percentTo" in movement else ""
        out.append(f"@ {movement['percent']:g}{upto}%{of}")
    if "tempo" in movement:
        out.append(f"tempo {movement['tempo']}")
    if movement.get("perSide"):
        out.append("per side")
    if "note" in movement:
        out.append(f"({movement['note']})")
    return out


def _movement(movement: dict[str, Any]) -> str:
    name = movement["name"]
    known = vocabulary.lookup(name)
    other = known is not None and normalize(known.name) != normalize(name)
    named = f"{name} ({known.name})" if known is not None and other else name
    return " · ".join([f"{_count(movement)}{named}", *_quantities(movement)])


def _notes(note: str | None, indent: str) -> list[str]:
    return [f"{indent}note: {line}" for line in (note or "").splitlines()]


def render(parsed: dict[str, Any]) -> str:
    """The reading as a few indented lines (see the module's example)."""
    lines = [parsed["title"]] if parsed.get("title") else []
    for part in parsed["parts"]:
        window = part.get("window")
        extra = f" ({window['start']}-{window['end']})" if window else ""
        lines.append(f"{part['name']}{extra}" + (" [optional]" if part["optional"] else ""))
        lines += _notes(part.get("note"), "  ")
        for section in part["sections"]:
            lines.append(f"  {_format(section)}")
            lines += _notes(section.get("note"), "    ")
            lines += [f"    {_movement(m)}" for m in section["movements"]]
    lines += [f"unread: {piece}" for piece in parsed["unread"]]
    lines += [f"warning: {w['code']}: {w['text']}" for w in parsed.get("warnings", [])]
    return "\n".join(lines)
