"""class_types and class_sessions: local time and DST, overlaps, drafts and publishing, bulk
creation and copying, cancel/delete/restore, coaches, previews, RBAC, tenancy and undo."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, time, timedelta

import psycopg
import pytest

from spotter.db import Database
from spotter.tools.errors import DomainError
from spotter.tools.invoke import preview_tool
from tests.support.callers import caller_for
from tests.support.schedule import (
    TZ,
    audit_link,
    call,
    class_type,
    fails,
    ok,
    session,
    today,
    undo,
)
from tests.support.world import Org, add_person, create_org

R = "class_sessions"


def utc_start(owner_url: str, session_id: str) -> datetime:
    with psycopg.connect(owner_url) as conn:
        row = conn.execute(
            "SELECT starts_at FROM class_sessions WHERE id = %s", (session_id,)
        ).fetchone()
    assert row is not None
    return row[0].astimezone(UTC)  # type: ignore[no-any-return]


# --- class types ------------------------------------------------------------------------------


async def test_class_type_create_uses_defaults_and_refuses_duplicates(
    db: Database, org: Org
) -> None:
    owner = await caller_for(db, org, "owner")
    created = await ok(db, owner, "class_types", "create", {"name": "Open Gym"})
    assert (created["minutes"], created["capacity"]) == (60, None)
    assert await fails(db, owner, "class_types", "create", {"name": "open gym"}) == "conflict"
    assert await fails(db, owner, "class_types", "create", {"name": ""}) == "invalid_args"
    coach = await caller_for(db, org, "coach")
    assert await fails(db, coach, "class_types", "create", {"name": "Kids"}) == "forbidden"
    listed = await ok(db, owner, "read", "class_types", {})
    assert [t["name"] for t in listed["classTypes"]] == ["Open Gym"]


# --- creating and local time ------------------------------------------------------------------


async def test_create_stores_utc_and_answers_in_local_time(
    db: Database, org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, org, "owner")
    ct = await class_type(db, owner, capacity=12)
    day = today(3)
    created = await ok(
        db,
        owner,
        R,
        "create",
        {"classTypeId": ct, "slot": {"day": day.isoformat(), "start": "18:30"}, "location": "Hall"},
    )
    assert (created["date"], created["start"], created["end"]) == (
        day.isoformat(),
        "18:30",
        "19:30",
    )
    assert (created["status"], created["capacity"], created["location"]) == ("draft", 12, "Hall")
    expected = datetime.combine(day, datetime.strptime("18:30", "%H:%M").time(), tzinfo=TZ)
    assert utc_start(clean_db, created["id"]) == expected.astimezone(UTC)


async def test_create_many_keeps_wall_clock_time_across_the_dst_change(
    db: Database, org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, org, "owner")
    ct = await class_type(db, owner)
    # Israel starts summer time on the Friday before the last Sunday of March (26 Mar 2027).
    out = await ok(
        db,
        owner,
        R,
        "create_many",
        {
            "classTypeId": ct,
            "days": {"first": "2027-03-24", "last": "2027-03-28"},
            "times": ["07:00"],
        },
    )
    assert len(out["sessionIds"]) == 5
    starts = [utc_start(clean_db, sid) for sid in out["sessionIds"]]
    assert [s.hour for s in starts] == [5, 5, 4, 4, 4]  # UTC+2, then UTC+3
    listed = await ok(db, owner, R, "list", {"days": {"first": "2027-03-24", "last": "2027-03-28"}})
    assert {s["start"] for s in listed["sessions"]} == {"07:00"}
    skipped_time = {"classTypeId": ct, "slot": {"day": "2027-03-26", "start": "02:30"}}
    assert await fails(db, owner, R, "create", skipped_time) == "invalid_time"
    # copying a winter week into summer keeps 07:00 on the wall clock
    copied = await ok(
        db, owner, R, "copy_week", {"sourceStart": "2027-03-22", "targetStart": "2027-03-29"}
    )
    assert {utc_start(clean_db, sid).hour for sid in copied["sessionIds"]} == {4}


async def test_local_time_is_the_org_timezone(clean_db: str, db: Database) -> None:
    new_york = create_org(clean_db, name="NYC Box", timezone="America/New_York")
    owner = await caller_for(db, new_york, "owner")
    ct = await class_type(db, owner)
    slot = {"classTypeId": ct, "slot": {"day": "2027-01-05", "start": "07:00"}}
    created = await ok(db, owner, R, "create", slot)
    assert utc_start(clean_db, created["id"]) == datetime(2027, 1, 5, 12, 0, tzinfo=UTC)
    assert (created["date"], created["start"]) == ("2027-01-05", "07:00")


async def test_create_many_picks_weekdays_and_skips_existing(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    ct = await class_type(db, owner)
    args = {
        "classTypeId": ct,
        "days": {"first": "2027-01-04", "last": "2027-01-15"},  # Mon 4 .. Fri 15 Jan
        "weekdays": ["mon", "wed", "fri"],
        "times": ["07:00", "18:00"],
        "minutes": 45,
    }
    first = await ok(db, owner, R, "create_many", args)
    assert (len(first["sessionIds"]), first["skipped"]) == (12, 0)
    again = await ok(db, owner, R, "create_many", args)
    assert (again["sessionIds"], again["skipped"]) == ([], 12)
    one = await ok(db, owner, R, "get", {"sessionId": first["sessionIds"][0]})
    assert (one["date"], one["start"], one["end"]) == ("2027-01-04", "07:00", "07:45")
    too_long = {**args, "days": {"first": "2027-01-01", "last": "2027-03-01"}}
    assert await fails(db, owner, R, "create_many", too_long) == "invalid_args"


async def test_overlaps_are_refused_for_a_coach_a_location_and_the_same_class(
    db: Database, org: Org
) -> None:
    owner = await caller_for(db, org, "owner")
    crossfit, barbell = await class_type(db, owner), await class_type(db, owner, "Barbell")
    coach = str(org["coach"].membership_id)
    day = today(2).isoformat()
    await ok(
        db,
        owner,
        R,
        "create",
        {
            "classTypeId": crossfit,
            "slot": {"day": day, "start": "07:00"},
            "coachIds": [coach],
            "location": "Main floor",
        },
    )
    same_coach = {
        "classTypeId": barbell,
        "slot": {"day": day, "start": "07:30"},
        "coachIds": [coach],
    }
    same_room = {
        "classTypeId": barbell,
        "slot": {"day": day, "start": "07:30"},
        "location": "main floor",
    }
    same_class = {"classTypeId": crossfit, "slot": {"day": day, "start": "07:00"}}
    for args in (same_coach, same_room, same_class):
        assert await fails(db, owner, R, "create", args) == "conflict"
    after = {"classTypeId": barbell, "slot": {"day": day, "start": "08:00"}, "coachIds": [coach]}
    assert (await ok(db, owner, R, "create", after))["coaches"][0]["id"] == coach


async def test_only_staff_can_coach(db: Database, org: Org, clean_db: str) -> None:
    owner = await caller_for(db, org, "owner")
    ct = await class_type(db, owner)
    member = add_person(clean_db, org, "Saar Cohen")
    args = {"classTypeId": ct, "slot": {"day": today(1).isoformat(), "start": "07:00"},
            "coachIds": [str(member.membership_id)]}  # fmt: skip
    assert await fails(db, owner, R, "create", args) == "invalid_args"


# --- copying ----------------------------------------------------------------------------------


async def test_replicate_day_and_copy_week_copy_time_and_coaches_as_drafts(
    db: Database, org: Org
) -> None:
    owner = await caller_for(db, org, "owner")
    ct = await class_type(db, owner)
    coach = str(org["coach"].membership_id)
    monday = date(2027, 1, 4)
    await session(db, owner, ct, monday, "07:00", coachIds=[coach])
    await session(db, owner, ct, monday, "18:00", publish=False)
    copied = await ok(
        db,
        owner,
        R,
        "replicate_day",
        {"source": "2027-01-04", "targets": ["2027-01-05", "2027-01-06"]},
    )
    assert (len(copied["sessionIds"]), copied["skipped"]) == (4, 0)
    tuesday = await ok(db, owner, R, "list", {"days": {"first": "2027-01-05"}})
    assert [(s["start"], s["status"]) for s in tuesday["sessions"]] == [
        ("07:00", "draft"),
        ("18:00", "draft"),
    ]
    assert tuesday["sessions"][0]["coaches"][0]["id"] == coach
    week = await ok(
        db, owner, R, "copy_week", {"sourceStart": "2027-01-04", "targetStart": "2027-01-11"}
    )
    assert (len(week["sessionIds"]), week["skipped"]) == (6, 0)
    bad = {"sourceStart": "2027-01-04", "targetStart": "2027-01-12"}
    assert await fails(db, owner, R, "copy_week", bad) == "invalid_args"


async def test_duplicate_keeps_length_and_undo_deletes_the_copy(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    ct = await class_type(db, owner)
    source = await ok(
        db, owner, R, "create",
        {"classTypeId": ct, "slot": {"day": "2027-01-04", "start": "07:00", "minutes": 90}},
    )  # fmt: skip
    outcome = await call(
        db, owner, R, "duplicate",
        {"sessionId": source["id"], "slot": {"day": "2027-01-05", "start": "09:00"}},
    )  # fmt: skip
    assert outcome.ok and outcome.output["end"] == "10:30"
    assert (await undo(db, owner, R, "duplicate", outcome)).ok
    assert await fails(db, owner, R, "get", {"sessionId": outcome.output["id"]}) == "not_found"


# --- publishing, cancelling, deleting ---------------------------------------------------------


async def test_publish_preview_names_sessions_and_publish_range_publishes_drafts(
    db: Database, org: Org
) -> None:
    owner = await caller_for(db, org, "owner")
    ct = await class_type(db, owner)
    draft = await session(db, owner, ct, date(2027, 1, 5), "07:00", publish=False)
    card = await preview_tool(db, owner, R, {"action": "publish", "args": {"sessionIds": [draft]}})
    assert card.target == "CrossFit · Tue 5 Jan 07:00"
    assert card.affected_count == 1 and "members_can_book" in card.consequences
    await session(db, owner, ct, date(2027, 1, 6), "07:00", publish=False)
    range_args = {"days": {"first": "2027-01-04", "last": "2027-01-10"}}
    card = await preview_tool(db, owner, R, {"action": "publish_range", "args": range_args})
    assert card.affected_count == 2 and "CrossFit · Wed 6 Jan 07:00" in (card.target or "")
    out = await ok(db, owner, R, "publish_range", range_args)
    assert len(out["sessionIds"]) == 2
    assert await fails(db, owner, R, "publish_range", range_args) == "conflict"


async def test_publish_undo_unpublishes_and_links_audit_rows(
    db: Database, org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, org, "owner")
    ct = await class_type(db, owner)
    draft = await session(db, owner, ct, today(4), publish=False)
    published = await call(db, owner, R, "publish", {"sessionIds": [draft]})
    assert published.ok
    reverted = await undo(db, owner, R, "publish", published)
    assert reverted.ok
    assert (await ok(db, owner, R, "get", {"sessionId": draft}))["status"] == "draft"
    assert audit_link(clean_db, reverted.audit_log_id) == (
        "class_session.unpublished",
        published.audit_log_id,
    )


async def test_create_undo_soft_deletes_with_a_linked_audit_row(
    db: Database, org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, org, "owner")
    ct = await class_type(db, owner)
    created = await call(
        db, owner, R, "create", {"classTypeId": ct, "slot": {"day": "2027-02-01", "start": "07:00"}}
    )
    assert created.ok
    reverted = await undo(db, owner, R, "create", created)
    assert reverted.ok
    assert await fails(db, owner, R, "get", {"sessionId": created.output["id"]}) == "not_found"
    with psycopg.connect(clean_db) as conn:
        row = conn.execute(
            "SELECT deleted_at IS NOT NULL FROM class_sessions WHERE id = %s",
            (created.output["id"],),
        ).fetchone()
    assert row == (True,)  # soft: the row stays
    assert audit_link(clean_db, reverted.audit_log_id) == (
        "class_session.deleted",
        created.audit_log_id,
    )
    other = await session(db, owner, ct, date(2027, 2, 2), publish=False)
    card = await preview_tool(db, owner, R, {"action": "delete", "args": {"sessionIds": [other]}})
    assert (card.target, card.affected_count) == ("CrossFit · Tue 2 Feb 07:00", 1)
    assert card.consequences == ["session_removed"]
    restored = await undo(db, owner, R, "delete", reverted)
    assert restored.ok
    assert (await ok(db, owner, R, "get", {"sessionId": created.output["id"]}))["status"] == "draft"


async def test_cancel_preview_counts_bookings_and_cancel_releases_them(
    db: Database, org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, org, "owner")
    ct = await class_type(db, owner, capacity=1)
    sid = await session(db, owner, ct, today(2))
    saar, dana = add_person(clean_db, org, "Saar Cohen"), add_person(clean_db, org, "Dana Tal")
    await ok(db, owner, "bookings", "adjust_credits",
             {"memberId": str(saar.membership_id), "delta": 3, "reason": "Pack"})  # fmt: skip
    await ok(db, owner, "bookings", "book", {"sessionId": sid, "memberId": str(saar.membership_id)})
    await ok(db, owner, "bookings", "join_waitlist",
             {"sessionId": sid, "memberId": str(dana.membership_id)})  # fmt: skip
    assert await fails(db, owner, R, "delete", {"sessionIds": [sid]}) == "conflict"
    assert await fails(db, owner, R, "unpublish", {"sessionIds": [sid]}) == "conflict"
    card = await preview_tool(db, owner, R, {"action": "cancel", "args": {"sessionIds": [sid]}})
    assert card.affected_count == 2
    assert {"members_lose_spots", "credits_refunded"} <= set(card.consequences)
    assert card.target is not None and card.target.startswith("CrossFit · ")
    out = await ok(db, owner, R, "cancel", {"sessionIds": [sid], "reason": "Storm"})
    assert out["bookingsCancelled"] == 2
    got = await ok(db, owner, R, "get", {"sessionId": sid})
    assert (got["status"], got["booked"], got["waitlisted"]) == ("cancelled", 0, 0)
    credits = await ok(db, owner, "bookings", "credits", {"memberId": str(saar.membership_id)})
    assert credits["balance"] == 3
    assert await fails(db, owner, R, "cancel", {"sessionIds": [sid]}) == "conflict"


async def test_a_started_session_cannot_be_cancelled(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    ct = await class_type(db, owner)
    sid = await session(db, owner, ct, today(1), "07:00")
    started = datetime.combine(today(1), time(7, 5), tzinfo=TZ)
    args = {"sessionIds": [sid]}
    assert await fails(db, owner, R, "cancel", args, now=started) == "conflict"
    with pytest.raises(DomainError) as info:  # refused before anyone is asked to approve
        await preview_tool(db, owner, R, {"action": "cancel", "args": args}, now=started)
    assert info.value.code == "conflict"
    assert (await ok(db, owner, R, "cancel", args, now=started - timedelta(hours=1)))[
        "sessionIds"
    ] == [sid]


async def test_restore_is_refused_when_the_slot_was_taken_meanwhile(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    ct = await class_type(db, owner)
    first = await session(db, owner, ct, date(2027, 1, 5), "07:00", publish=False)
    await ok(db, owner, R, "delete", {"sessionIds": [first]})
    await session(db, owner, ct, date(2027, 1, 5), "07:00", publish=False)
    assert await fails(db, owner, R, "restore", {"sessionIds": [first]}) == "conflict"
    assert await fails(db, owner, R, "restore", {"sessionIds": [str(uuid.uuid4())]}) == "not_found"


# --- one session ------------------------------------------------------------------------------


async def test_reschedule_preview_shows_old_and_new_and_undo_moves_it_back(
    db: Database, org: Org
) -> None:
    owner = await caller_for(db, org, "owner")
    ct = await class_type(db, owner)
    sid = await session(db, owner, ct, date(2027, 1, 5), "07:00")
    move = {"sessionId": sid, "slot": {"day": "2027-01-06", "start": "08:15"}}
    card = await preview_tool(db, owner, R, {"action": "reschedule", "args": move})
    assert card.changes == [{"field": "time", "old": "Tue 5 Jan 07:00", "new": "Wed 6 Jan 08:15"}]
    assert card.target == "CrossFit · Tue 5 Jan 07:00"
    clashing = await session(db, owner, ct, date(2027, 1, 7), "08:00")
    onto = {"sessionId": sid, "slot": {"day": "2027-01-07", "start": "08:00"}}
    with pytest.raises(DomainError) as info:
        await preview_tool(db, owner, R, {"action": "reschedule", "args": onto})
    assert info.value.code == "conflict" and clashing
    moved = await call(db, owner, R, "reschedule", move)
    assert moved.ok and (moved.output["date"], moved.output["start"]) == ("2027-01-06", "08:15")
    assert (await undo(db, owner, R, "reschedule", moved)).ok
    back = await ok(db, owner, R, "get", {"sessionId": sid})
    assert (back["date"], back["start"], back["end"]) == ("2027-01-05", "07:00", "08:00")


async def test_update_capacity_respects_bookings_and_fills_from_the_waitlist(
    db: Database, org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, org, "owner")
    ct = await class_type(db, owner, capacity=1)
    sid = await session(db, owner, ct, today(1))
    first, second = add_person(clean_db, org, "Ann Bar"), add_person(clean_db, org, "Ben Gal")
    await ok(
        db, owner, "bookings", "book", {"sessionId": sid, "memberId": str(first.membership_id)}
    )
    await ok(db, owner, "bookings", "join_waitlist",
             {"sessionId": sid, "memberId": str(second.membership_id)})  # fmt: skip
    out = await ok(
        db, owner, R, "update", {"sessionId": sid, "capacity": 2, "notes": "Bring chalk"}
    )
    assert out["promoted"] == [{"memberId": str(second.membership_id), "name": "Ben Gal"}]
    assert (out["booked"], out["waitlisted"], out["notes"]) == (2, 0, "Bring chalk")
    assert await fails(db, owner, R, "update", {"sessionId": sid, "capacity": 1}) == "conflict"
    assert await fails(db, owner, R, "update", {"sessionId": sid, "capacity": 0}) == "invalid_args"


async def test_set_coaches_refuses_a_double_booked_coach_and_undo_restores(
    db: Database, org: Org
) -> None:
    owner = await caller_for(db, org, "owner")
    coach_caller = await caller_for(db, org, "coach")
    ct = await class_type(db, owner)
    coach, admin = str(org["coach"].membership_id), str(org["admin"].membership_id)
    first = await session(db, owner, ct, today(1), "07:00", coachIds=[coach])
    second = await session(db, owner, ct, today(1), "07:30")
    assert (
        await fails(db, owner, R, "set_coaches", {"sessionId": second, "coachIds": [coach]})
        == "conflict"
    )
    changed = await call(
        db, coach_caller, R, "set_coaches", {"sessionId": first, "coachIds": [admin]}
    )
    assert changed.ok and [c["id"] for c in changed.output["coaches"]] == [admin]
    assert (await undo(db, coach_caller, R, "set_coaches", changed)).ok
    got = await ok(db, owner, R, "get", {"sessionId": first})
    assert [c["id"] for c in got["coaches"]] == [coach]


async def test_substitute_coach_moves_a_range_and_check_lists_problems(
    db: Database, org: Org
) -> None:
    owner = await caller_for(db, org, "owner")
    ct = await class_type(db, owner)
    coach, admin = str(org["coach"].membership_id), str(org["admin"].membership_id)
    a = await session(db, owner, ct, date(2027, 1, 4), "07:00", coachIds=[coach])
    b = await session(db, owner, ct, date(2027, 1, 5), "07:00", coachIds=[coach])
    await session(db, owner, ct, date(2027, 1, 12), "07:00", coachIds=[coach])
    lonely = await session(db, owner, ct, date(2027, 1, 6), "07:00", publish=False)
    out = await ok(
        db, owner, R, "substitute_coach",
        {"days": {"first": "2027-01-04", "last": "2027-01-10"}, "fromCoachId": coach, "toCoachId": admin},
    )  # fmt: skip
    assert sorted(out["sessionIds"]) == sorted([a, b])
    found = await ok(db, owner, R, "check", {"days": {"first": "2027-01-04", "last": "2027-01-10"}})
    assert found["problems"] == [
        {"sessionId": lonely, "classType": "CrossFit", "date": "2027-01-06", "start": "07:00",
         "problems": ["draft", "no_coach"]}
    ]  # fmt: skip


# --- roles, tenancy, arguments ----------------------------------------------------------------


async def test_roles_are_enforced(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    ct = await class_type(db, owner)
    coach = await caller_for(db, org, "coach")
    member = await caller_for(db, org, "member")
    create = {"classTypeId": ct, "slot": {"day": "2027-01-04", "start": "07:00"}}
    assert await fails(db, coach, R, "create", create) == "forbidden"
    assert await fails(db, member, R, "list", {"days": {"first": "2027-01-04"}}) == "forbidden"
    assert (await ok(db, coach, R, "list", {"days": {"first": "2027-01-04"}}))["sessions"] == []


async def test_foreign_sessions_are_not_found_in_calls_and_previews(
    db: Database, org: Org, other_org: Org
) -> None:
    theirs_owner = await caller_for(db, other_org, "owner")
    theirs_type = await class_type(db, theirs_owner)
    theirs = await session(db, theirs_owner, theirs_type, today(1))
    owner = await caller_for(db, org, "owner")
    for sid in (theirs, str(uuid.uuid4())):
        assert await fails(db, owner, R, "get", {"sessionId": sid}) == "not_found"
        assert await fails(db, owner, R, "cancel", {"sessionIds": [sid]}) == "not_found"
        with pytest.raises(DomainError) as info:
            await preview_tool(db, owner, R, {"action": "cancel", "args": {"sessionIds": [sid]}})
        assert info.value.code == "not_found"
    foreign_type = {"classTypeId": theirs_type, "slot": {"day": "2027-01-04", "start": "07:00"}}
    assert await fails(db, owner, R, "create", foreign_type) == "not_found"


async def test_bad_arguments_are_invalid_args(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    ct = await class_type(db, owner)
    for args in (
        {"classTypeId": ct, "slot": {"day": "2027-01-04", "start": "25:00"}},
        {"classTypeId": ct, "slot": {"day": "2027-01-04", "start": "07:00", "minutes": 1}},
        {"classTypeId": "not-a-uuid", "slot": {"day": "2027-01-04", "start": "07:00"}},
        {"classTypeId": ct, "slot": {"day": "2027-01-04", "start": "07:00"}, "extra": 1},
    ):
        assert await fails(db, owner, R, "create", args) == "invalid_args"
    inverted = {"days": {"first": "2027-01-10", "last": "2027-01-04"}}
    assert await fails(db, owner, R, "list", inverted) == "invalid_args"
    assert await fails(db, owner, R, "publish", {"sessionIds": []}) == "invalid_args"
