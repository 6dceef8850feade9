"""help router through the runner: one read answering from the shipped corpus."""

from __future__ import annotations

from spotter.db import Database
from spotter.tools.invoke import invoke_tool
from tests.support.callers import caller_for
from tests.support.world import Org


async def test_ask_answers_with_the_matching_article(db: Database, org: Org) -> None:
    coach = await caller_for(db, org, "coach")
    outcome = await invoke_tool(
        db, coach, "help", {"action": "ask", "args": {"question": "how does the waitlist work?"}}
    )
    assert outcome.ok, outcome.error
    first = outcome.output["articles"][0]
    assert first["slug"] == "bookings-and-waitlist" and "waitlist" in first["body"]


async def test_a_question_nothing_answers_says_so(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    outcome = await invoke_tool(
        db, owner, "help", {"action": "ask", "args": {"question": "zzqx vlorp"}}
    )
    assert outcome.ok and outcome.output["articles"] == []


async def test_an_empty_question_is_invalid(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    outcome = await invoke_tool(db, owner, "help", {"action": "ask", "args": {"question": ""}})
    assert outcome.error is not None and outcome.error.code == "invalid_args"


async def test_members_have_no_help_tool(db: Database, org: Org) -> None:
    member = await caller_for(db, org, "member")
    outcome = await invoke_tool(
        db, member, "help", {"action": "ask", "args": {"question": "how do I book?"}}
    )
    assert outcome.error is not None and outcome.error.code == "forbidden"
