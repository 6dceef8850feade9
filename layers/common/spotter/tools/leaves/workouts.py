"""workouts — a title, a brief (description) and parts -> sections -> movements.

Day-grain orgs also get `parse` (a coach's verbatim text -> ONE workout for a program and date)
and `upsert` (a day assembled without coach text). From the agent, source text reaches a workout
only through `parse`: `set_sections` and `upsert` refuse it, and score slots. The MCP channel
(a coach's own client, writing their own words) may send both.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from spotter.domain import workouts as domain
from spotter.domain.names import simple_name
from spotter.domain.workout_parser import parse_workout
from spotter.domain.workout_parser.render import render
from spotter.i18n.dates import format_local_date
from spotter.tools.args import Args, Title
from spotter.tools.cards import Confirmation, set_change
from spotter.tools.context import ToolContext
from spotter.tools.errors import ToolArgsError
from spotter.tools.router import Router
from spotter.tools.spec import Audit, EntityTarget, Identified, Inverse

workouts = Router(
    "workouts",
    "Workouts. Parts (Warm-up, Lift...) hold sections (format, rounds, times in seconds) of"
    " movements; loads/distances/calories/heights are text like '60/40kg', '200m', '15/12'.",
)

MCP_ONLY = "Source text and score slots require the MCP channel."
Text = Annotated[str, Field(max_length=4000)]
Short = Annotated[str, Field(min_length=1, max_length=120)]
Count = Annotated[int, Field(ge=1, le=1000)]
Seconds = Annotated[int, Field(ge=1, le=86400)]
Clock = Annotated[str, Field(pattern=r"^\d{1,2}:\d{2}$")]


class Movement(Args):
    name: Short
    exercise_id: UUID | None = None
    reps: Count | None = None
    sets: Count | None = None
    rep_scheme: Short | None = None
    percent: Annotated[float, Field(gt=0, le=200)] | None = None
    load: Short | None = None
    distance: Short | None = None
    calories: Short | None = None
    height: Short | None = None
    seconds: Seconds | None = None
    note: Short | None = None
    # Written by parse; accepted back unchanged so get -> set_sections round-trips.
    mention: SkipJsonSchema[str | None] = None
    max: SkipJsonSchema[bool | None] = None
    tempo: SkipJsonSchema[Short | None] = None
    percent_of: SkipJsonSchema[Short | None] = None
    per_side: SkipJsonSchema[bool | None] = None


class Section(Args):
    format: Literal["amrap", "emom", "for_time", "rounds", "strength", "tabata", "other"]
    rounds: Count | None = None
    rep_scheme: Short | None = None
    duration_seconds: Seconds | None = None
    interval_seconds: Seconds | None = None
    time_cap_seconds: Seconds | None = None
    note: Text | None = None
    movements: list[Movement] = Field(default_factory=list, max_length=40)
    complex: SkipJsonSchema[bool | None] = None  # written by parse, like Movement.mention
    # Hidden from the model: present only to refuse with a clear message (MCP-only).
    scores: SkipJsonSchema[list[Any] | None] = None


class Window(Args):
    start: Clock
    end: Clock


class Part(Args):
    name: Short
    note: Text | None = None
    window: Window | None = None
    optional: bool = False
    sections: list[Section] = Field(default_factory=list, max_length=20)


Parts = Annotated[list[Part], Field(min_length=1, max_length=12)]
# What an MCP client may send beside the parts (the agent's schema never shows them).
MCP_FIELDS: dict[str, dict[str, Any]] = {
    "sourceText": {"type": "string", "description": "The coach's verbatim text for this workout."},
    "scores": {"type": "array", "description": "Score slots (how results are recorded)."},
}


def _refuse_hand_authored(
    ctx: ToolContext, source_text: Any, scores: Any, parts: list[Part]
) -> None:
    """The spec's refuseHandAuthoredText: only the MCP channel may send these."""
    if ctx.channel == "mcp":
        return
    if (
        source_text is not None
        or scores is not None
        or any(s.scores is not None for p in parts for s in p.sections)
    ):
        raise ToolArgsError(MCP_ONLY)


def _parts_json(parts: list[Part]) -> list[dict[str, Any]]:
    return [p.model_dump(mode="json", by_alias=True, exclude_none=True) for p in parts]


async def _resolved_parts(ctx: ToolContext, parts: list[Part]) -> domain.Resolved:
    """Parts with library ids attached by exact name or alias (alias matches are warned of)."""
    return await domain.resolve_movements(ctx.scope, _parts_json(parts), fuzzy=False)


def _part_texts(parts: list[dict[str, Any]]) -> dict[str, str]:
    """Each part as a coach reads it (its name, window, sections and movements), keyed by that
    text and its occurrence: a part kept as it was is neither removed nor added."""
    texts: dict[str, str] = {}
    seen: dict[str, int] = {}
    for part in parts:
        text = render({"parts": [{"optional": False, **part}], "unread": []})
        seen[text] = seen.get(text, 0) + 1  # a second identical part is a second member
        texts[f"{seen[text]}:{text}"] = text
    return texts


