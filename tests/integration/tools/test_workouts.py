"""workouts router: create (undo = soft delete), get, list, update, set_sections, delete."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest

from spotter.auth.caller import Caller
from spotter.db import Database
from spotter.tools.calls import ToolOutcome
from spotter.tools.context import ToolContext
from spotter.tools.errors import DomainError
from spotter.tools.invoke import invoke_tool, preview_tool
from spotter.tools.registry import registry_for_caller
from spotter.tools.runner import execute, resolve_call
from tests.support.callers import caller_for
from tests.support.world import Org, add_exercise

PARTS = [
    {
        "name": "Conditioning",
        "window": {"start": "0:00", "end": "15:00"},
        "sections": [
            {
                "format": "rounds",
                "rounds": 3,
                "movements": [
                    {"name": "Run", "distance": "200m"},
                    {"name": "DU", "reps": 30},
                    {"name": "Sled sprint", "distance": "20m"},
                ],
            }
        ],
    }
]


async def _call(db: Database, caller: Caller, action: str, args: dict[str, Any]) -> ToolOutcome:
    return await invoke_tool(db, caller, "workouts", {"action": action, "args": args})


async def _ok(db: Database, caller: Caller, action: str, args: dict[str, Any]) -> Any:
    outcome = await _call(db, caller, action, args)
    assert outcome.ok, outcome.error
    return outcome.output


async def _code(db: Database, caller: Caller, action: str, args: dict[str, Any]) -> str:
    outcome = await _call(db, caller, action, args)
    assert outcome.error is not None, outcome.output
    return str(outcome.error.code)


async def test_create_get_list_update(db: Database, org: Org) -> None:
    coach = await caller_for(db, org, "coach")
    created = await _ok(
        db,
        coach,
        "create",
        {"title": "Chipper", "description": "Long and steady", "date": "2026-12-01"},
    )
    assert (created["title"], created["date"], created["status"]) == (
        "Chipper",
        "2026-12-01",
        "draft",
    )
    got = await _ok(db, coach, "get", {"workoutId": created["id"]})
    assert got["description"] == "Long and steady" and got["parts"] == []
    updated = await _ok(db, coach, "update", {"workoutId": created["id"], "title": "Big Chipper"})
    assert (updated["title"], updated["description"]) == ("Big Chipper", "Long and steady")
    listed = await _ok(db, coach, "list", {"from": "2026-12-01", "to": "2026-12-01"})
    assert [w["title"] for w in listed["workouts"]] == ["Big Chipper"]


async def test_create_in_a_program_and_foreign_program_is_not_found(
    db: Database, org: Org, other_org: Org
) -> None:
    theirs = await invoke_tool(
        db,
        await caller_for(db, other_org, "owner"),
        "programs",
        {"action": "create", "args": {"name": "Theirs"}},
    )
    owner = await caller_for(db, org, "owner")
    mine = await invoke_tool(db, owner, "programs", {"action": "create", "args": {"name": "Mine"}})
    created = await _ok(db, owner, "create", {"title": "A", "programId": mine.output["id"]})
    assert created["programId"] == mine.output["id"]
    listed = await _ok(db, owner, "list", {"programId": mine.output["id"]})
    assert [w["programName"] for w in listed["workouts"]] == ["Mine"]
    assert await _code(db, owner, "create", {"title": "B", "programId": theirs.output["id"]}) == (
        "not_found"
    )


async def test_set_sections_stores_parts_and_links_the_library(
    db: Database, org: Org, clean_db: str
) -> None:
    du = add_exercise(clean_db, org, "Double-Under", "DU")
    run = add_exercise(clean_db, org, "Run", "ריצה")
    coach = await caller_for(db, org, "coach")
    created = await _ok(db, coach, "create", {"title": "3 rounds"})
    out = await _ok(db, coach, "set_sections", {"workoutId": created["id"], "parts": PARTS})
    movements = out["parts"][0]["sections"][0]["movements"]
    assert movements[0] == {"name": "Run", "distance": "200m", "exerciseId": str(run)}
    assert movements[1] == {"name": "Double-Under", "reps": 30, "exerciseId": str(du)}
    assert movements[2] == {"name": "Sled sprint", "distance": "20m"}
    assert out["unmatchedMovements"] == ["Sled sprint"]
    assert out["warnings"] == [
        {
            "code": "auto_confirmed_movement",
            "movementKey": None,
            "mention": "DU",
            "exercise": "Double-Under",
            "match": "alias",
        }
    ]
    assert out["parts"][0]["window"] == {"start": "0:00", "end": "15:00"}
    got = await _ok(db, coach, "get", {"workoutId": created["id"]})
    assert got["parts"] == out["parts"]


async def test_set_sections_refuses_source_text_and_scores(db: Database, org: Org) -> None:
    coach = await caller_for(db, org, "coach")
    created = await _ok(db, coach, "create", {"title": "Hand built"})
    scored = [PARTS[0] | {"sections": [PARTS[0]["sections"][0] | {"scores": [{"type": "time"}]}]}]
    for extra in (
        {"sourceText": "3 rounds: 200m run"},
        {"scores": [{"type": "time"}]},
        {"parts": scored},
    ):
        args = {"workoutId": created["id"], "parts": PARTS} | extra
        outcome = await _call(db, coach, "set_sections", args)
        assert outcome.error is not None
        assert outcome.error.code == "invalid_args"
        assert outcome.error.message == "Source text and score slots require the MCP channel."
    got = await _ok(db, coach, "get", {"workoutId": created["id"]})
    assert got["parts"] == [] and "sourceText" not in got


async def test_set_sections_with_a_foreign_exercise_id_is_not_found(
    db: Database, org: Org, other_org: Org, clean_db: str
) -> None:
    theirs = add_exercise(clean_db, other_org, "Run")
    coach = await caller_for(db, org, "coach")
    created = await _ok(db, coach, "create", {"title": "W"})
    parts = [{"name": "P", "sections": [{"format": "other", "movements": [
        {"name": "Run", "exerciseId": str(theirs)}
    ]}]}]  # fmt: skip
    assert await _code(db, coach, "set_sections", {"workoutId": created["id"], "parts": parts}) == (
        "not_found"
    )


async def test_foreign_or_missing_workout_is_not_found(
    db: Database, org: Org, other_org: Org
) -> None:
    theirs = await _ok(db, await caller_for(db, other_org, "owner"), "create", {"title": "Theirs"})
    owner = await caller_for(db, org, "owner")
    for workout_id in (theirs["id"], str(uuid.uuid4())):
        for action, extra in (
            ("get", {}),
            ("update", {"title": "Mine"}),
            ("set_sections", {"parts": PARTS}),
            ("delete", {}),
        ):
            code = await _code(db, owner, action, {"workoutId": workout_id} | extra)
            assert code == "not_found", action


async def test_bad_args_are_invalid_args(db: Database, org: Org) -> None:
    coach = await caller_for(db, org, "coach")
    for action, args in (
        ("create", {}),
        ("create", {"title": ""}),
        ("create", {"title": "x", "date": "tomorrow"}),
        ("get", {"workoutId": "42"}),
        ("list", {"limit": 1000}),
        ("set_sections", {"workoutId": str(uuid.uuid4()), "parts": []}),
        (
            "set_sections",
            {
                "workoutId": str(uuid.uuid4()),
                "parts": [{"name": "P", "sections": [{"format": "hiit"}]}],
            },
        ),
    ):
        assert await _code(db, coach, action, args) == "invalid_args", (action, args)


async def test_members_may_not_touch_workouts(db: Database, org: Org) -> None:
    member = await caller_for(db, org, "member")
    assert await _code(db, member, "create", {"title": "Mine"}) == "forbidden"
    assert await _code(db, member, "list", {}) == "forbidden"


async def test_day_grain_tools_are_hidden_from_standard_orgs(db: Database, org: Org) -> None:
    coach = await caller_for(db, org, "coach")
    assert registry_for_caller(coach).get("workouts", "parse") is None
    assert registry_for_caller(coach).get("workouts", "upsert") is None
    # the org lacks the feature (not the coach a permission): the model reads what is missing
    outcome = await _call(db, coach, "parse", {"text": "10 burpees", "date": "2026-12-01"})
    assert outcome.error is not None
    assert (outcome.error.code, outcome.error.message) == (
        "feature_unavailable",
        "workouts.parse needs the day-grain programming feature.",
    )


async def test_delete_preview_names_the_workout_never_an_id(
    db: Database, org: Org, other_org: Org
) -> None:
    coach = await caller_for(db, org, "coach")
    created = await _ok(db, coach, "create", {"title": "Murph"})
    card = await preview_tool(
        db, coach, "workouts", {"action": "delete", "args": {"workoutId": created["id"]}}
    )
    assert card.target == "Murph"
    assert created["id"] not in (card.target or "")
    assert card.affected_count == 1
    assert card.consequences == ["workout_removed"]
    theirs = await _ok(db, await caller_for(db, other_org, "coach"), "create", {"title": "X"})
    with pytest.raises(DomainError) as info:
        await preview_tool(
            db, coach, "workouts", {"action": "delete", "args": {"workoutId": theirs["id"]}}
        )
    assert info.value.code == "not_found"


async def test_delete_is_soft_and_audited(db: Database, org: Org, clean_db: str) -> None:
    coach = await caller_for(db, org, "coach")
    created = await _ok(db, coach, "create", {"title": "Gone"})
    deleted = await _call(db, coach, "delete", {"workoutId": created["id"]})
    assert deleted.ok and deleted.output == {"id": created["id"], "title": "Gone", "deleted": True}
    assert await _code(db, coach, "get", {"workoutId": created["id"]}) == "not_found"
    with psycopg.connect(clean_db) as conn:
        row = conn.execute(
            "SELECT deleted_at IS NOT NULL FROM workouts WHERE id = %s", (created["id"],)
        ).fetchone()
        audit = conn.execute(
            "SELECT action, resource_id FROM audit_logs WHERE id = %s", (deleted.audit_log_id,)
        ).fetchone()
    assert row == (True,)
    assert audit == ("workout.deleted", created["id"])


async def test_undo_of_create_soft_deletes_with_a_linked_audit_row(
    db: Database, org: Org, clean_db: str
) -> None:
    coach = await caller_for(db, org, "coach")
    created = await _call(db, coach, "create", {"title": "Undo me"})
    assert created.ok and created.audit_log_id is not None
    spec = registry_for_caller(coach).get("workouts", "create")
    assert spec is not None and spec.inverse is not None
    inverse_input = {
        "action": spec.inverse.action,
        "args": spec.inverse.build_input(created.output),
    }
    call = resolve_call(registry_for_caller(coach), spec.inverse.router, inverse_input)
    async with db.org_tx(coach.org_id) as conn:
        undone = await execute(
            ToolContext(coach, conn, datetime.now(UTC)),
            call,
            reverses_audit_log_id=created.audit_log_id,
        )
    assert undone.ok, undone.error
    with psycopg.connect(clean_db) as conn:
        row = conn.execute(
            "SELECT deleted_at IS NOT NULL FROM workouts WHERE id = %s", (created.output["id"],)
        ).fetchone()
        audits = conn.execute(
            "SELECT id, action, resource_id, reverses_audit_log_id FROM audit_logs"
            " WHERE organization_id = %s ORDER BY created_at",
            (org.id,),
        ).fetchall()
    assert row == (True,)
    assert [(a[1], a[2]) for a in audits] == [
        ("workout.created", created.output["id"]),
        ("workout.deleted", created.output["id"]),
    ]
    assert audits[1][3] == audits[0][0] == created.audit_log_id


async def test_archived_program_takes_no_new_workouts(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    program = await invoke_tool(
        db, owner, "programs", {"action": "create", "args": {"name": "Old"}}
    )
    archived = await invoke_tool(
        db, owner, "programs", {"action": "archive", "args": {"programId": program.output["id"]}}
    )
    assert archived.ok
    assert await _code(db, owner, "create", {"title": "X", "programId": program.output["id"]}) == (
        "conflict"
    )
