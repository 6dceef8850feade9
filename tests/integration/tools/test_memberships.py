"""memberships through the runner: reads, invitations, plan changes, credits, erasure; roles,
tenancy, bad arguments, previews and inverses."""

from __future__ import annotations

import uuid
from typing import Any

import psycopg
import pytest

from spotter.auth import Caller
from spotter.db import Database
from spotter.tools.catalog import load_catalog
from spotter.tools.errors import DomainError, ToolArgsError
from spotter.tools.invoke import preview_tool
from tests.support.callers import caller_for
from tests.support.erasure import columns_mentioning
from tests.support.memberships import add_member, add_plan
from tests.support.schedule import call, fails, ok, undo
from tests.support.world import Org, Person

R = "memberships"


@pytest.fixture
async def owner(db: Database, org: Org) -> Caller:
    return await caller_for(db, org, "owner")


def mid(person: Person) -> str:
    return str(person.membership_id)


def outbox_count(url: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT count(*) FROM outbox_messages").fetchone()
    assert row is not None
    return int(row[0])


async def test_list_shows_each_member_with_their_plan_and_filters_by_status(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    unlimited = add_plan(clean_db, org, "Unlimited")
    add_member(clean_db, org, "Ann Bar", "ann@example.com", plan_id=unlimited)
    add_member(clean_db, org, "Ben Gal", plan_id=unlimited, subscription="paused")
    add_member(clean_db, org, "Cat Dor")
    listed = await ok(db, owner, R, "list", {})
    plans = {m["name"]: (m["plan"] or {}).get("subscription") for m in listed["members"]}
    assert {n: plans[n] for n in ("Ann Bar", "Ben Gal", "Cat Dor")} == {
        "Ann Bar": "active",
        "Ben Gal": "paused",
        "Cat Dor": None,
    }
    found = await ok(db, owner, R, "list", {"query": "ann@exa"})
    assert [m["name"] for m in found["members"]] == ["Ann Bar"]
    paused = await ok(db, owner, R, "list", {"subscription": "paused"})
    assert [m["name"] for m in paused["members"]] == ["Ben Gal"]
    none = await ok(db, owner, R, "list", {"subscription": "none"})
    assert "Cat Dor" in [m["name"] for m in none["members"]]


async def test_get_shows_plan_credits_and_attendance(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    ann = add_member(
        clean_db, org, "Ann Bar", plan_id=add_plan(clean_db, org, "8 Classes", credits=8)
    )
    with psycopg.connect(clean_db) as conn:
        conn.execute(
            "INSERT INTO member_credit_ledger (organization_id, membership_id, delta, reason)"
            " VALUES (%s, %s, 8, 'Monthly')",
            (org.id, ann.membership_id),
        )
    got = await ok(db, owner, R, "get", {"memberId": mid(ann)})
    assert (got["plan"]["name"], got["credits"]) == ("8 Classes", 8)
    assert got["attendance"] == {"checkedIn": 0, "checkedInLast30Days": 0, "booked": 0}


async def test_overview_counts_members_per_plan_and_lists_pending_invitations(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    plan = add_plan(clean_db, org, "Unlimited")
    add_member(clean_db, org, "Ann Bar", plan_id=plan)
    add_member(clean_db, org, "Ben Gal", plan_id=plan, subscription="paused")
    await ok(db, owner, R, "invite", {"email": "new@example.com", "name": "New Person"})
    seen = await ok(db, owner, R, "overview", {})
    assert [(p["name"], p["activeMembers"], p["pausedMembers"]) for p in seen["plans"]] == [
        ("Unlimited", 1, 1)
    ]
    assert [i["email"] for i in seen["pendingInvitations"]] == ["new@example.com"]


async def test_invite_is_a_quick_action_that_records_without_mailing_and_undoes(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    spec = load_catalog().specs["memberships.invite"]
    assert spec.quick_action and spec.confirm == "never" and not spec.external_effects
    outcome = await call(db, owner, R, "invite", {"email": "avi@example.com", "name": "Avi N"})
    assert outcome.ok and outcome.output["status"] == "pending"
    assert outbox_count(clean_db) == 0
    assert await fails(db, owner, R, "invite", {"email": "AVI@example.com"}) == "conflict"
    assert (await undo(db, owner, R, "invite", outcome)).ok
    again = await ok(db, owner, R, "invite", {"email": "avi@example.com"})
    assert again["status"] == "pending"


async def test_inviting_an_existing_members_email_is_a_conflict(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    add_member(clean_db, org, "Ann Bar", "ann@example.com")
    assert await fails(db, owner, R, "invite", {"email": "ann@example.com"}) == "conflict"


async def test_send_invitations_always_confirms_with_the_full_email_then_queues_them(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    spec = load_catalog().specs["memberships.send_invitations"]
    assert spec.confirm == "always" and spec.external_effects
    a = await ok(db, owner, R, "invite", {"email": "a@example.com", "name": "Avi A"})
    b = await ok(db, owner, R, "invite", {"email": "b@example.com"})
    args = {"invitationIds": [a["id"], b["id"]]}
    card = await preview_tool(db, owner, R, {"action": "send_invitations", "args": args})
    assert card.affected_count == 2 and card.outbound is not None
    assert card.outbound["recipients"] == ["Avi A", "b@example.com"]
    assert "Hi Avi A," in card.outbound["body"] and "has invited you" in card.outbound["body"]
    assert "invitation_emailed" in card.consequences
    sent = await ok(db, owner, R, "send_invitations", args)
    assert (sent["recipientCount"], sent["delivery"]) == (2, {"queued": 2})
    resent = await ok(db, owner, R, "send_invitations", {"invitationIds": [a["id"]]})
    assert resent["recipientCount"] == 1
    with psycopg.connect(clean_db) as conn:
        counts = conn.execute(
            "SELECT email, sent_count FROM member_invitations ORDER BY email"
        ).fetchall()
    assert counts == [("a@example.com", 2), ("b@example.com", 1)]


async def test_pause_shows_the_change_and_its_inverse_resumes(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    ann = add_member(clean_db, org, "Ann Bar", plan_id=add_plan(clean_db, org, "Unlimited"))
    card = await preview_tool(db, owner, R, {"action": "pause", "args": {"memberId": mid(ann)}})
    assert card.target == "Ann Bar"
    assert card.changes == [{"field": "plan", "old": "Unlimited (active)", "new": "paused"}]
    paused = await call(db, owner, R, "pause", {"memberId": mid(ann)})
    assert paused.ok
    assert await fails(db, owner, R, "pause", {"memberId": mid(ann)}) == "conflict"
    assert (await undo(db, owner, R, "pause", paused)).ok
    got = await ok(db, owner, R, "get", {"memberId": mid(ann)})
    assert got["plan"]["subscription"] == "active"


async def test_resume_refuses_an_active_plan_before_anyone_approves(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    ann = add_member(clean_db, org, "Ann Bar", plan_id=add_plan(clean_db, org, "Unlimited"))
    with pytest.raises(DomainError) as info:
        await preview_tool(db, owner, R, {"action": "resume", "args": {"memberId": mid(ann)}})
    assert info.value.code == "conflict"


async def test_cancel_ends_the_plan_and_its_inverse_resubscribes(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    plan = add_plan(clean_db, org, "Unlimited")
    ann = add_member(clean_db, org, "Ann Bar", plan_id=plan)
    cancelled = await call(db, owner, R, "cancel", {"memberId": mid(ann), "reason": "Moving"})
    assert cancelled.ok
    assert (await ok(db, owner, R, "get", {"memberId": mid(ann)}))["plan"] is None
    assert (await undo(db, owner, R, "cancel", cancelled)).ok
    assert (await ok(db, owner, R, "get", {"memberId": mid(ann)}))["plan"]["id"] == str(plan)


async def test_change_plan_keeps_history_and_its_inverse_goes_back(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    old, new = add_plan(clean_db, org, "Unlimited"), add_plan(clean_db, org, "8 Classes")
    ann = add_member(clean_db, org, "Ann Bar", plan_id=old)
    args = {"memberId": mid(ann), "planId": str(new)}
    card = await preview_tool(db, owner, R, {"action": "change_plan", "args": args})
    assert card.changes == [{"field": "plan", "old": "Unlimited", "new": "8 Classes"}]
    changed = await call(db, owner, R, "change_plan", args)
    assert changed.ok and changed.output["previousPlan"] == "Unlimited"
    assert await fails(db, owner, R, "change_plan", args) == "conflict"
    assert (await undo(db, owner, R, "change_plan", changed)).ok
    assert (await ok(db, owner, R, "get", {"memberId": mid(ann)}))["plan"]["name"] == "Unlimited"
    with psycopg.connect(clean_db) as conn:
        history = conn.execute(
            "SELECT status, count(*) FROM member_subscriptions GROUP BY status ORDER BY status"
        ).fetchall()
    assert history == [("active", 1), ("cancelled", 2)]


async def test_a_first_plan_has_no_undo(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    ann = add_member(clean_db, org, "Ann Bar")
    started = await call(
        db, owner, R, "change_plan", {"memberId": mid(ann), "planId": str(add_plan(clean_db, org))}
    )
    assert started.ok
    with pytest.raises(ToolArgsError) as info:
        await undo(db, owner, R, "change_plan", started)
    assert info.value.error.code == "invalid_args"


async def test_credits_sets_the_balance_shows_old_and_new_and_undoes(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    ann = add_member(clean_db, org, "Ann Bar")
    args = {"memberId": mid(ann), "balance": 5}
    card = await preview_tool(db, owner, R, {"action": "credits", "args": args})
    assert card.changes == [{"field": "credits", "old": "unlimited", "new": 5}]
    first = await call(db, owner, R, "credits", args)
    assert first.ok and first.output["previousBalance"] is None
    second = await call(db, owner, R, "credits", {"memberId": mid(ann), "balance": 2})
    assert second.ok
    assert (await undo(db, owner, R, "credits", second)).ok
    assert (await ok(db, owner, R, "get", {"memberId": mid(ann)}))["credits"] == 5
    assert await fails(db, owner, R, "credits", args) == "conflict"  # already 5


@pytest.mark.parametrize(
    ("action", "args"),
    [
        ("invite", {"email": "not an email"}),
        ("credits", {"memberId": "MEMBER", "balance": -1}),
        ("pause", {"memberId": "MEMBER", "resumeOn": "someday"}),
        ("send_invitations", {"invitationIds": []}),
        ("get", {"memberId": "MEMBER", "extra": 1}),
    ],
)
async def test_bad_arguments_are_invalid_args(
    db: Database, org: Org, owner: Caller, clean_db: str, action: str, args: dict[str, Any]
) -> None:
    ann = add_member(clean_db, org, "Ann Bar")
    args = {k: (mid(ann) if v == "MEMBER" else v) for k, v in args.items()}
    assert await fails(db, owner, R, action, args) == "invalid_args"


async def test_a_resume_date_in_the_past_is_invalid(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    ann = add_member(clean_db, org, "Ann Bar", plan_id=add_plan(clean_db, org))
    args = {"memberId": mid(ann), "resumeOn": "2020-01-01"}
    assert await fails(db, owner, R, "pause", args) == "invalid_args"


@pytest.mark.parametrize(
    ("role", "action", "args"),
    [
        ("coach", "pause", {"memberId": "MEMBER"}),
        ("coach", "credits", {"memberId": "MEMBER", "balance": 3}),
        ("admin", "erase", {"memberId": "MEMBER"}),
        ("member", "list", {}),
        ("member", "invite", {"email": "x@example.com"}),
    ],
)
async def test_roles_without_the_action_are_refused(
    db: Database, org: Org, clean_db: str, role: str, action: str, args: dict[str, Any]
) -> None:
    ann = add_member(clean_db, org, "Ann Bar", plan_id=add_plan(clean_db, org))
    caller = await caller_for(db, org, role)
    args = {k: (mid(ann) if v == "MEMBER" else v) for k, v in args.items()}
    assert await fails(db, caller, R, action, args) == "forbidden"


@pytest.mark.parametrize(
    ("action", "args"),
    [
        ("get", {}),
        ("pause", {}),
        ("resume", {}),
        ("cancel", {}),
        ("credits", {"balance": 4}),
        ("erase", {}),
        ("change_plan", {"planId": "PLAN"}),
    ],
)
async def test_another_orgs_member_is_not_found(
    db: Database, org: Org, other_org: Org, owner: Caller, clean_db: str, action: str,
    args: dict[str, Any],
) -> None:  # fmt: skip
    theirs = add_member(clean_db, other_org, "Zed Other", plan_id=add_plan(clean_db, other_org))
    mine = add_plan(clean_db, org)
    full = {
        "memberId": mid(theirs),
        **{k: (str(mine) if v == "PLAN" else v) for k, v in args.items()},
    }
    assert await fails(db, owner, R, action, full) == "not_found"


async def test_another_orgs_plan_and_invitation_are_not_found(
    db: Database, org: Org, other_org: Org, owner: Caller, clean_db: str
) -> None:
    ann = add_member(clean_db, org, "Ann Bar")
    their_plan = add_plan(clean_db, other_org)
    args = {"memberId": mid(ann), "planId": str(their_plan)}
    assert await fails(db, owner, R, "change_plan", args) == "not_found"
    other_owner = await caller_for(db, other_org, "owner")
    theirs = await ok(db, other_owner, R, "invite", {"email": "z@example.com"})
    args = {"invitationIds": [theirs["id"]]}
    assert await fails(db, owner, R, "send_invitations", args) == "not_found"
    assert (
        await fails(db, owner, R, "revoke_invitation", {"invitationId": theirs["id"]})
        == "not_found"
    )


async def test_erase_preview_names_the_person_and_the_permanent_erasure(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    dana = add_member(clean_db, org, "Dana Levi", "dana@example.com")
    spec = load_catalog().specs["memberships.erase"]
    assert spec.confirm == "destructive" and spec.inverse is None
    card = await preview_tool(db, owner, R, {"action": "erase", "args": {"memberId": mid(dana)}})
    assert (card.target, card.affected_count) == ("Dana Levi", 1)
    assert card.consequences == ["permanent_member_erasure"]


async def test_erase_through_the_runner_leaves_no_personal_field(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    name, email = f"Quill {uuid.uuid4().hex[:6]}", f"q{uuid.uuid4().hex[:6]}@example.com"
    person = add_member(clean_db, org, name, email, plan_id=add_plan(clean_db, org))
    await ok(
        db,
        owner,
        "messages",
        "send",
        {"memberId": mid(person), "subject": f"Hi {name}", "body": "See you."},
    )
    await ok(
        db, owner, R, "credits", {"memberId": mid(person), "balance": 3, "reason": f"For {name}"}
    )
    assert columns_mentioning(clean_db, name, email) != []
    erased = await ok(db, owner, R, "erase", {"memberId": mid(person)})
    assert erased["erased"] is True and name not in str(erased)
    assert columns_mentioning(clean_db, name, email) == []
    assert await fails(db, owner, R, "get", {"memberId": mid(person)}) == "not_found"


@pytest.mark.parametrize(
    ("action", "subscription", "extra", "change", "consequence"),
    [
        ("pause", "active", {"resumeOn": "2099-01-05"},
         ("Unlimited (active)", "paused until 2099-01-05"), "membership_paused"),
        ("resume", "paused", {}, ("Unlimited (paused)", "Unlimited (active)"), "membership_resumed"),
        ("cancel", "paused", {"reason": "Moving away"}, ("Unlimited (paused)", "no plan"),
         "membership_cancelled"),
    ],
)  # fmt: skip
async def test_subscription_cards_name_the_member_and_show_the_plan_change(
    db: Database, org: Org, owner: Caller, clean_db: str, action: str, subscription: str,
    extra: dict[str, Any], change: tuple[str, str], consequence: str,
) -> None:  # fmt: skip
    ann = add_member(
        clean_db, org, "Ann Bar", plan_id=add_plan(clean_db, org), subscription=subscription
    )
    args = {"memberId": mid(ann), **extra}
    card = await preview_tool(db, owner, R, {"action": action, "args": args})
    assert (card.target, card.consequences) == ("Ann Bar", [consequence])
    assert card.changes == [{"field": "plan", "old": change[0], "new": change[1]}]
    assert [a["field"] for a in card.arguments] == list(args)