def _parts_change(old: list[dict[str, Any]], new: list[Part]) -> dict[str, Any]:
    return set_change("parts", _part_texts(old), _part_texts(_parts_json(new)))


def _matching(resolved: domain.Resolved) -> dict[str, Any]:
    return {
        "unmatchedMovements": [m["name"] for m in resolved.unresolved],
        "warnings": resolved.warnings,
    }


class CreateArgs(Args):
    title: Title
    description: Text | None = None
    program_id: UUID | None = None
    date: dt.date | None = None


@workouts.write(
    "create",
    "Create a workout (title required; description = the brief). Add parts with set_sections.",
    inverse=Inverse("delete", Identified, lambda out: WorkoutArgs(workout_id=out.id)),
)
async def create_workout(ctx: ToolContext, args: CreateArgs) -> Identified:
    row = await domain.create_workout(
        ctx.scope,
        created_by=ctx.caller.user_id,
        title=args.title,
        description=args.description,
        program_id=args.program_id,
        scheduled_on=args.date,
    )
    return Identified.model_validate(domain.workout_out(row))


class WorkoutArgs(Args):
    workout_id: UUID


@workouts.read("get", "One workout with its parts.")
async def get_workout(ctx: ToolContext, args: WorkoutArgs) -> dict[str, Any]:
    return domain.workout_out(await domain.get_workout(ctx.scope, args.workout_id))


class ListArgs(Args):
    program_id: UUID | None = None
    from_: Annotated[dt.date | None, Field(alias="from")] = None
    to: dt.date | None = None
    limit: Annotated[int, Field(ge=1, le=100)] = 30


@workouts.read("list", "A program's (or all) workouts in a date range.")
async def list_workouts(ctx: ToolContext, args: ListArgs) -> dict[str, Any]:
    rows = await domain.list_workouts(
        ctx.scope,
        program_id=args.program_id,
        date_from=args.from_,
        date_to=args.to,
        limit=args.limit,
    )
    return {"workouts": [domain.workout_out(r, full=False) for r in rows]}


class UpdateArgs(Args):
    workout_id: UUID
    title: Title | None = None
    description: Text | None = None
    program_id: UUID | None = None
    date: dt.date | None = None


@workouts.write("update", "Change a workout's title, brief, program or date.", idempotent=True)
async def update_workout(ctx: ToolContext, args: UpdateArgs) -> dict[str, Any]:
    row = await domain.update_workout(
        ctx.scope,
        args.workout_id,
        title=args.title,
        description=args.description,
        program_id=args.program_id,
        scheduled_on=args.date,
    )
    return domain.workout_out(row)


class SetSectionsArgs(Args):
    workout_id: UUID
    parts: Parts
    source_text: SkipJsonSchema[str | None] = None
    scores: SkipJsonSchema[list[Any] | None] = None


async def _set_sections_preview(ctx: ToolContext, args: SetSectionsArgs) -> Confirmation:
    _refuse_hand_authored(ctx, args.source_text, args.scores, args.parts)
    current = await domain.get_workout(ctx.scope, args.workout_id)
    await _resolved_parts(ctx, args.parts)  # a foreign exercise id fails here, not on approval
    return Confirmation(
        consequences=["workout_parts_replaced"] if current["parts"] else [],
        changes=[_parts_change(current["parts"] or [], args.parts)],
    )


@workouts.write(
    "set_sections",
    "Replace a workout's parts.",
    confirm="always",
    preview=_set_sections_preview,
    target=EntityTarget("workout", "workout_id"),
    idempotent=True,
    mcp_fields=MCP_FIELDS,
)
async def set_sections(ctx: ToolContext, args: SetSectionsArgs) -> dict[str, Any]:
    _refuse_hand_authored(ctx, args.source_text, args.scores, args.parts)
    resolved = await _resolved_parts(ctx, args.parts)
    # From MCP: given source text and scores replace the stored ones; absent ones are kept.
    extra: dict[str, Any] = {}
    if args.source_text is not None:
        extra["source_text"] = args.source_text
    if args.scores is not None:
        extra["scores"] = args.scores
    row = await domain.update_workout(ctx.scope, args.workout_id, parts=resolved.parts, **extra)
    return domain.workout_out(row) | _matching(resolved)


@workouts.write(
    "delete",
    "Delete a workout (soft; it leaves programs and schedules).",
    confirm="destructive",
    target=EntityTarget("workout", "workout_id"),
    consequences=("workout_removed",),
)
async def delete_workout(ctx: ToolContext, args: WorkoutArgs) -> dict[str, Any]:
    row = await domain.soft_delete_workout(ctx.scope, args.workout_id)
    return {"id": str(row["id"]), "title": row["title"], "deleted": True}


class Resolution(Args):
    movement_key: Short
    mention: Short
    exercise_id: UUID


