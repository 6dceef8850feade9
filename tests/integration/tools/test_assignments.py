"""assignments router: groups, assigning to members and groups, overlap rules, undo, RBAC."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime
from typing import Any

import psycopg
import pytest

from spotter.auth import Caller
from spotter.db import Database
from spotter.tools.calls import ToolOutcome
from spotter.tools.catalog import load_catalog
from spotter.tools.errors import DomainError
from spotter.tools.invoke import invoke_tool, preview_tool
from tests.support.callers import caller_for
from tests.support.world import Org, add_person

ROUTER = "assignments"
# 10:00 UTC is noon in Jerusalem: "today" for the org is 2026-12-01.
NOW = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)
TODAY = "2026-12-01"


async def _call(db: Database, caller: Caller, action: str, args: dict[str, Any]) -> ToolOutcome:
    return await invoke_tool(db, caller, ROUTER, {"action": action, "args": args}, now=NOW)


async def _ok(db: Database, caller: Caller, action: str, args: dict[str, Any]) -> Any:
    outcome = await _call(db, caller, action, args)
    assert outcome.ok, outcome.error
    return outcome.output


def _error(outcome: ToolOutcome) -> str:
    assert outcome.error is not None, outcome.output
    return str(outcome.error.code)


async def _undo(db: Database, caller: Caller, action: str, output: dict[str, Any]) -> Any:
    inverse = load_catalog().specs[f"{ROUTER}.{action}"].inverse
    assert inverse is not None
    outcome = await invoke_tool(
        db,
        caller,
        inverse.router,
        {"action": inverse.action, "args": inverse.build_input(output)},
        now=NOW,
    )
    assert outcome.ok, outcome.error
    assert outcome.audit_log_id is not None
    return outcome.output


async def _preview(db: Database, caller: Caller, action: str, args: dict[str, Any]) -> Any:
    return await preview_tool(db, caller, ROUTER, {"action": action, "args": args}, now=NOW)


async def _program(db: Database, org: Org, name: str = "Engine") -> str:
    owner = await caller_for(db, org, "owner")
    outcome = await invoke_tool(db, owner, "programs", {"action": "create", "args": {"name": name}})
    assert outcome.ok, outcome.error
    return str(outcome.output["id"])


def _member(clean_db: str, org: Org, name: str, status: str = "active") -> str:
    return str(add_person(clean_db, org, name, status=status).membership_id)


def _statuses(clean_db: str) -> dict[tuple[str, str | None], str]:
    """(member name or group name, via group name) -> status, for every assignment row."""
    with psycopg.connect(clean_db) as conn:
        rows = conn.execute(
            "SELECT coalesce(u.full_name, g.name), pg.name, a.status FROM assignments a"
            " LEFT JOIN org_memberships m ON m.id = a.membership_id"
            " LEFT JOIN users u ON u.id = m.user_id"
            " LEFT JOIN member_groups g ON g.id = a.group_id"
            " LEFT JOIN assignments p ON p.id = a.parent_id"
            " LEFT JOIN member_groups pg ON pg.id = p.group_id"
        ).fetchall()
    return {(r[0], r[1]): r[2] for r in rows}


async def test_groups_create_get_list_and_rename_with_undo(
    db: Database, org: Org, clean_db: str
) -> None:
    coach = await caller_for(db, org, "coach")
    dana = _member(clean_db, org, "Dana Levi")
    created = await _ok(
        db,
        await caller_for(db, org, "owner"),
        "create_group",
        {"name": "Competition team", "memberIds": [dana]},
    )
    assert created["members"] == [{"id": dana, "name": "Dana Levi", "status": "active"}]
    listed = await _ok(db, coach, "list_groups", {"query": "comp"})
    assert listed["groups"] == [
        {"id": created["id"], "name": "Competition team", "memberCount": 1, "liveAssignments": 0}
    ]
    renamed = await _ok(db, coach, "rename_group", {"groupId": created["id"], "name": "Comp"})
    assert renamed["previousName"] == "Competition team"
    await _undo(db, coach, "rename_group", renamed)
    got = await _ok(db, coach, "get_group", {"groupId": created["id"]})
    assert got["name"] == "Competition team"
    owner = await caller_for(db, org, "owner")
    clash = await _call(db, owner, "create_group", {"name": "competition TEAM"})
    assert _error(clash) == "conflict"
    assert _error(await _call(db, coach, "create_group", {"name": "Evening"})) == "forbidden"


async def test_only_active_gym_members_join_groups_or_get_assignments(
    db: Database, org: Org, clean_db: str
) -> None:
    coach = await caller_for(db, org, "coach")
    program = await _program(db, org)
    suspended = _member(clean_db, org, "Sam Suspended", status="suspended")
    staff = str(org["admin"].membership_id)
    for member in (suspended, staff):
        grouped = await _call(
            db,
            await caller_for(db, org, "owner"),
            "create_group",
            {"name": "G", "memberIds": [member]},
        )
        assert _error(grouped) == "conflict"
        assigned = await _call(
            db, coach, "assign_program", {"programId": program, "assignee": {"memberId": member}}
        )
        assert _error(assigned) == "conflict"
    with psycopg.connect(clean_db) as conn:
        assert conn.execute("SELECT count(*) FROM member_groups").fetchone() == (0,)


async def test_assign_program_refuses_overlap_and_undo_cancels(
    db: Database, org: Org, clean_db: str
) -> None:
    coach = await caller_for(db, org, "coach")
    program = await _program(db, org)
    dana = _member(clean_db, org, "Dana Levi")
    first = await _ok(
        db,
        coach,
        "assign_program",
        {"programId": program, "assignee": {"memberId": dana}, "span": {"endsOn": "2026-12-31"}},
    )
    assert (first["subject"], first["memberName"], first["startsOn"], first["endsOn"]) == (
        "Engine",
        "Dana Levi",
        TODAY,
        "2026-12-31",
    )
    overlapping = {"startsOn": "2026-12-31", "endsOn": "2027-01-31"}
    clash = await _call(
        db,
        coach,
        "assign_program",
        {"programId": program, "assignee": {"memberId": dana}, "span": overlapping},
    )
    assert _error(clash) == "conflict"
    later = await _ok(
        db,
        coach,
        "assign_program",
        {"programId": program, "assignee": {"memberId": dana}, "span": {"startsOn": "2027-01-01"}},
    )
    assert "endsOn" not in later

    await _undo(db, coach, "assign_program", first)
    got = await _ok(db, coach, "get", {"assignmentId": first["id"]})
    assert got["status"] == "cancelled"
    live = await _ok(db, coach, "list_for_member", {"memberId": dana})
    assert [a["id"] for a in live["assignments"]] == [later["id"]]
    with psycopg.connect(clean_db) as conn:
        audit = conn.execute(
            "SELECT action, resource_id FROM audit_logs WHERE action = 'assignment.cancelled'"
        ).fetchall()
    assert audit == [("assignment.cancelled", None)]


async def test_the_database_refuses_overlap_too(db: Database, org: Org, clean_db: str) -> None:
    program = await _program(db, org)
    dana = _member(clean_db, org, "Dana Levi")
    insert = (
        "INSERT INTO assignments (organization_id, program_id, membership_id, starts_on, ends_on)"
        " VALUES (%s, %s, %s, %s, %s)"
    )
    with psycopg.connect(clean_db) as conn:
        conn.execute(insert, (org.id, program, dana, date(2026, 12, 1), None))
        with pytest.raises(psycopg.errors.ExclusionViolation):
            conn.execute(insert, (org.id, program, dana, date(2027, 3, 1), date(2027, 3, 2)))


async def test_group_assignment_reaches_members_and_follows_membership(
    db: Database, org: Org, clean_db: str
) -> None:
    coach = await caller_for(db, org, "coach")
    program = await _program(db, org)
    dana, noa, omer = (_member(clean_db, org, n) for n in ("Dana Levi", "Noa Cohen", "Omer Bar"))
    group = await _ok(
        db,
        await caller_for(db, org, "owner"),
        "create_group",
        {"name": "Comp", "memberIds": [dana, noa]},
    )
    # Noa already follows the program herself: the group's copy skips her.
    await _ok(db, coach, "assign_program", {"programId": program, "assignee": {"memberId": noa}})
    assigned = await _ok(
        db, coach, "assign_program", {"programId": program, "assignee": {"groupId": group["id"]}}
    )
    assert assigned["skippedMemberIds"] == [noa]
    assert (assigned["groupName"], assigned["memberCount"]) == ("Comp", 1)
    danas = await _ok(db, coach, "list_for_member", {"memberId": dana})
    assert [(a["subject"], a["viaGroup"]) for a in danas["assignments"]] == [("Engine", "Comp")]

    again = await _ok(db, coach, "add_members", {"groupId": group["id"], "memberIds": [dana]})
    assert again["added"] == []
    await _undo(db, coach, "add_members", again)  # a no-op, undone as one
    assert _statuses(clean_db)[("Dana Levi", "Comp")] == "active"
    added = await _ok(db, coach, "add_members", {"groupId": group["id"], "memberIds": [omer]})
    assert added["added"] == [omer]
    assert _statuses(clean_db)[("Omer Bar", "Comp")] == "active"
    await _undo(db, coach, "add_members", added)
    assert _statuses(clean_db)[("Omer Bar", "Comp")] == "ended"

    removed = await _ok(db, coach, "remove_members", {"groupId": group["id"], "memberIds": [dana]})
    assert removed["removed"] == [dana]
    after = await _ok(db, coach, "list_for_member", {"memberId": dana, "includeEnded": True})
    assert [(a["status"], a["endsOn"]) for a in after["assignments"]] == [("ended", TODAY)]
    by_program = await _ok(db, coach, "list_for_program", {"programId": program})
    assert sorted(a.get("memberName") or a["groupName"] for a in by_program["assignments"]) == [
        "Comp",
        "Noa Cohen",
    ]
    by_group = await _ok(db, coach, "list_for_group", {"groupId": group["id"]})
    assert [a["id"] for a in by_group["assignments"]] == [assigned["id"]]


async def test_pause_resume_cascade_and_copies_cannot_be_changed_alone(
    db: Database, org: Org, clean_db: str
) -> None:
    coach = await caller_for(db, org, "coach")
    program = await _program(db, org)
    dana = _member(clean_db, org, "Dana Levi")
    group = await _ok(
        db,
        await caller_for(db, org, "owner"),
        "create_group",
        {"name": "Comp", "memberIds": [dana]},
    )
    assigned = await _ok(
        db, coach, "assign_program", {"programId": program, "assignee": {"groupId": group["id"]}}
    )
    paused = await _ok(db, coach, "pause", {"assignmentId": assigned["id"]})
    assert paused["status"] == "paused"
    assert _statuses(clean_db)[("Dana Levi", "Comp")] == "paused"
    assert _error(await _call(db, coach, "pause", {"assignmentId": assigned["id"]})) == "conflict"
    await _undo(db, coach, "pause", paused)
    assert _statuses(clean_db)[("Dana Levi", "Comp")] == "active"

    copy = (await _ok(db, coach, "list_for_member", {"memberId": dana}))["assignments"][0]
    for action in ("pause", "end"):
        assert _error(await _call(db, coach, action, {"assignmentId": copy["id"]})) == "conflict"


async def test_end_previews_names_and_ends_today(db: Database, org: Org, clean_db: str) -> None:
    coach = await caller_for(db, org, "coach")
    program = await _program(db, org)
    dana = _member(clean_db, org, "Dana Levi")
    assigned = await _ok(
        db,
        coach,
        "assign_program",
        {"programId": program, "assignee": {"memberId": dana}, "span": {"startsOn": "2026-11-01"}},
    )
    card = await _preview(db, coach, "end", {"assignmentId": assigned["id"]})
    assert (card.target, card.affected_count) == ("Engine → Dana Levi", 1)
    assert card.consequences == ["ends_assignment"]
    later = await _ok(db, coach, "end", {"assignmentId": assigned["id"], "on": "2026-12-20"})
    assert (later["status"], later["endsOn"]) == ("active", "2026-12-20")
    ended = await _ok(db, coach, "end", {"assignmentId": assigned["id"]})
    assert (ended["status"], ended["endsOn"]) == ("ended", TODAY)
    assert _error(await _call(db, coach, "end", {"assignmentId": assigned["id"]})) == "conflict"
    future = await _ok(
        db,
        coach,
        "assign_program",
        {"programId": program, "assignee": {"memberId": dana}, "span": {"startsOn": "2027-01-01"}},
    )
    assert _error(await _call(db, coach, "end", {"assignmentId": future["id"]})) == "conflict"


async def test_reschedule_checks_overlap_and_undoes(db: Database, org: Org, clean_db: str) -> None:
    coach = await caller_for(db, org, "coach")
    program = await _program(db, org)
    dana = _member(clean_db, org, "Dana Levi")
    target = {"memberId": dana}
    first = await _ok(
        db,
        coach,
        "assign_program",
        {"programId": program, "assignee": target, "span": {"endsOn": "2026-12-31"}},
    )
    await _ok(
        db,
        coach,
        "assign_program",
        {"programId": program, "assignee": target, "span": {"startsOn": "2027-02-01"}},
    )
    clash = await _call(
        db,
        coach,
        "reschedule",
        {"assignmentId": first["id"], "startsOn": "2027-01-01", "endsOn": "2027-02-10"},
    )
    assert _error(clash) == "conflict"
    moved = await _ok(
        db,
        coach,
        "reschedule",
        {"assignmentId": first["id"], "startsOn": "2026-12-10", "endsOn": "2027-01-31"},
    )
    assert (moved["startsOn"], moved["endsOn"]) == ("2026-12-10", "2027-01-31")
    back = await _undo(db, coach, "reschedule", moved)
    assert (back["startsOn"], back["endsOn"]) == (TODAY, "2026-12-31")


async def test_bulk_assign_skips_members_on_it_and_undo_cancels_the_rest(
    db: Database, org: Org, clean_db: str
) -> None:
    coach = await caller_for(db, org, "coach")
    program = await _program(db, org)
    dana, noa, omer = (_member(clean_db, org, n) for n in ("Dana Levi", "Noa Cohen", "Omer Bar"))
    await _ok(db, coach, "assign_program", {"programId": program, "assignee": {"memberId": noa}})
    bulk = await _ok(
        db, coach, "bulk_assign", {"programId": program, "memberIds": [dana, noa, omer]}
    )
    assert (len(bulk["assignmentIds"]), bulk["skippedMemberIds"]) == (2, [noa])
    await _undo(db, coach, "bulk_assign", bulk)
    statuses = _statuses(clean_db)
    assert (statuses[("Dana Levi", None)], statuses[("Noa Cohen", None)]) == (
        "cancelled",
        "active",
    )


async def test_assign_workout_defaults_to_its_date(db: Database, org: Org, clean_db: str) -> None:
    coach = await caller_for(db, org, "coach")
    program = await _program(db, org)
    dana = _member(clean_db, org, "Dana Levi")
    with psycopg.connect(clean_db) as conn:
        row = conn.execute(
            "INSERT INTO workouts (organization_id, program_id, scheduled_on, title)"
            " VALUES (%s, %s, '2026-12-04', 'Fran') RETURNING id",
            (org.id, program),
        ).fetchone()
    assert row is not None
    args = {"workoutId": str(row[0]), "assignee": {"memberId": dana}}
    out = await _ok(db, coach, "assign_workout", args)
    assert (out["subject"], out["startsOn"], out["endsOn"]) == ("Fran", "2026-12-04", "2026-12-04")
    assert _error(await _call(db, coach, "assign_workout", args)) == "conflict"
    await _undo(db, coach, "assign_workout", out)
    assert (await _ok(db, coach, "assign_workout", args))["status"] == "active"

    owner = await caller_for(db, org, "owner")
    noa = _member(clean_db, org, "Noa Cohen")
    group = await _ok(db, owner, "create_group", {"name": "Comp", "memberIds": [dana, noa]})
    to_group = {"workoutId": args["workoutId"], "assignee": {"groupId": group["id"]}, "on": TODAY}
    grouped = await _ok(db, coach, "assign_workout", to_group)
    assert (grouped["startsOn"], grouped["memberCount"]) == (TODAY, 2)
    noas = await _ok(db, coach, "list_for_member", {"memberId": noa})
    assert [(a["subject"], a["viaGroup"]) for a in noas["assignments"]] == [("Fran", "Comp")]


async def test_delete_group_is_destructive_for_managers_and_ends_its_work(
    db: Database, org: Org, clean_db: str
) -> None:
    coach = await caller_for(db, org, "coach")
    owner = await caller_for(db, org, "owner")
    program = await _program(db, org)
    dana = _member(clean_db, org, "Dana Levi")
    group = await _ok(
        db,
        await caller_for(db, org, "owner"),
        "create_group",
        {"name": "Comp", "memberIds": [dana]},
    )
    await _ok(
        db,
        coach,
        "assign_program",
        {"programId": program, "assignee": {"groupId": group["id"]}, "span": {"startsOn": TODAY}},
    )
    assert _error(await _call(db, coach, "delete_group", {"groupId": group["id"]})) == "forbidden"
    card = await _preview(db, owner, "delete_group", {"groupId": group["id"]})
    assert (card.target, card.affected_count) == ("Comp", 1)
    assert card.consequences == ["group_deleted", "ends_active_assignments"]
    out = await _ok(db, owner, "delete_group", {"groupId": group["id"]})
    assert out["endedAssignments"] == 2
    assert set(_statuses(clean_db).values()) == {"ended"}
    assert _error(await _call(db, owner, "get_group", {"groupId": group["id"]})) == "not_found"


async def test_create_group_undo_deletes_it(db: Database, org: Org) -> None:
    coach = await caller_for(db, org, "coach")
    group = await _ok(
        db, await caller_for(db, org, "owner"), "create_group", {"name": "Morning crew"}
    )
    await _undo(db, await caller_for(db, org, "owner"), "create_group", group)
    assert (await _ok(db, coach, "list_groups", {}))["groups"] == []


async def test_set_members_previews_names_replaces_and_undoes(
    db: Database, org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, org, "owner")
    program = await _program(db, org)
    dana, noa, omer = (_member(clean_db, org, n) for n in ("Dana Levi", "Noa Cohen", "Omer Bar"))
    group = await _ok(db, owner, "create_group", {"name": "Comp", "memberIds": [dana, noa]})
    # Starts next month: Dana's copy never started, so leaving cancels it rather than ending it.
    await _ok(
        db,
        owner,
        "assign_program",
        {
            "programId": program,
            "assignee": {"groupId": group["id"]},
            "span": {"startsOn": "2027-01-01"},
        },
    )
    args = {"groupId": group["id"], "memberIds": [noa, omer]}
    card = await _preview(db, owner, "set_members", args)
    assert (card.target, card.affected_count) == ("Comp", 2)
    assert card.consequences == ["replaces_group_members", "ends_group_assignments"]
    assert card.changes == [
        {
            "field": "members",
            "old": ["Dana Levi", "Noa Cohen"],
            "new": ["Noa Cohen", "Omer Bar"],
            "removed": ["Dana Levi"],
            "added": ["Omer Bar"],
        }
    ]
    assert dana not in str(card.model_dump(exclude={"arguments"}))

    out = await _ok(db, owner, "set_members", args)
    assert sorted(m["name"] for m in out["members"]) == ["Noa Cohen", "Omer Bar"]
    statuses = _statuses(clean_db)
    assert (statuses[("Dana Levi", "Comp")], statuses[("Omer Bar", "Comp")]) == (
        "cancelled",
        "active",
    )
    await _undo(db, owner, "set_members", out)
    got = await _ok(db, owner, "get_group", {"groupId": group["id"]})
    assert sorted(m["name"] for m in got["members"]) == ["Dana Levi", "Noa Cohen"]
    coach = await caller_for(db, org, "coach")
    assert _error(await _call(db, coach, "set_members", args)) == "forbidden"


async def test_unassign_preview_names_the_assignment(db: Database, org: Org, clean_db: str) -> None:
    coach = await caller_for(db, org, "coach")
    program = await _program(db, org)
    dana = _member(clean_db, org, "Dana Levi")
    assigned = await _ok(
        db, coach, "assign_program", {"programId": program, "assignee": {"memberId": dana}}
    )
    card = await _preview(db, coach, "unassign", {"assignmentIds": [assigned["id"]]})
    assert (card.target, card.affected_count) == ("Engine → Dana Levi", 1)
    assert card.consequences == ["cancels_assignments"]
    assert card.arguments == [{"field": "assignmentIds", "value": [assigned["id"]]}]


async def test_foreign_org_ids_are_not_found(
    db: Database, org: Org, other_org: Org, clean_db: str
) -> None:
    their_coach = await caller_for(db, other_org, "coach")
    their_member = _member(clean_db, other_org, "Their Member")
    their_program = await _program(db, other_org, "Theirs")
    their_group = await _ok(
        db, await caller_for(db, other_org, "owner"), "create_group", {"name": "Theirs"}
    )
    theirs = await _ok(
        db,
        their_coach,
        "assign_program",
        {"programId": their_program, "assignee": {"memberId": their_member}},
    )
    coach = await caller_for(db, org, "coach")
    program = await _program(db, org)
    dana = _member(clean_db, org, "Dana Levi")
    my_group = await _ok(db, await caller_for(db, org, "owner"), "create_group", {"name": "Mine"})
    for action, args in (
        ("get_group", {"groupId": their_group["id"]}),
        ("rename_group", {"groupId": their_group["id"], "name": "Mine too"}),
        ("add_members", {"groupId": my_group["id"], "memberIds": [their_member]}),
        ("remove_members", {"groupId": my_group["id"], "memberIds": [their_member]}),
        ("assign_program", {"programId": their_program, "assignee": {"memberId": dana}}),
        ("assign_program", {"programId": program, "assignee": {"memberId": their_member}}),
        ("assign_program", {"programId": program, "assignee": {"groupId": their_group["id"]}}),
        ("assign_workout", {"workoutId": str(uuid.uuid4()), "assignee": {"memberId": dana}}),
        ("bulk_assign", {"programId": program, "memberIds": [dana, their_member]}),
        ("get", {"assignmentId": theirs["id"]}),
        ("pause", {"assignmentId": theirs["id"]}),
        ("reschedule", {"assignmentId": theirs["id"], "startsOn": TODAY}),
        ("unassign", {"assignmentIds": [theirs["id"]]}),
        ("list_for_member", {"memberId": their_member}),
        ("list_for_program", {"programId": their_program}),
        ("list_for_group", {"groupId": their_group["id"]}),
    ):
        assert _error(await _call(db, coach, action, args)) == "not_found", action
    owner = await caller_for(db, org, "owner")
    for action, args in (
        ("delete_group", {"groupId": their_group["id"]}),
        ("set_members", {"groupId": their_group["id"], "memberIds": []}),
        ("unassign", {"assignmentIds": [theirs["id"]]}),
        ("end", {"assignmentId": theirs["id"]}),
    ):
        with pytest.raises(DomainError) as info:
            await _preview(db, owner, action, args)
        assert info.value.code == "not_found", action
    assert _statuses(clean_db)[("Their Member", None)] == "active"


async def test_bad_args_are_invalid_args(db: Database, org: Org) -> None:
    coach = await caller_for(db, org, "coach")
    program = str(uuid.uuid4())
    member = str(org["member"].membership_id)
    for action, args in (
        ("assign_program", {"programId": program, "assignee": {}}),
        ("assign_program", {"programId": program,
                            "assignee": {"memberId": member, "groupId": member}}),
        ("assign_program", {"programId": program, "assignee": {"memberId": member},
                            "span": {"startsOn": "2026-12-09", "endsOn": "2026-12-01"}}),
        ("assign_program", {"programId": program, "assignee": {"memberId": member},
                            "span": {"endsOn": "2026-11-01"}}),
        ("bulk_assign", {"programId": program, "memberIds": []}),
        ("rename_group", {"groupId": program, "name": ""}),
        ("reschedule", {"assignmentId": program, "startsOn": "2026-12-09",
                        "endsOn": "2026-12-01"}),
    ):  # fmt: skip
        assert _error(await _call(db, coach, action, args)) == "invalid_args", args


async def test_members_have_no_assignment_tools(db: Database, org: Org) -> None:
    member = await caller_for(db, org, "member")
    assert _error(await _call(db, member, "list_groups", {})) == "forbidden"


def test_whoever_may_call_a_tool_may_undo_it() -> None:
    catalog = load_catalog()
    for spec in catalog.specs.values():
        if spec.router == ROUTER and spec.inverse is not None:
            inverse = catalog.specs[f"{spec.inverse.router}.{spec.inverse.action}"]
            assert spec.roles <= inverse.roles, spec.name
            assert inverse.feature_gate == spec.feature_gate, spec.name
