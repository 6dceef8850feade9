"""bookings: capacity and the waitlist, credits, attendance windows, previews, undo, tenancy."""

from __future__ import annotations

import asyncio
import uuid
from datetime import datetime, time, timedelta

import psycopg
import pytest

from spotter.db import Database
from spotter.tools.errors import DomainError
from spotter.tools.invoke import preview_tool
from tests.support.callers import caller_for
from tests.support.schedule import TZ, audit_link, call, class_type, fails, ok, session, today, undo
from tests.support.world import Org, Person, add_person

R = "bookings"


def spot(sid: str, person: Person) -> dict[str, str]:
    return {"sessionId": sid, "memberId": str(person.membership_id)}


async def test_book_preview_names_member_and_session_then_books(
    db: Database, org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, org, "owner")
    ct = await class_type(db, owner, capacity=10)
    sid = await session(db, owner, ct, today(1), "07:00")
    saar = add_person(clean_db, org, "Saar Cohen")
    card = await preview_tool(db, owner, R, {"action": "book", "args": spot(sid, saar)})
    assert card.target is not None and card.target.startswith("Saar Cohen · CrossFit · ")
    assert card.target.endswith(" 07:00") and sid not in card.target
    assert (card.affected_count, card.consequences) == (1, ["member_booked"])
    booked = await ok(db, owner, R, "book", spot(sid, saar))
    assert booked["status"] == "booked" and booked["credits"] is None
    roster = await ok(db, owner, R, "list", {"sessionId": sid})
    assert roster["roster"] == [
        {"memberId": str(saar.membership_id), "name": "Saar Cohen", "status": "booked"}
    ]
    assert (roster["booked"], roster["capacity"]) == (1, 10)
    assert await fails(db, owner, R, "book", spot(sid, saar)) == "conflict"


async def test_full_session_offers_the_waitlist_and_a_cancel_promotes_the_first(
    db: Database, org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, org, "owner")
    ct = await class_type(db, owner, capacity=1)
    sid = await session(db, owner, ct, today(2))
    ann, ben, cat = (add_person(clean_db, org, n) for n in ("Ann Bar", "Ben Gal", "Cat Dor"))
    assert await fails(db, owner, R, "join_waitlist", spot(sid, ann)) == "conflict"  # spots open
    await ok(db, owner, R, "book", spot(sid, ann))
    assert await fails(db, owner, R, "book", spot(sid, ben)) == "capacity_full"
    with pytest.raises(DomainError) as info:  # the card is refused before anyone approves
        await preview_tool(db, owner, R, {"action": "book", "args": spot(sid, ben)})
    assert info.value.code == "capacity_full"
    first = await ok(db, owner, R, "join_waitlist", spot(sid, ben))
    second = await ok(db, owner, R, "join_waitlist", spot(sid, cat))
    assert (first["position"], second["position"]) == (1, 2)
    card = await preview_tool(db, owner, R, {"action": "cancel", "args": spot(sid, ann)})
    assert card.consequences == ["booking_cancelled", "waitlist_promoted"]
    out = await ok(db, owner, R, "cancel", spot(sid, ann))
    assert out["promoted"] == [{"memberId": str(ben.membership_id), "name": "Ben Gal"}]
    roster = await ok(db, owner, R, "list", {"sessionId": sid})
    assert [(p["name"], p["status"]) for p in roster["roster"]] == [
        ("Ben Gal", "booked"),
        ("Cat Dor", "waitlisted"),
    ]


async def test_credits_pay_for_bookings_and_come_back_on_cancel(
    db: Database, org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, org, "owner")
    ct = await class_type(db, owner)
    morning = await session(db, owner, ct, today(1), "07:00")
    evening = await session(db, owner, ct, today(1), "18:00")
    saar = add_person(clean_db, org, "Saar Levi")
    member = str(saar.membership_id)
    adjust = {"memberId": member, "delta": 1, "reason": "Trial pack"}
    card = await preview_tool(db, owner, R, {"action": "adjust_credits", "args": adjust})
    assert (card.target, card.changes) == ("Saar Levi", [{"field": "credits", "old": 0, "new": 1}])
    await ok(db, owner, R, "adjust_credits", adjust)
    card = await preview_tool(db, owner, R, {"action": "book", "args": spot(morning, saar)})
    assert card.consequences == ["member_booked", "credit_used"]
    assert (await ok(db, owner, R, "book", spot(morning, saar)))["credits"] == 0
    assert await fails(db, owner, R, "book", spot(evening, saar)) == "insufficient_credits"
    cancelled = await ok(db, owner, R, "cancel", spot(morning, saar))
    assert cancelled["creditRefunded"] is True
    history = await ok(db, owner, R, "credits", {"memberId": member})
    assert history["balance"] == 1
    assert [h["delta"] for h in history["recent"]] == [1, -1, 1]
    too_many = {"memberId": member, "delta": -5, "reason": "Oops"}
    assert await fails(db, owner, R, "adjust_credits", too_many) == "conflict"
    zero = {"memberId": member, "delta": 0, "reason": "Nothing"}
    assert await fails(db, owner, R, "adjust_credits", zero) == "invalid_args"
    coach = await caller_for(db, org, "coach")
    assert await fails(db, coach, R, "adjust_credits", adjust) == "forbidden"


