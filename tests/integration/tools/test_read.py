"""read router: the picker, the org, people, coaches, programs, workouts, exercises."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime
from typing import Any

import psycopg

from spotter.auth.caller import Caller
from spotter.db import Database
from spotter.tools.invoke import invoke_tool
from spotter.tools.registry import registry_for
from tests.support.callers import caller_for
from tests.support.world import Org, add_exercise, add_person


async def _read(db: Database, caller: Caller, action: str, args: dict[str, Any]) -> Any:
    outcome = await invoke_tool(db, caller, "read", {"action": action, "args": args})
    assert outcome.ok, outcome.error
    return outcome.output


async def _error(db: Database, caller: Caller, action: str, args: dict[str, Any]) -> str:
    outcome = await invoke_tool(db, caller, "read", {"action": action, "args": args})
    assert outcome.error is not None
    return str(outcome.error.code)


def _candidates(n: int) -> list[dict[str, str]]:
    return [{"id": f"id{i}", "label": f"Saar {i}", "sublabel": "member"} for i in range(n)]


async def test_picker_is_never_run_and_validates_its_candidates(db: Database, org: Org) -> None:
    coach = await caller_for(db, org, "coach")
    args = {"kind": "member", "prompt": "Which Saar?", "candidates": _candidates(2)}
    assert await _error(db, coach, "ask_user_to_pick", args) == "needs_user"
    spec = registry_for("coach", False, True).get("read", "ask_user_to_pick")
    assert spec is not None and spec.kind == "user_picker"
    for bad in (
        args | {"candidates": _candidates(1)},
        args | {"candidates": _candidates(9)},
        args | {"candidates": [*_candidates(2), {"id": "id0", "label": "again"}]},
        args | {"kind": "lead"},
    ):
        assert await _error(db, coach, "ask_user_to_pick", bad) == "invalid_args"


async def test_org_profile_with_local_date_and_time(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    # 22:30 UTC on 30 Nov is 00:30 on 1 Dec in Jerusalem (UTC+2).
    now = datetime(2026, 11, 30, 22, 30, tzinfo=UTC)
    outcome = await invoke_tool(db, owner, "read", {"action": "org", "args": {}}, now=now)
    assert outcome.output == {
        "name": "Box A",
        "timezone": "Asia/Jerusalem",
        "locale": "en",
        "tier": "growth",
        "orgType": "gym",
        "dayGrainProgramming": False,
        "features": ["lead_management", "program_templates"],
        "localDate": "2026-12-01",
        "localTime": "00:30",
        "weekday": "Tuesday",
    }


async def test_find_members_is_fuzzy_filtered_and_active_only(
    db: Database, org: Org, other_org: Org, clean_db: str
) -> None:
    saar = add_person(clean_db, org, "Saar Cohen")
    sahar = add_person(clean_db, org, "Sahar Levi")
    add_person(clean_db, org, "Saar Gone", status="suspended")
    add_person(clean_db, other_org, "Saar Elsewhere")
    coach = await caller_for(db, org, "coach")
    found = await _read(db, coach, "find_members", {"query": "saar"})
    assert [p["name"] for p in found["people"]] == ["Saar Cohen"]
    assert found["people"][0]["membershipId"] == str(saar.membership_id)
    typo = await _read(db, coach, "find_members", {"query": "Sahar Levy"})
    assert typo["people"][0]["membershipId"] == str(sahar.membership_id)
    with_inactive = await _read(
        db, coach, "find_members", {"query": "Saar", "includeInactive": True}
    )
    assert {p["name"] for p in with_inactive["people"]} == {"Saar Cohen", "Saar Gone"}
    staff = await _read(db, coach, "find_members", {"role": "staff"})
    assert {p["role"] for p in staff["people"]} == {"owner", "admin", "coach"}
    assert await _error(db, coach, "find_members", {"limit": 0}) == "invalid_args"


async def test_member_by_id_and_foreign_member_is_not_found(
    db: Database, org: Org, other_org: Org, clean_db: str
) -> None:
    dana = add_person(clean_db, org, "Dana Levi")
    theirs = add_person(clean_db, other_org, "Not Yours")
    coach = await caller_for(db, org, "coach")
    person = await _read(db, coach, "member", {"membershipId": str(dana.membership_id)})
    assert (person["name"], person["role"], person["status"]) == ("Dana Levi", "member", "active")
    for membership_id in (theirs.membership_id, uuid.uuid4()):
        assert (
            await _error(db, coach, "member", {"membershipId": str(membership_id)}) == "not_found"
        )
    assert await _error(db, coach, "member", {"membershipId": "nope"}) == "invalid_args"


async def test_coaches_are_the_coach_role_and_staff_assigned_to_sessions(
    db: Database, org: Org, clean_db: str
) -> None:
    add_person(clean_db, org, "Retired Coach", role="coach", status="suspended")
    with psycopg.connect(clean_db) as conn:
        conn.execute(
            "WITH t AS (INSERT INTO class_types (organization_id, name) VALUES (%s, 'WOD')"
            " RETURNING id), s AS (INSERT INTO class_sessions (organization_id, class_type_id,"
            " starts_at, ends_at) SELECT %s, id, now(), now() + interval '1 hour' FROM t"
            " RETURNING id) INSERT INTO class_session_coaches (organization_id, session_id,"
            " membership_id) SELECT %s, id, %s FROM s",
            (org.id, org.id, org.id, org["owner"].membership_id),
        )
    coach = await caller_for(db, org, "coach")
    coaches = await _read(db, coach, "coaches", {})
    assert {c["role"] for c in coaches["coaches"]} == {"coach", "owner"}
    assert len(coaches["coaches"]) == 2


async def test_programs_count_upcoming_workouts(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    program = await invoke_tool(
        db, owner, "programs", {"action": "create", "args": {"name": "Engine"}}
    )
    for day in ("2026-12-02", "2026-11-01"):
        created = await invoke_tool(
            db,
            owner,
            "workouts",
            {
                "action": "create",
                "args": {"title": f"Row {day}", "programId": program.output["id"], "date": day},
            },
        )
        assert created.ok, created.error
    now = datetime(2026, 11, 30, 8, tzinfo=UTC)
    outcome = await invoke_tool(db, owner, "read", {"action": "programs", "args": {}}, now=now)
    assert [(p["name"], p["upcoming"]) for p in outcome.output["programs"]] == [("Engine", 1)]


async def test_workouts_by_range_program_and_title(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    for title, day in (("Fran", "2026-12-01"), ("Grace", "2026-12-02"), ("Helen", "2026-12-09")):
        await invoke_tool(
            db, owner, "workouts", {"action": "create", "args": {"title": title, "date": day}}
        )
    week = await _read(db, owner, "workouts", {"from": "2026-12-01", "to": "2026-12-07"})
    assert [w["title"] for w in week["workouts"]] == ["Grace", "Fran"]
    assert "parts" not in week["workouts"][0]
    titled = await _read(db, owner, "workouts", {"query": "hele"})
    assert [w["title"] for w in titled["workouts"]] == ["Helen"]
    assert date.fromisoformat(titled["workouts"][0]["date"]) == date(2026, 12, 9)


async def test_exercises_match_names_aliases_and_hebrew(
    db: Database, org: Org, other_org: Org, clean_db: str
) -> None:
    add_exercise(clean_db, org, "Double-Under", "DU", "דאבל", category="conditioning")
    add_exercise(clean_db, org, "Toes-to-Bar", "T2B", category="core")
    add_exercise(clean_db, org, "Back Squat", "BS", "סקוואט", category="squat")
    add_exercise(clean_db, other_org, "Double Dutch", "DD")
    coach = await caller_for(db, org, "coach")
    for query, expected in (
        ("du", "Double-Under"),
        ("T2B", "Toes-to-Bar"),
        ("סקוואט", "Back Squat"),
        ("back squats", "Back Squat"),
        ("tos to bar", "Toes-to-Bar"),
        ("toes to", "Toes-to-Bar"),
        ("double unders", "Double-Under"),
    ):
        found = await _read(db, coach, "exercises", {"query": query})
        assert found["exercises"][0]["name"] == expected, query
    everything = await _read(db, coach, "exercises", {})
    assert [e["name"] for e in everything["exercises"]] == [
        "Back Squat",
        "Double-Under",
        "Toes-to-Bar",
    ]
    core = await _read(db, coach, "exercises", {"category": "core"})
    assert [e["name"] for e in core["exercises"]] == ["Toes-to-Bar"]


async def test_members_may_not_read(db: Database, org: Org) -> None:
    member = await caller_for(db, org, "member")
    for action in ("org", "coaches", "programs", "workouts", "exercises"):
        assert await _error(db, member, action, {}) == "forbidden", action
