"""The offline demo model knows the members-at-risk flow (issue 29 item 5): opened from the
card on the seeded demo gym, it reads the insight, names the members from that result, and
drafts one check-in per member, each waiting on its confirmation card with the recipient and
the whole body; approved, they are sent and it says how many."""

from __future__ import annotations

import uuid

import pytest

from spotter.agent import events as ev
from spotter.agent.run import Decision
from spotter.agent.run import resolve as resolution
from spotter.auth import Caller, SessionClaims, resolve_caller
from spotter.db import Database
from spotter.providers.demo import demo_model
from spotter.seed.attendance import LAPSED
from spotter.seed.demo import DEMO_CLERK_ORG_ID, DEMO_STAFF, seed_demo
from tests.support.agent import conversation_id_of, deps_for, run_turn, text_of
from tests.support.hitl import collect, of_type

FROM_THE_CARD = {"insight": "members_at_risk"}


async def _demo_caller(db: Database, role: str, locale: str = "en") -> Caller:
    person = next(p for p in DEMO_STAFF if p.role == role)
    claims = SessionClaims(person.clerk_user_id, DEMO_CLERK_ORG_ID, None, None)
    return await resolve_caller(db, claims, locale)  # type: ignore[arg-type]


@pytest.fixture
async def owner(db: Database, clean_db: str) -> Caller:
    await seed_demo(clean_db)
    return await _demo_caller(db, "owner")


async def test_the_at_risk_card_reaches_one_drafted_check_in_per_member(
    db: Database, owner: Caller
) -> None:
    events = await run_turn(
        deps_for(db, demo_model()), owner, "Who is at risk?", selection=FROM_THE_CARD
    )
    [read] = [e for e in of_type(events, ev.ToolStarted) if e.router == "analytics"]
    pending = of_type(events, ev.ConfirmationPending)
    recipients = [p.confirmation.outbound["recipients"] for p in pending]  # type: ignore[union-attr]
    assert sorted(r for to in recipients for r in to) == sorted(LAPSED)
    for card in pending:
        assert card.confirm == "always" and card.confirmation is not None
        outbound = card.confirmation.outbound
        assert outbound is not None and "days since your last class" in outbound["body"]
    said = text_of(events)
    assert all(name in said for name in LAPSED) and "analytics.insight" in said
    assert (read.action, read.input["args"]) == ("insight", {"kind": "members_at_risk"})


async def test_approved_check_ins_are_sent_and_counted(db: Database, owner: Caller) -> None:
    model = demo_model()
    events = await run_turn(deps_for(db, model), owner, "Who is at risk?", selection=FROM_THE_CARD)
    conversation = uuid.UUID(conversation_id_of(events))
    pending = of_type(events, ev.ConfirmationPending)
    deps = deps_for(db, model)
    decisions = [Decision(p.tool_use_id, True) for p in pending]
    after = await collect(resolution.confirm_batch(deps, owner, conversation, decisions))
    assert f"{len(LAPSED)} of {len(LAPSED)} check-in messages sent" in text_of(after)
