"""daily_programming and session workouts: sessions inherit a class type's day unless they
carry their own list; set/clear/list/coverage, previews, undo, RBAC and tenancy."""

from __future__ import annotations

import uuid
from datetime import date

import pytest

from spotter.db import Database
from spotter.tools.errors import DomainError
from spotter.tools.invoke import preview_tool
from tests.support.callers import caller_for
from tests.support.schedule import (
    add_workout,
    audit_link,
    call,
    class_type,
    fails,
    ok,
    session,
    undo,
)
from tests.support.world import Org

R = "daily_programming"
DAY = date(2027, 1, 5)  # a Tuesday


async def test_sessions_inherit_the_day_unless_they_override(
    db: Database, org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, org, "owner")
    coach = await caller_for(db, org, "coach")
    crossfit = await class_type(db, owner)
    early = await session(db, owner, crossfit, DAY, "07:00")
    late = await session(db, owner, crossfit, DAY, "18:00")
    fran, cindy = add_workout(clean_db, org.id, "Fran"), add_workout(clean_db, org.id, "Cindy")
    day = {"classTypeId": crossfit, "day": DAY.isoformat()}
    assert (await ok(db, coach, "class_sessions", "get", {"sessionId": early}))["source"] == "none"
    set_out = await ok(db, coach, R, "set", {**day, "workoutIds": [fran]})
    assert (set_out["workouts"], set_out["sessions"]) == ([{"id": fran, "title": "Fran"}], 2)
    override = await ok(
        db, coach, "class_sessions", "set_workouts", {"sessionId": late, "workoutIds": [cindy]}
    )
    assert (override["source"], [w["title"] for w in override["workouts"]]) == (
        "session",
        ["Cindy"],
    )
    inherited = await ok(db, coach, "class_sessions", "get", {"sessionId": early})
    assert (inherited["source"], [w["title"] for w in inherited["workouts"]]) == ("daily", ["Fran"])
    assert (await ok(db, coach, R, "get", day))["overridden"] == 1
    # an empty override means "no workout for this one", not "inherit"
    rest = await ok(
        db, coach, "class_sessions", "set_workouts", {"sessionId": late, "workoutIds": []}
    )
    assert (rest["source"], rest["workouts"]) == ("session", [])
    back = await ok(db, coach, "class_sessions", "clear_workouts", {"sessionId": late})
    assert (back["source"], [w["title"] for w in back["workouts"]]) == ("daily", ["Fran"])
    await ok(db, coach, R, "clear", day)
    assert (await ok(db, coach, "class_sessions", "get", {"sessionId": early}))["source"] == "none"


async def test_set_preview_names_class_and_day_and_counts_inheriting_sessions(
    db: Database, org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, org, "owner")
    crossfit = await class_type(db, owner)
    first = await session(db, owner, crossfit, DAY, "07:00")
    await session(db, owner, crossfit, DAY, "18:00")
    murph = add_workout(clean_db, org.id, "Murph")
    await ok(
        db, owner, "class_sessions", "set_workouts", {"sessionId": first, "workoutIds": [murph]}
    )
    args = {"classTypeId": crossfit, "day": DAY.isoformat(), "workoutIds": [murph]}
    card = await preview_tool(db, owner, R, {"action": "set", "args": args})
    assert (card.target, card.affected_count) == ("CrossFit · Tue 5 Jan", 1)
    assert card.consequences == ["day_programming_replaced"]
    he = await caller_for(db, org, "owner", locale="he")
    assert (
        await preview_tool(db, he, R, {"action": "set", "args": args})
    ).target == "CrossFit · יום ג׳ 5 בינו׳"


async def test_set_undo_restores_the_previous_workouts(
    db: Database, org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, org, "owner")
    crossfit = await class_type(db, owner)
    fran, grace = add_workout(clean_db, org.id, "Fran"), add_workout(clean_db, org.id, "Grace")
    day = {"classTypeId": crossfit, "day": DAY.isoformat()}
    await ok(db, owner, R, "set", {**day, "workoutIds": [fran]})
    replaced = await call(db, owner, R, "set", {**day, "workoutIds": [grace, fran]})
    assert replaced.ok and [w["title"] for w in replaced.output["workouts"]] == ["Grace", "Fran"]
    reverted = await undo(db, owner, R, "set", replaced)
    assert reverted.ok
    assert [w["title"] for w in (await ok(db, owner, R, "get", day))["workouts"]] == ["Fran"]
    assert audit_link(clean_db, reverted.audit_log_id) == (
        "daily_programming.set",
        replaced.audit_log_id,
    )
    cleared = await call(db, owner, R, "clear", day)
    assert cleared.ok and cleared.output["workouts"] == []
    assert (await undo(db, owner, R, "clear", cleared)).ok
    assert [w["title"] for w in (await ok(db, owner, R, "get", day))["workouts"]] == ["Fran"]


