"""messages and announcements through the runner: always confirmed, the full body and the
recipient count on the card, mail queued in the outbox with the call; roles and tenancy."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

from spotter.auth import Caller
from spotter.db import Database
from spotter.tools.catalog import load_catalog
from spotter.tools.errors import DomainError
from spotter.tools.invoke import preview_tool
from tests.support.callers import caller_for
from tests.support.memberships import add_member, add_plan
from tests.support.schedule import fails, ok
from tests.support.world import Org

BODY = "Hi Ann,\n\nThe 7:00 class moves to 7:30 tomorrow.\n\nSee you there!"


@pytest.fixture
async def owner(db: Database, org: Org) -> Caller:
    return await caller_for(db, org, "owner")


def queued(url: str) -> list[tuple[str, str, str]]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT to_address, body, status FROM outbox_messages ORDER BY to_address"
        ).fetchall()
    return [(r[0], r[1], r[2]) for r in rows]


@pytest.mark.parametrize("name", ["messages.send", "announcements.send"])
def test_outbound_tools_always_confirm_and_declare_external_effects(name: str) -> None:
    spec = load_catalog().specs[name]
    assert (spec.confirm, spec.external_effects, spec.side_effects) == ("always", True, "write")


async def test_a_message_card_shows_the_member_and_the_whole_body(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    ann = add_member(clean_db, org, "Ann Bar", "ann@example.com")
    args = {"memberId": str(ann.membership_id), "subject": "Class moved", "body": BODY}
    card = await preview_tool(db, owner, "messages", {"action": "send", "args": args})
    assert (card.target, card.affected_count) == ("Ann Bar", 1)
    assert card.outbound == {
        "channel": "email",
        "subject": "Class moved",
        "body": BODY,
        "recipientCount": 1,
        "recipients": ["Ann Bar"],
    }
    sent = await ok(db, owner, "messages", "send", args)
    assert sent["messages"] == [
        {
            "id": sent["messages"][0]["id"],
            "to": "ann@example.com",
            "name": "Ann Bar",
            "status": "queued",
        }
    ]
    assert queued(clean_db) == [("ann@example.com", BODY, "queued")]


async def test_a_member_without_an_email_cannot_be_messaged(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    ben = add_member(clean_db, org, "Ben Gal")
    args = {"memberId": str(ben.membership_id), "subject": "Hi", "body": "Hello"}
    with pytest.raises(DomainError) as info:
        await preview_tool(db, owner, "messages", {"action": "send", "args": args})
    assert info.value.code == "conflict"
    assert queued(clean_db) == []


async def test_messaging_another_orgs_member_is_not_found(
    db: Database, org: Org, other_org: Org, owner: Caller, clean_db: str
) -> None:
    zed = add_member(clean_db, other_org, "Zed Other", "zed@example.com")
    args = {"memberId": str(zed.membership_id), "subject": "Hi", "body": "Hello"}
    assert await fails(db, owner, "messages", "send", args) == "not_found"


@pytest.mark.parametrize(
    "args", [{"subject": "", "body": "x"}, {"subject": "x", "body": "x" * 20_001}, {"body": "x"}]
)
async def test_a_message_needs_a_subject_and_a_bounded_body(
    db: Database, org: Org, owner: Caller, clean_db: str, args: dict[str, Any]
) -> None:
    ann = add_member(clean_db, org, "Ann Bar", "ann@example.com")
    full = {"memberId": str(ann.membership_id), **args}
    assert await fails(db, owner, "messages", "send", full) == "invalid_args"


async def test_an_announcement_card_counts_every_reachable_active_member(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    add_member(clean_db, org, "Ann Bar", "ann@example.com")
    add_member(clean_db, org, "Ben Gal", "ben@example.com")
    add_member(clean_db, org, "Cat Dor")  # no email (nor the test org's own member): left out
    args = {"subject": "Holiday hours", "body": BODY}
    card = await preview_tool(db, owner, "announcements", {"action": "send", "args": args})
    assert card.affected_count == 2 and card.outbound is not None
    assert (card.outbound["recipientCount"], card.outbound["body"]) == (2, BODY)
    assert "members_without_email_skipped" in card.consequences
    sent = await ok(db, owner, "announcements", "send", args)
    assert (sent["recipientCount"], sent["skippedWithoutEmail"]) == (2, 2)
    assert [q[0] for q in queued(clean_db)] == ["ann@example.com", "ben@example.com"]


async def test_an_announcement_to_a_plan_reaches_only_its_active_subscribers(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    kids, adults = add_plan(clean_db, org, "Kids"), add_plan(clean_db, org, "Adults")
    add_member(clean_db, org, "Ann Bar", "ann@example.com", plan_id=kids)
    add_member(clean_db, org, "Ben Gal", "ben@example.com", plan_id=kids, subscription="paused")
    add_member(clean_db, org, "Cat Dor", "cat@example.com", plan_id=adults)
    args = {"subject": "Kids camp", "body": "Sign up!", "planId": str(kids)}
    sent = await ok(db, owner, "announcements", "send", args)
    assert [m["to"] for m in sent["messages"]] == ["ann@example.com"]


async def test_an_announcement_with_nobody_to_reach_is_refused(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    args = {"subject": "Hello", "body": "Anyone?"}
    assert await fails(db, owner, "announcements", "send", args) == "conflict"


async def test_coaches_cannot_broadcast_and_members_cannot_message(
    db: Database, org: Org, clean_db: str
) -> None:
    ann = add_member(clean_db, org, "Ann Bar", "ann@example.com")
    coach, member = await caller_for(db, org, "coach"), await caller_for(db, org, "member")
    args = {"subject": "Hi", "body": "Hello"}
    assert await fails(db, coach, "announcements", "send", args) == "forbidden"
    message = {"memberId": str(ann.membership_id), **args}
    assert await fails(db, member, "messages", "send", message) == "forbidden"
    assert (await ok(db, coach, "messages", "send", message))["recipientCount"] == 1


async def test_an_announcement_to_another_orgs_plan_is_not_found(
    db: Database, org: Org, other_org: Org, owner: Caller, clean_db: str
) -> None:
    args = {"subject": "Hi", "body": "Hello", "planId": str(add_plan(clean_db, other_org))}
    assert await fails(db, owner, "announcements", "send", args) == "not_found"
