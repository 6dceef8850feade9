"""What leaves the gym: bulk email to leads and inbox replies are queued in the outbox, and
their cards show the full body and how many people it reaches; converting a lead."""

from __future__ import annotations

from typing import Any

import psycopg

from spotter.db import Database
from spotter.tools.invoke import invoke_tool, preview_tool
from tests.support.callers import caller_for
from tests.support.crm import CrmWorld, call, make_crm
from tests.support.world import Org

BODY = "Hi!\n\nOur open day is Friday at 18:00: bring a friend.\n\nCoral"


async def _world(db: Database, clean_db: str, org: Org) -> CrmWorld:
    return await make_crm(db, clean_db, org)


def _outbox(url: str) -> list[dict[str, Any]]:
    with psycopg.connect(url) as conn:
        cur = conn.execute(
            "SELECT to_address, subject, body, status, source FROM outbox_messages ORDER BY to_address"
        )
        names = [c.name for c in cur.description or []]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


async def test_the_bulk_email_card_shows_the_whole_body_and_the_reachable_count(
    db: Database, clean_db: str, org: Org
) -> None:
    w = await _world(db, clean_db, org)
    owner = await caller_for(db, org, "owner")
    args = {"leadIds": [w.lead, w.lead2], "subject": "Open day", "body": BODY}
    card = await preview_tool(db, owner, *call("leads.bulk_email", args))
    assert card.outbound == {
        "channel": "email", "subject": "Open day", "body": BODY, "recipientCount": 1,
        "recipients": ["Noa Bar"],
    }  # fmt: skip
    assert card.affected_count == 1  # Tal has a phone only
    assert card.consequences == ["email_sent", "leads_without_email_skipped"]


async def test_bulk_email_queues_one_message_per_lead_with_an_email(
    db: Database, clean_db: str, org: Org
) -> None:
    w = await _world(db, clean_db, org)
    outcome = await invoke_tool(
        db, await caller_for(db, org, "owner"),
        *call("leads.bulk_email", {"leadIds": [w.lead, w.lead2], "subject": "Open day", "body": BODY}),
    )  # fmt: skip
    assert outcome.ok and outcome.output["skipped"] == 1 and outcome.output["recipientCount"] == 1
    assert _outbox(clean_db) == [{
        "to_address": f"noa.{org.clerk_org_id}@example.com", "subject": "Open day", "body": BODY,
        "status": "queued", "source": "leads.bulk_email",
    }]  # fmt: skip


async def test_bulk_email_to_leads_without_email_is_refused_and_queues_nothing(
    db: Database, clean_db: str, org: Org
) -> None:
    w = await _world(db, clean_db, org)
    outcome = await invoke_tool(
        db, await caller_for(db, org, "owner"),
        *call("leads.bulk_email", {"leadIds": [w.lead2], "subject": "Hi", "body": "Hi"}),
    )  # fmt: skip
    assert outcome.error is not None and outcome.error.details["reason"] == "no_recipients"
    assert _outbox(clean_db) == []


async def test_the_reply_card_names_the_recipient_and_shows_the_whole_body(
    db: Database, clean_db: str, org: Org
) -> None:
    w = await _world(db, clean_db, org)
    card = await preview_tool(
        db, await caller_for(db, org, "coach"),
        *call("inbox.reply", {"threadId": w.member_thread, "body": BODY}),
    )  # fmt: skip
    assert card.target == "Maya Cohen"
    assert card.outbound == {
        "channel": "email", "subject": "Re: Freezing my membership", "body": BODY,
        "recipientCount": 1, "recipients": ["Maya Cohen"],
    }  # fmt: skip
    assert card.affected_count == 1


async def test_a_reply_is_queued_and_shown_on_the_thread(
    db: Database, clean_db: str, org: Org
) -> None:
    w = await _world(db, clean_db, org)
    coach = await caller_for(db, org, "coach")
    sent = await invoke_tool(
        db, coach, *call("inbox.reply", {"threadId": w.lead_thread, "body": BODY})
    )
    read = await invoke_tool(db, coach, *call("inbox.read", {"threadId": w.lead_thread}))
    assert sent.ok and [q["status"] for q in sent.output["messages"]] == ["queued"]
    assert read.output["messages"][-1]["body"] == BODY
    assert read.output["messages"][-1]["delivery"] == "queued"
    assert _outbox(clean_db)[0]["subject"] == "Re: Trial class question"


async def test_the_convert_card_says_a_member_will_be_invited(
    db: Database, clean_db: str, org: Org
) -> None:
    w = await _world(db, clean_db, org)
    card = await preview_tool(
        db, await caller_for(db, org, "owner"), *call("leads.convert", {"leadId": w.lead})
    )
    assert card.target == "Noa Bar"
    assert card.consequences == ["lead_converted", "member_invited"]


async def test_a_converted_lead_is_a_member_the_read_router_finds(
    db: Database, clean_db: str, org: Org
) -> None:
    w = await _world(db, clean_db, org)
    owner = await caller_for(db, org, "owner")
    converted = await invoke_tool(db, owner, *call("leads.convert", {"leadId": w.lead}))
    member = await invoke_tool(
        db, owner, *call("read.member", {"membershipId": converted.output["memberId"]})
    )
    again = await invoke_tool(
        db, owner, *call("leads.move", {"leadId": w.lead, "stageId": w.stages[1]})
    )
    assert member.ok and member.output["name"] == "Noa Bar", member.output
    assert again.error is not None and again.error.details["reason"] == "lead_converted"


async def test_a_lead_with_an_invalid_email_is_refused(
    db: Database, clean_db: str, org: Org
) -> None:
    await _world(db, clean_db, org)
    outcome = await invoke_tool(
        db, await caller_for(db, org, "coach"),
        *call("leads.create", {"firstName": "X", "email": "not-an-email"}),
    )  # fmt: skip
    assert outcome.error is not None and outcome.error.code == "invalid_args"
    assert outcome.error.details["problems"][0]["field"] == "email"