async def test_list_and_coverage_show_programmed_days_and_gaps(
    db: Database, org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, org, "owner")
    crossfit, kids = await class_type(db, owner), await class_type(db, owner, "Kids")
    await session(db, owner, crossfit, DAY, "07:00")
    await session(db, owner, crossfit, date(2027, 1, 6), "07:00")
    kids_session = await session(db, owner, kids, DAY, "16:00")
    fran, games = add_workout(clean_db, org.id, "Fran"), add_workout(clean_db, org.id, "Games")
    await ok(
        db, owner, R, "set", {"classTypeId": crossfit, "day": "2027-01-05", "workoutIds": [fran]}
    )
    await ok(
        db,
        owner,
        "class_sessions",
        "set_workouts",
        {"sessionId": kids_session, "workoutIds": [games]},
    )
    week = {"days": {"first": "2027-01-04", "last": "2027-01-10"}}
    listed = await ok(db, owner, R, "list", week)
    assert [(d["classType"], d["date"]) for d in listed["days"]] == [("CrossFit", "2027-01-05")]
    cover = await ok(db, owner, R, "coverage", week)
    assert [
        (d["date"], d["classType"], d["sessions"], d["withWorkouts"]) for d in cover["days"]
    ] == [
        ("2027-01-05", "CrossFit", 1, 1),
        ("2027-01-05", "Kids", 1, 1),
        ("2027-01-06", "CrossFit", 1, 0),
    ]
    assert cover["gaps"] == 1


async def test_set_day_workouts_overrides_every_session_of_the_day(
    db: Database, org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, org, "owner")
    crossfit, barbell = await class_type(db, owner), await class_type(db, owner, "Barbell")
    a = await session(db, owner, crossfit, DAY, "07:00")
    b = await session(db, owner, barbell, DAY, "09:00")
    hero = add_workout(clean_db, org.id, "Hero WOD")
    args = {"day": DAY.isoformat(), "workoutIds": [hero]}
    card = await preview_tool(
        db, owner, "class_sessions", {"action": "set_day_workouts", "args": args}
    )
    assert (card.target, card.affected_count) == ("Tue 5 Jan", 2)
    out = await ok(db, owner, "class_sessions", "set_day_workouts", args)
    assert sorted(out["sessionIds"]) == sorted([a, b])
    got = await ok(db, owner, "class_sessions", "get", {"sessionId": b})
    assert (got["source"], got["workouts"][0]["title"]) == ("session", "Hero WOD")
    empty_day = {"day": "2027-01-09", "workoutIds": [hero]}
    assert await fails(db, owner, "class_sessions", "set_day_workouts", empty_day) == "conflict"


async def test_foreign_or_missing_workouts_and_class_types_are_not_found(
    db: Database, org: Org, other_org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, org, "owner")
    crossfit = await class_type(db, owner)
    sid = await session(db, owner, crossfit, DAY)
    theirs = add_workout(clean_db, other_org.id, "Theirs")
    their_type = await class_type(db, await caller_for(db, other_org, "owner"), "Theirs")
    for workout in (theirs, str(uuid.uuid4())):
        args = {"classTypeId": crossfit, "day": "2027-01-05", "workoutIds": [workout]}
        assert await fails(db, owner, R, "set", args) == "not_found"
        with pytest.raises(DomainError) as info:
            await preview_tool(db, owner, R, {"action": "set", "args": args})
        assert info.value.code == "not_found"
        override = {"sessionId": sid, "workoutIds": [workout]}
        assert await fails(db, owner, "class_sessions", "set_workouts", override) == "not_found"
    assert (
        await fails(db, owner, R, "get", {"classTypeId": their_type, "day": "2027-01-05"})
        == "not_found"
    )


async def test_roles_and_bad_arguments(db: Database, org: Org, clean_db: str) -> None:
    owner = await caller_for(db, org, "owner")
    crossfit = await class_type(db, owner)
    member = await caller_for(db, org, "member")
    day = {"classTypeId": crossfit, "day": "2027-01-05"}
    assert await fails(db, member, R, "get", day) == "forbidden"
    fran = add_workout(clean_db, org.id, "Fran")
    assert await fails(db, owner, R, "set", {**day, "workoutIds": [fran, fran]}) == "invalid_args"
    assert await fails(db, owner, R, "set", {**day, "workoutIds": [fran] * 11}) == "invalid_args"
    assert (
        await fails(db, owner, R, "get", {"classTypeId": crossfit, "day": "5/1/2027"})
        == "invalid_args"
    )