async def test_adjust_credits_undo_reverses_it_with_a_linked_audit_row(
    db: Database, org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, org, "owner")
    member = str(add_person(clean_db, org, "Noa Ron").membership_id)
    added = await call(
        db, owner, R, "adjust_credits", {"memberId": member, "delta": 5, "reason": "Pack"}
    )
    assert added.ok and added.output["balance"] == 5
    reverted = await undo(db, owner, R, "adjust_credits", added)
    assert reverted.ok and reverted.output["balance"] == 0
    assert audit_link(clean_db, reverted.audit_log_id) == (
        "member_credits.adjusted",
        added.audit_log_id,
    )


async def test_promotion_skips_a_waitlisted_member_without_credits(
    db: Database, org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, org, "owner")
    ct = await class_type(db, owner, capacity=1)
    sid = await session(db, owner, ct, today(1))
    ann, broke, cat = (add_person(clean_db, org, n) for n in ("Ann Bar", "Bo Broke", "Cat Dor"))
    await ok(db, owner, R, "book", spot(sid, ann))
    await ok(db, owner, R, "adjust_credits",
             {"memberId": str(broke.membership_id), "delta": 1, "reason": "Pack"})  # fmt: skip
    await ok(db, owner, R, "join_waitlist", spot(sid, broke))
    await ok(db, owner, R, "join_waitlist", spot(sid, cat))
    await ok(db, owner, R, "adjust_credits",
             {"memberId": str(broke.membership_id), "delta": -1, "reason": "Used elsewhere"})  # fmt: skip
    out = await ok(db, owner, R, "cancel", spot(sid, ann))
    assert [p["name"] for p in out["promoted"]] == ["Cat Dor"]


async def test_book_undo_cancels_the_booking(db: Database, org: Org, clean_db: str) -> None:
    owner = await caller_for(db, org, "owner")
    ct = await class_type(db, owner)
    sid = await session(db, owner, ct, today(1))
    saar = add_person(clean_db, org, "Saar Cohen")
    booked = await call(db, owner, R, "book", spot(sid, saar))
    assert booked.ok
    reverted = await undo(db, owner, R, "book", booked)
    assert reverted.ok and reverted.output["status"] == "cancelled"
    assert (await ok(db, owner, R, "list", {"sessionId": sid}))["roster"] == []
    assert audit_link(clean_db, reverted.audit_log_id) == ("booking.cancelled", booked.audit_log_id)


async def test_only_published_upcoming_sessions_take_bookings(
    db: Database, org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, org, "owner")
    ct = await class_type(db, owner)
    draft = await session(db, owner, ct, today(1), publish=False)
    past = await session(db, owner, ct, today(-1))
    member = add_person(clean_db, org, "Ann Bar")
    assert await fails(db, owner, R, "book", spot(draft, member)) == "conflict"
    assert await fails(db, owner, R, "book", spot(past, member)) == "conflict"
    inactive = add_person(clean_db, org, "Sam Gone", status="suspended")
    upcoming = await session(db, owner, ct, today(1), "09:00")
    assert await fails(db, owner, R, "book", spot(upcoming, inactive)) == "conflict"


async def test_check_in_and_no_show_follow_the_clock(db: Database, org: Org, clean_db: str) -> None:
    owner = await caller_for(db, org, "owner")
    coach = await caller_for(db, org, "coach")
    ct = await class_type(db, owner)
    day = today(1)
    sid = await session(db, owner, ct, day, "07:00")
    ann, ben = add_person(clean_db, org, "Ann Bar"), add_person(clean_db, org, "Ben Gal")
    await ok(db, owner, R, "book", spot(sid, ann))
    await ok(db, owner, R, "book", spot(sid, ben))
    starts = datetime.combine(day, time(7), tzinfo=TZ)
    early, soon, later = (
        starts - timedelta(hours=2),
        starts - timedelta(minutes=30),
        starts + timedelta(minutes=10),
    )
    assert await fails(db, coach, R, "check_in", spot(sid, ann), now=early) == "conflict"
    card = await preview_tool(
        db, coach, R, {"action": "check_in", "args": spot(sid, ann)}, now=soon
    )
    assert card.target is not None and card.target.startswith("Ann Bar · CrossFit · ")
    assert (await ok(db, coach, R, "check_in", spot(sid, ann), now=soon))["status"] == "checked_in"
    assert await fails(db, coach, R, "mark_no_show", spot(sid, ben), now=soon) == "conflict"
    assert (await ok(db, coach, R, "mark_no_show", spot(sid, ben), now=later))[
        "status"
    ] == "no_show"
    assert await fails(db, coach, R, "cancel", spot(sid, ann), now=later) == "conflict"
    stranger = add_person(clean_db, org, "Cat Dor")
    assert await fails(db, coach, R, "check_in", spot(sid, stranger), now=soon) == "not_found"


