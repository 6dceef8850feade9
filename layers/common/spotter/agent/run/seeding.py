"""T0 seeding: the obvious read for the page the user is on, run before the model loop.

A `/schedule` page shows a week; a selected workout, session, member or program names one record;
a leads page its lead or pipeline board (`lead_page_seeds`).
Those reads are run up front through the tool runner (execution rows, `tool_started` /
`tool_completed`, like any call) and stored as a synthetic assistant tool_use turn plus its
tool_result turn, which ends with SEEDED_RESULTS_NOTE, so the model starts with the data instead
of asking for it. The tool list is never changed (that would rewrite the cached tools prefix).
A seed already in the replayed history is not repeated; only parallel-safe reads are seeded.
"""

from __future__ import annotations

import json
import uuid
from datetime import date, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from spotter.agent.run.lead_page_seeds import lead_seed_inputs
from spotter.agent.run.steps import BatchResults, BatchSuspended
from spotter.agent.run.tool_batch import plan_calls, run_tool_calls
from spotter.agent.state import RunState
from spotter.agent.stream import Emitter
from spotter.tiers import has_feature

MAX_SEEDS = 2
SEEDED_RESULTS_NOTE = (
    "[Spotter fetched the results above ahead of your turn, for the page the user is on. "
    "Use them; do not call these tools again for the same data.]"
)
SCHEDULE_PATHS = ("/schedule", "/dashboard/schedule")
# selection key → (router, action, argument name)
_SELECTED: tuple[tuple[str, str, str, str], ...] = (
    ("workoutId", "workouts", "get", "workoutId"),
    ("sessionId", "read", "session", "sessionId"),
    ("membershipId", "read", "member", "membershipId"),
    ("programId", "read", "workouts", "programId"),
)


def _week_of(day: date) -> tuple[date, date]:
    monday = day - timedelta(days=day.weekday())
    return monday, monday + timedelta(days=6)


def _shown_day(selection: dict[str, Any], today: date) -> date:
    for key in ("weekStart", "date", "day"):
        value = selection.get(key)
        if isinstance(value, str):
            try:
                return date.fromisoformat(value[:10])
            except ValueError:
                continue
    return today


def seed_inputs(
    pathname: str, selection: dict[str, Any] | None, today: date
) -> list[tuple[str, dict[str, Any]]]:
    """The (router, input) pairs this page implies, most specific first, at most MAX_SEEDS."""
    chosen = selection or {}
    seeds = lead_seed_inputs(pathname, chosen)
    for key, router, action, arg in _SELECTED:
        value = chosen.get(key)
        if isinstance(value, str) and value:
            args: dict[str, Any] = {arg: value}
            if action == "workouts":  # a program: its next two weeks of workouts
                args |= {"from": today.isoformat(), "to": (today + timedelta(13)).isoformat()}
            seeds.append((router, {"action": action, "args": args}))
    path = pathname.rstrip("/")
    if any(path == p or path.startswith(p + "/") for p in SCHEDULE_PATHS):
        first, last = _week_of(_shown_day(chosen, today))
        days = {"first": first.isoformat(), "last": last.isoformat()}
        seeds.append(("read", {"action": "schedule", "args": {"days": days}}))
    return seeds[:MAX_SEEDS]


def _key(router: str, tool_input: Any) -> str:
    return router + json.dumps(tool_input, sort_keys=True, default=str)


def _already_replayed(state: RunState) -> set[str]:
    return {
        _key(block["name"], block["input"])
        for message in state.messages
        if message["role"] == "assistant"
        for block in message["content"]
        if block.get("type") == "tool_use"
    }


async def seed_page_reads(
    state: RunState, events: Emitter, pathname: str, selection: dict[str, Any] | None
) -> None:
    """Run and store the page's seeds (nothing when none apply), emitting the tool events."""
    today = state.now.astimezone(ZoneInfo(state.caller.org_timezone)).date()
    seen = _already_replayed(state)
    tool_uses = [
        {"type": "tool_use", "id": f"toolu_seed_{uuid.uuid4().hex[:20]}", "name": r, "input": i}
        for r, i in seed_inputs(pathname, selection, today)
        if _key(r, i) not in seen
    ]
    planned = [
        p
        for p in plan_calls(state, tool_uses)
        if p.spec is not None
        and p.refusal is None
        and p.spec.parallel_safe
        and has_feature(state.caller, p.spec.feature_gate)
    ]
    if not planned:
        return
    kept = {p.tool_use_id for p in planned}
    content = [b for b in tool_uses if b["id"] in kept]
    async with state.transaction() as tx:
        message_id = await state.append(tx, "assistant", content, stop_reason="tool_use")
    note = [{"type": "text", "text": SEEDED_RESULTS_NOTE}]
    match await run_tool_calls(state, events, message_id, planned, note=note):
        case BatchResults():
            pass  # stored by the batch
        case BatchSuspended():
            raise RuntimeError("a seed did not settle")  # parallel-safe reads never suspend
