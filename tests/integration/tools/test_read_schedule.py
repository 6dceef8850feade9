"""read.schedule, read.class_types and read.session: the schedule as staff look it up."""

from __future__ import annotations

import uuid
from datetime import date

from spotter.db import Database
from tests.support.callers import caller_for
from tests.support.schedule import add_workout, class_type, fails, ok, session, today
from tests.support.world import Org, add_person


async def test_schedule_lists_a_local_range_with_coaches_and_counts(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    coach = await caller_for(db, org, "coach")
    crossfit = await class_type(db, owner, capacity=8)
    coach_id = str(org["coach"].membership_id)
    # 00:30 local on the 5th is still the 4th in UTC: the range is local days, not UTC days.
    night = await session(db, owner, crossfit, date(2027, 1, 5), "00:30", coachIds=[coach_id])
    await session(db, owner, crossfit, date(2027, 1, 6), "07:00", publish=False)
    await session(db, owner, crossfit, date(2027, 1, 4), "23:00")
    out = await ok(
        db, coach, "read", "schedule", {"days": {"first": "2027-01-05", "last": "2027-01-06"}}
    )
    assert out["timezone"] == "Asia/Jerusalem"
    assert [(s["date"], s["start"], s["status"]) for s in out["sessions"]] == [
        ("2027-01-05", "00:30", "published"),
        ("2027-01-06", "07:00", "draft"),
    ]
    first = out["sessions"][0]
    assert first["id"] == night and first["classType"] == "CrossFit"
    assert first["coaches"] == [
        {"id": coach_id, "name": "Coach " + org["coach"].clerk_user_id.rsplit("_", 1)[1]}
    ]
    assert (first["booked"], first["capacity"]) == (0, 8)


async def test_session_shows_roster_and_workouts(db: Database, org: Org, clean_db: str) -> None:
    owner = await caller_for(db, org, "owner")
    crossfit = await class_type(db, owner, capacity=5)
    # a session still ahead whatever today is: booking refuses one that has started
    day = today(7)
    sid = await session(db, owner, crossfit, day, "07:00")
    saar = add_person(clean_db, org, "Saar Levi")
    await ok(db, owner, "bookings", "book", {"sessionId": sid, "memberId": str(saar.membership_id)})
    fran = add_workout(clean_db, org.id, "Fran")
    await ok(db, owner, "daily_programming", "set",
             {"classTypeId": crossfit, "day": day.isoformat(), "workoutIds": [fran]})  # fmt: skip
    out = await ok(db, owner, "read", "session", {"sessionId": sid})
    assert out["roster"] == [
        {"memberId": str(saar.membership_id), "name": "Saar Levi", "status": "booked"}
    ]
    assert (out["source"], out["workouts"], out["booked"]) == (
        "daily",
        [{"id": fran, "title": "Fran"}],
        1,
    )


async def test_foreign_session_is_not_found_and_members_cannot_read_the_schedule(
    db: Database, org: Org, other_org: Org
) -> None:
    theirs_owner = await caller_for(db, other_org, "owner")
    theirs = await session(db, theirs_owner, await class_type(db, theirs_owner), date(2027, 1, 5))
    owner = await caller_for(db, org, "owner")
    for sid in (theirs, str(uuid.uuid4())):
        assert await fails(db, owner, "read", "session", {"sessionId": sid}) == "not_found"
    assert (await ok(db, owner, "read", "class_types", {}))["classTypes"] == []
    listed = await ok(db, owner, "read", "schedule", {"days": {"first": "2027-01-05"}})
    assert listed["sessions"] == []
    member = await caller_for(db, org, "member")
    assert (
        await fails(db, member, "read", "schedule", {"days": {"first": "2027-01-05"}})
        == "forbidden"
    )
    assert await fails(db, owner, "read", "schedule", {"days": {}}) == "invalid_args"