async def test_foreign_sessions_and_members_are_not_found(
    db: Database, org: Org, other_org: Org, clean_db: str
) -> None:
    theirs_owner = await caller_for(db, other_org, "owner")
    theirs = await session(db, theirs_owner, await class_type(db, theirs_owner), today(1))
    their_member = add_person(clean_db, other_org, "Far Away")
    owner = await caller_for(db, org, "owner")
    mine = await session(db, owner, await class_type(db, owner), today(1))
    local = add_person(clean_db, org, "Ann Bar")
    for args in (
        spot(theirs, local),
        spot(mine, their_member),
        {"sessionId": str(uuid.uuid4()), "memberId": str(local.membership_id)},
    ):
        assert await fails(db, owner, R, "book", args) == "not_found"
        with pytest.raises(DomainError) as info:
            await preview_tool(db, owner, R, {"action": "book", "args": args})
        assert info.value.code == "not_found"
    assert await fails(db, owner, R, "list", {"sessionId": theirs}) == "not_found"
    assert (
        await fails(db, owner, R, "credits", {"memberId": str(their_member.membership_id)})
        == "not_found"
    )


async def test_members_cannot_book_and_bad_args_are_refused(db: Database, org: Org) -> None:
    member = await caller_for(db, org, "member")
    args = {"sessionId": str(uuid.uuid4()), "memberId": str(org["member"].membership_id)}
    assert await fails(db, member, R, "book", args) == "forbidden"
    owner = await caller_for(db, org, "owner")
    assert await fails(db, owner, R, "book", {"sessionId": str(uuid.uuid4())}) == "invalid_args"
    assert await fails(db, owner, R, "list", {"sessionId": "nope"}) == "invalid_args"


async def test_two_bookings_racing_for_the_last_spot_get_one_each_answer(
    db: Database, org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, org, "owner")
    ct = await class_type(db, owner, capacity=1)
    sid = await session(db, owner, ct, today(1))
    ann, ben = add_person(clean_db, org, "Ann Bar"), add_person(clean_db, org, "Ben Gal")
    outcomes = await asyncio.gather(
        call(db, owner, R, "book", spot(sid, ann)), call(db, owner, R, "book", spot(sid, ben))
    )
    assert sorted(o.ok for o in outcomes) == [False, True]
    assert [o.error.code for o in outcomes if o.error] == ["capacity_full"]
    assert (await ok(db, owner, R, "list", {"sessionId": sid}))["booked"] == 1


def test_a_booking_cannot_point_at_another_orgs_session(
    org: Org, other_org: Org, clean_db: str
) -> None:
    member = add_person(clean_db, org, "Ann Bar")
    with psycopg.connect(clean_db) as conn:
        type_id = conn.execute(
            "INSERT INTO class_types (organization_id, name) VALUES (%s, 'Theirs') RETURNING id",
            (other_org.id,),
        ).fetchone()
        assert type_id is not None
        theirs = conn.execute(
            "INSERT INTO class_sessions (organization_id, class_type_id, starts_at, ends_at)"
            " VALUES (%s, %s, now(), now() + interval '1 hour') RETURNING id",
            (other_org.id, type_id[0]),
        ).fetchone()
        assert theirs is not None
        with pytest.raises(psycopg.errors.ForeignKeyViolation):
            conn.execute(
                "INSERT INTO bookings (organization_id, session_id, membership_id, status)"
                " VALUES (%s, %s, %s, 'booked')",
                (org.id, theirs[0], member.membership_id),
            )


async def test_waitlist_and_no_show_previews_name_member_and_session(
    db: Database, org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, org, "owner")
    ct = await class_type(db, owner, capacity=1)
    day = today(1)
    sid = await session(db, owner, ct, day, "07:00")
    ann, ben = add_person(clean_db, org, "Ann Bar"), add_person(clean_db, org, "Ben Gal")
    await ok(db, owner, R, "book", spot(sid, ann))
    card = await preview_tool(db, owner, R, {"action": "join_waitlist", "args": spot(sid, ben)})
    assert card.target is not None and card.target.startswith("Ben Gal · CrossFit · ")
    assert (card.affected_count, card.consequences) == (1, ["member_waitlisted"])
    after_start = datetime.combine(day, time(7, 15), tzinfo=TZ)
    card = await preview_tool(
        db, owner, R, {"action": "mark_no_show", "args": spot(sid, ann)}, now=after_start
    )
    assert card.target is not None and card.target.startswith("Ann Bar · CrossFit · ")
    assert card.consequences == ["attendance_recorded"]
    assert card.arguments == [
        {"field": "sessionId", "value": sid},
        {"field": "memberId", "value": str(ann.membership_id)},
    ]