class Save(Args):
    program_id: UUID
    resolutions: list[Resolution] = Field(default_factory=list, max_length=40)


class ParseArgs(Args):
    text: Annotated[str, Field(min_length=1, max_length=8000)]
    date: dt.date
    title: Title | None = None
    description: Text | None = None
    save: Save | None = None


def _not_saved(
    parsed: dict[str, Any], reasons: list[str], unresolved: list[Any], warnings: list[Any]
) -> dict[str, Any]:
    return {
        "saved": False,
        "notSavedReasons": reasons,
        "unresolved": unresolved,
        "warnings": warnings,
        "workout": parsed,
    }


@workouts.write(
    "parse",
    "Coach text, verbatim -> ONE workout for a date; saved only with save.programId and"
    " every movement resolved (retry with save.resolutions).",
    day_grain_only=True,
)
async def parse(ctx: ToolContext, args: ParseArgs) -> dict[str, Any]:
    parsed = parse_workout(args.text)
    if not parsed["parts"]:
        raise ToolArgsError("No workout could be read from this text.")
    resolutions = [
        domain.Resolution(r.movement_key, r.mention, r.exercise_id)
        for r in (args.save.resolutions if args.save else [])
    ]
    resolved = await domain.resolve_movements(ctx.scope, parsed["parts"], resolutions=resolutions)
    unresolved = domain.unresolved_out(resolved)
    domain.strip_candidates(parsed["parts"])
    warnings = list(resolved.warnings)
    if parsed["unread"]:
        # kept as notes, so nothing is lost; told so the coach can rephrase or confirm
        warnings.append({"code": "unread_lines", "lines": parsed["unread"]})
    # a load stated once that no movement of its section takes (kept in the section's note)
    warnings.extend(parsed.get("warnings", ()))
    title = args.title or parsed["title"]
    if title is None:
        title = f"Workout {args.date.isoformat()}"
        warnings.append({"code": "title_defaulted", "title": title})
    preview = {"title": title, "date": args.date.isoformat(), "parts": parsed["parts"]}
    reasons = (["save_not_requested"] if args.save is None else []) + (
        ["unresolved_movements"] if unresolved else []
    )
    if args.save is None or reasons:
        return _not_saved(preview, reasons, unresolved, warnings)
    domain.strip_keys(parsed["parts"])
    day = await domain.upsert_day(
        ctx.scope,
        created_by=ctx.caller.user_id,
        program_id=args.save.program_id,
        scheduled_on=args.date,
        title=title,
        description=args.description,
        parts=parsed["parts"],
        source_text=args.text,
    )
    if day.replaced_title is not None:
        warnings.append({"code": "replaced_existing_workout", "title": day.replaced_title})
    return {"saved": True, "warnings": warnings, "id": str(day.row["id"])} | {
        "workout": domain.workout_out(day.row)
    }


class UpsertArgs(Args):
    program_id: UUID
    date: dt.date
    title: Title
    description: Text | None = None
    parts: Parts
    source_text: SkipJsonSchema[str | None] = None
    scores: SkipJsonSchema[list[Any] | None] = None


async def _upsert_preview(ctx: ToolContext, args: UpsertArgs) -> Confirmation:
    _refuse_hand_authored(ctx, args.source_text, args.scores, args.parts)
    existing = await domain.day_workout(ctx.scope, args.program_id, args.date)
    await _resolved_parts(ctx, args.parts)
    program = await simple_name(ctx.scope, "program", args.program_id)
    old = (existing["parts"] or []) if existing else []
    changes = [_parts_change(old, args.parts)]
    if existing and existing["title"] != args.title:
        changes.insert(0, {"field": "title", "old": existing["title"], "new": args.title})
    return Confirmation(
        target=f"{program} · {format_local_date(args.date, ctx.caller.locale)}",
        consequences=["replaces_existing_workouts"] if existing else [],
        changes=changes,
    )


@workouts.write(
    "upsert",
    "Build or replace a program's ONE workout for a date, without coach text.",
    confirm="always",
    preview=_upsert_preview,
    day_grain_only=True,
    idempotent=True,
    audit=Audit("workout", "workout.saved"),
    mcp_fields=MCP_FIELDS,
    mcp_summary="Build or replace a program's ONE workout for a date (sourceText: the coach's"
    " verbatim words, when given; scores: score slots).",
)
async def upsert(ctx: ToolContext, args: UpsertArgs) -> dict[str, Any]:
    _refuse_hand_authored(ctx, args.source_text, args.scores, args.parts)
    resolved = await _resolved_parts(ctx, args.parts)
    day = await domain.upsert_day(
        ctx.scope,
        created_by=ctx.caller.user_id,
        program_id=args.program_id,
        scheduled_on=args.date,
        title=args.title,
        description=args.description,
        parts=resolved.parts,
        source_text=args.source_text,
        scores=args.scores,
    )
    return domain.workout_out(day.row) | {"replacedTitle": day.replaced_title} | _matching(resolved)
