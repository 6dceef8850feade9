"""Issue 26 item 1 (the spec's TKN-305): replacing a whole set always confirms, and the card
shows the set before and after, with what is removed and what is added."""

from __future__ import annotations

from datetime import date
from typing import Any

import psycopg
import pytest

from spotter.agent import events as ev
from spotter.agent.run import resolve as resolution
from spotter.db import Database
from spotter.providers.fake import Reply, ScriptedModel, Text, ToolUse, tool_reply
from spotter.tools.catalog import load_catalog
from spotter.tools.errors import DomainError
from spotter.tools.invoke import preview_tool
from tests.support.agent import deps_for, run_turn
from tests.support.callers import caller_for
from tests.support.hitl import of_type
from tests.support.schedule import add_workout, class_type, ok, session
from tests.support.world import Org

DAY = date(2027, 1, 5)  # a Tuesday

# Every action that overwrites a set the user already has (the sweep of every router, listed in
# docs/spec_deviations.md with the one that does not confirm and why).
WHOLE_SET_REPLACEMENTS = (
    "assignments.set_members",
    "class_sessions.clear_workouts",
    "class_sessions.set_coaches",
    "class_sessions.set_day_workouts",
    "class_sessions.set_workouts",
    "daily_programming.clear",
    "daily_programming.set",
    "program_templates.apply",
    "program_templates.set_days",
    "workouts.set_sections",
    "workouts.upsert",
)
# Writes whose summary says "replace" that are not a whole set being replaced.
NOT_A_WHOLE_SET = {
    "forms.update_field": "one field of a draft, which nobody signs until it is published",
    "program_templates.unapply": "puts back what an apply replaced; destructive, so it asks",
}


def _change(card: Any, field: str) -> dict[str, Any]:
    [change] = [c for c in card.changes or [] if c["field"] == field]
    return dict(change)


def test_whole_set_replacement_always_confirms() -> None:
    specs = load_catalog().specs
    never = [name for name in WHOLE_SET_REPLACEMENTS if specs[name].confirm != "always"]
    assert never == []
    # the catalog's own words: any write described as replacing something is in the list
    described = {
        name
        for name, spec in specs.items()
        if spec.side_effects == "write" and "replace" in spec.summary.lower()
    }
    unlisted = described - set(WHOLE_SET_REPLACEMENTS) - set(NOT_A_WHOLE_SET)
    assert unlisted == set()
    # and each builds its own card: the set before and after (a target alone names, not shows)
    assert [name for name in WHOLE_SET_REPLACEMENTS if specs[name].preview is None] == []


async def test_set_coaches_card_shows_the_coaches_before_and_after(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    coach, admin = str(org["coach"].membership_id), str(org["admin"].membership_id)
    names = {coach: f"Coach {org.clerk_org_id[4:]}", admin: f"Admin {org.clerk_org_id[4:]}"}
    crossfit = await class_type(db, owner)
    sid = await session(db, owner, crossfit, DAY, "07:00", coachIds=[coach])
    args = {"sessionId": sid, "coachIds": [coach, admin]}
    card = await preview_tool(db, owner, "class_sessions", {"action": "set_coaches", "args": args})
    assert card.target is not None and card.target.startswith("CrossFit · ")
    assert card.consequences == ["session_coaches_replaced"]
    assert _change(card, "coaches") == {
        "field": "coaches",
        "old": [names[coach]],
        "new": [names[coach], names[admin]],
        "removed": [],
        "added": [names[admin]],
    }
    # a coach already coaching elsewhere then: no card, so nobody approves what must fail
    other = await session(db, owner, crossfit, DAY, "07:30")
    with pytest.raises(DomainError) as refused:
        await preview_tool(
            db,
            owner,
            "class_sessions",
            {"action": "set_coaches", "args": {"sessionId": other, "coachIds": [coach]}},
        )
    assert refused.value.code == "conflict"


async def test_session_workout_cards_show_what_it_runs_before_and_after(
    db: Database, org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, org, "owner")
    coach = await caller_for(db, org, "coach")
    crossfit = await class_type(db, owner)
    early = await session(db, owner, crossfit, DAY, "07:00")
    late = await session(db, owner, crossfit, DAY, "18:00")
    fran, murph = add_workout(clean_db, org.id, "Fran"), add_workout(clean_db, org.id, "Murph")
    day = {"classTypeId": crossfit, "day": DAY.isoformat()}

    card = await preview_tool(
        db, coach, "daily_programming", {"action": "set", "args": {**day, "workoutIds": [fran]}}
    )
    assert _change(card, "workouts") == {
        "field": "workouts", "old": [], "new": ["Fran"], "removed": [], "added": ["Fran"]
    }  # fmt: skip
    await ok(db, coach, "daily_programming", "set", {**day, "workoutIds": [fran]})

    # the session inherits the day's Fran: overriding it shows Fran leaving and Murph joining
    override = {"sessionId": late, "workoutIds": [murph]}
    card = await preview_tool(
        db, coach, "class_sessions", {"action": "set_workouts", "args": override}
    )
    assert card.consequences == ["session_workouts_replaced"]
    assert _change(card, "workouts") == {
        "field": "workouts", "old": ["Fran"], "new": ["Murph"],
        "removed": ["Fran"], "added": ["Murph"],
    }  # fmt: skip
    await ok(db, coach, "class_sessions", "set_workouts", override)

    # dropping the override: the session goes back to the day's programming
    card = await preview_tool(
        db, coach, "class_sessions", {"action": "clear_workouts", "args": {"sessionId": late}}
    )
    assert card.consequences == ["session_inherits_daily_programming"]
    assert _change(card, "workouts")["old"] == ["Murph"]
    assert _change(card, "workouts")["new"] == ["Fran"]

    # the whole day: one change per session, each with what that session runs now
    card = await preview_tool(
        db,
        coach,
        "class_sessions",
        {"action": "set_day_workouts", "args": {"day": DAY.isoformat(), "workoutIds": [murph]}},
    )
    runs = {c["field"].split(" · ")[1][-5:]: (c["old"], c["removed"]) for c in card.changes or []}
    assert runs == {"07:00": (["Fran"], ["Fran"]), "18:00": (["Murph"], [])}
    assert early  # both sessions are on the card

    card = await preview_tool(db, coach, "daily_programming", {"action": "clear", "args": day})
    assert _change(card, "workouts") == {
        "field": "workouts", "old": ["Fran"], "new": [], "removed": ["Fran"], "added": []
    }  # fmt: skip


SECTION = {"format": "for_time", "movements": [{"name": "Run", "distance": "400m"}]}
WARM_UP = {"name": "Warm-up", "sections": [{"format": "other", "movements": [{"name": "Row"}]}]}


async def test_set_sections_card_shows_parts_kept_removed_and_added(db: Database, org: Org) -> None:
    coach = await caller_for(db, org, "coach")
    created = await ok(db, coach, "workouts", "create", {"title": "Tuesday"})
    first = [WARM_UP, {"name": "Conditioning", "sections": [SECTION]}]
    await ok(db, coach, "workouts", "set_sections", {"workoutId": created["id"], "parts": first})
    second = [WARM_UP, {"name": "Conditioning", "sections": [SECTION | {"rounds": 3}]}]
    args = {"workoutId": created["id"], "parts": second}
    card = await preview_tool(db, coach, "workouts", {"action": "set_sections", "args": args})
    assert card.target == "Tuesday"
    assert card.consequences == ["workout_parts_replaced"]
    parts = _change(card, "parts")
    assert len(parts["old"]) == len(parts["new"]) == 2
    assert parts["removed"] == ["Conditioning\n  for time\n    Run · 400m"]
    assert parts["added"] == ["Conditioning\n  for time · 3 rounds\n    Run · 400m"]


async def test_upsert_card_shows_the_days_workout_it_replaces(
    db: Database, org: Org, clean_db: str
) -> None:
    with psycopg.connect(clean_db) as conn:
        conn.execute(
            "UPDATE organizations SET day_grain_programming = true WHERE id = %s", (org.id,)
        )
    coach = await caller_for(db, org, "coach")
    program = await ok(
        db, await caller_for(db, org, "owner"), "programs", "create", {"name": "Main"}
    )
    day = {"programId": program["id"], "date": DAY.isoformat()}
    first = {**day, "title": "Tuesday", "parts": [WARM_UP]}
    card = await preview_tool(db, coach, "workouts", {"action": "upsert", "args": first})
    assert card.target is not None and card.target.startswith("Main · ")
    assert card.consequences == []  # nothing there yet: nothing replaced
    await ok(db, coach, "workouts", "upsert", first)
    again = {**day, "title": "Tuesday v2", "parts": [{"name": "Lift", "sections": [SECTION]}]}
    card = await preview_tool(db, coach, "workouts", {"action": "upsert", "args": again})
    assert card.consequences == ["replaces_existing_workouts"]
    assert _change(card, "title") == {"field": "title", "old": "Tuesday", "new": "Tuesday v2"}
    parts = _change(card, "parts")
    assert [p.splitlines()[0] for p in parts["removed"]] == ["Warm-up"]
    assert [p.splitlines()[0] for p in parts["added"]] == ["Lift"]


async def test_a_whole_set_replacement_from_the_model_waits_for_approval(
    db: Database, org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, org, "owner")
    coach_id = str(org["coach"].membership_id)
    crossfit = await class_type(db, owner)
    sid = await session(db, owner, crossfit, DAY, "07:00", coachIds=[coach_id])
    call = ToolUse(
        "class_sessions",
        {"action": "set_coaches", "args": {"sessionId": sid, "coachIds": []}},
        id="t1",
    )
    model = ScriptedModel([tool_reply(call), Reply([Text("Done: no coach now.")])])
    deps = deps_for(db, model)
    events = await run_turn(deps, owner, "take the coach off the 7am")
    [pending] = of_type(events, ev.ConfirmationPending)
    assert pending.confirm == "always"
    assert pending.confirmation.changes[0]["removed"] == [f"Coach {org.clerk_org_id[4:]}"]
    assert not of_type(events, ev.ToolCompleted)  # nothing ran before the approval
    got = await ok(db, owner, "class_sessions", "get", {"sessionId": sid})
    assert [c["id"] for c in got["coaches"]] == [coach_id]
    done = events[-1]
    assert isinstance(done, ev.Done) and done.conversation_id
    approved = [e async for e in resolution.confirm(deps, owner, done.conversation_id, "t1", True)]
    assert [e.ok for e in of_type(approved, ev.ToolCompleted)] == [True]
    got = await ok(db, owner, "class_sessions", "get", {"sessionId": sid})
    assert got["coaches"] == []
