"""One run per conversation: the lease on the conversation row, under races and crashes.

A send, confirm or pick that arrives while a run of the conversation is live is
`conversation_busy` (localized, naming the live run) and writes nothing; a run that died holds
the conversation only until its lease is two minutes old (the claims' rule).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import psycopg
import pytest

from spotter.agent import events as ev
from spotter.agent.executions import CLAIM_TTL
from spotter.agent.run import resolve as resolution
from spotter.agent.run_lease import LEASE_TTL, acquire_lease, live_run, release_lease
from spotter.auth import Caller
from spotter.db import Database
from spotter.errors import NotFoundError
from spotter.i18n import error_message
from spotter.providers.fake import Reply, ScriptedModel, Text
from tests.support.agent import conversation_id_of, deps_for, roles, run_turn, stored_messages
from tests.support.callers import caller_for
from tests.support.hitl import add_program, archive, collect, of_type, program_status, suspend
from tests.support.send_child import kill_send_at
from tests.support.world import Org


@pytest.fixture
async def owner(db: Database, org: Org) -> Caller:
    return await caller_for(db, org, "owner")


@pytest.fixture
async def pools(app_url: str) -> AsyncIterator[list[Database]]:
    """Independent clients, as tabs or double taps would be."""
    opened = [await Database.open(app_url, max_size=1) for _ in range(4)]
    yield opened
    await asyncio.gather(*(p.close() for p in opened))


async def _conversation(db: Database, owner: Caller) -> uuid.UUID:
    events = await run_turn(deps_for(db, ScriptedModel([Reply([Text("Hi.")])])), owner, "hi")
    return uuid.UUID(conversation_id_of(events))


def _lease(url: str, conversation: uuid.UUID) -> tuple[uuid.UUID | None, object]:
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT live_run_id, live_run_claimed_at FROM ai_conversations WHERE id = %s",
            (conversation,),
        ).fetchone()
    assert row is not None
    return row[0], row[1]


def _age_lease(url: str, conversation: uuid.UUID, seconds: float) -> None:
    with psycopg.connect(url) as conn:
        conn.execute(
            "UPDATE ai_conversations SET live_run_claimed_at = clock_timestamp() - %s * interval"
            " '1 second' WHERE id = %s",
            (seconds, conversation),
        )


def _busy(events: list[ev.AgentEvent]) -> ev.Error | None:
    errors = [e for e in of_type(events, ev.Error) if e.code == "conversation_busy"]
    return errors[0] if errors else None


def test_the_lease_expires_by_the_claims_rule() -> None:
    assert LEASE_TTL == CLAIM_TTL


async def test_parallel_sends_into_one_conversation_run_one_and_refuse_the_rest(
    db: Database, owner: Caller, clean_db: str, pools: list[Database]
) -> None:
    conversation = await _conversation(db, owner)
    before = len(stored_messages(clean_db, str(conversation)))
    script = [Reply([Text("The one answer, streamed slowly.")], delay_s=0.05) for _ in pools]
    model = ScriptedModel(script)

    async def send(pool: Database) -> list[ev.AgentEvent]:
        return await run_turn(
            deps_for(pool, model), owner, "double tap", conversation_id=conversation
        )

    outcomes = await asyncio.gather(*(send(p) for p in pools))
    winners = [o for o in outcomes if _busy(o) is None]
    assert len(winners) == 1 and not of_type(winners[0], ev.Error)
    rows = stored_messages(clean_db, str(conversation))
    assert [r["role"] for r in rows[before:]] == ["user", "assistant"], "the losers wrote nothing"
    winner_run = rows[-1]["run_id"]
    for loser in (o for o in outcomes if o is not winners[0]):
        busy = _busy(loser)
        assert busy is not None and busy.run_id == str(winner_run)
        assert [e.type for e in loser] == ["error", "done"]
    assert len(model.requests) == 1, "only the winner asked the model"
    assert _lease(clean_db, conversation) == (None, None), "released at the end"


async def test_a_send_racing_a_confirm_runs_one_of_them(
    db: Database, org: Org, owner: Caller, clean_db: str, pools: list[Database]
) -> None:
    a = add_program(clean_db, org, "A")
    model = ScriptedModel()
    conversation, _ = await suspend(db, owner, model, archive(a, "t1"))
    model.script += [Reply([Text("Done.")], delay_s=0.05), Reply([Text("Hi.")], delay_s=0.05)]
    send = run_turn(deps_for(pools[0], model), owner, "also this", conversation_id=conversation)
    decide = collect(resolution.confirm(deps_for(pools[1], model), owner, conversation, "t1", True))
    sent, confirmed = await asyncio.gather(send, decide)
    busy = [o for o in (sent, confirmed) if _busy(o) is not None]
    assert len(busy) == 1, "exactly one of them was refused"
    after = stored_messages(clean_db, str(conversation))
    texts = [b.get("text", "") for r in after for b in r["content"] if b.get("type") == "text"]
    sent_stored = any("also this" in t for t in texts)
    assert sent_stored == (busy[0] is confirmed), "the refused send wrote no user turn"
    refused = _busy(busy[0])
    assert refused is not None and refused.run_id == str(after[-1]["run_id"]), "the winner's run"
    archived = program_status(clean_db, a) == "archived"
    assert archived == (busy[0] is sent), "the confirm ran only when it won"


async def test_busy_is_localized_and_names_the_live_run(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    conversation = await _conversation(db, owner)
    holder = uuid.uuid4()
    async with db.org_tx(org.id) as conn:
        await acquire_lease(conn, owner, conversation, holder)
    hebrew = await caller_for(db, org, "owner", "he")
    events = await run_turn(
        deps_for(db, ScriptedModel()), hebrew, "שלום", conversation_id=conversation
    )
    busy = _busy(events)
    assert busy is not None and busy.run_id == str(holder)
    assert (
        busy.message
        == error_message("conversation_busy", "he")
        != error_message("conversation_busy", "en")
    )


@pytest.mark.parametrize(
    ("age", "busy"), [(CLAIM_TTL.total_seconds() - 2, True), (CLAIM_TTL.total_seconds() + 2, False)]
)
async def test_a_lease_is_taken_over_only_after_two_minutes(
    db: Database, org: Org, owner: Caller, clean_db: str, age: float, busy: bool
) -> None:
    conversation = await _conversation(db, owner)
    dead = uuid.uuid4()
    async with db.org_tx(org.id) as conn:
        await acquire_lease(conn, owner, conversation, dead)
    _age_lease(clean_db, conversation, age)
    model = ScriptedModel([Reply([Text("Back.")])])
    events = await run_turn(deps_for(db, model), owner, "again", conversation_id=conversation)
    assert (_busy(events) is not None) == busy
    holder = await live_run(db, org.id, conversation)
    assert holder == (dead if busy else None), "a live lease stays; the new run released its own"


async def test_a_foreign_conversation_is_not_found_not_busy(
    db: Database, org: Org, owner: Caller
) -> None:
    conversation = await _conversation(db, owner)
    coach = await caller_for(db, org, "coach")
    async with db.org_tx(org.id) as conn:
        with pytest.raises(NotFoundError):
            await acquire_lease(conn, coach, conversation, uuid.uuid4())


async def test_a_run_whose_lease_was_taken_over_writes_nothing_more(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    conversation = await _conversation(db, owner)
    before = len(stored_messages(clean_db, str(conversation)))
    usurper = uuid.uuid4()
    entered = asyncio.Event()

    def slow_then_usurped(body: dict[str, object]) -> Reply:
        # while the model "streams", the run is presumed dead and another run takes over
        with psycopg.connect(clean_db) as conn:
            conn.execute(
                "UPDATE ai_conversations SET live_run_id = %s, live_run_claimed_at = now()"
                " WHERE id = %s",
                (usurper, conversation),
            )
        entered.set()
        return Reply([Text("A late answer.")])

    model = ScriptedModel([slow_then_usurped])
    events = await run_turn(deps_for(db, model), owner, "slow", conversation_id=conversation)
    assert entered.is_set()
    busy = _busy(events)
    assert busy is not None and busy.run_id == str(usurper)
    assert [r["role"] for r in stored_messages(clean_db, str(conversation))[before:]] == ["user"]
    assert _lease(clean_db, conversation)[0] == usurper, "the usurper's lease is untouched"


async def test_release_clears_only_the_holders_lease(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    conversation = await _conversation(db, owner)
    holder = uuid.uuid4()
    async with db.org_tx(org.id) as conn:
        await acquire_lease(conn, owner, conversation, holder)
    await release_lease(db, org.id, conversation, uuid.uuid4())
    assert _lease(clean_db, conversation)[0] == holder
    await release_lease(db, org.id, conversation, holder)
    assert _lease(clean_db, conversation) == (None, None)


async def test_a_killed_run_holds_the_conversation_until_it_is_known_dead(
    db: Database, org: Org, owner: Caller, clean_db: str, app_url: str
) -> None:
    conversation = await _conversation(db, owner)
    await kill_send_at(app_url, org, conversation, "stream", "text_delta")
    dead_run, _ = _lease(clean_db, conversation)
    assert dead_run is not None

    refused = await run_turn(
        deps_for(db, ScriptedModel()), owner, "hello?", conversation_id=conversation
    )
    busy = _busy(refused)
    assert busy is not None and busy.run_id == str(dead_run)

    _age_lease(clean_db, conversation, CLAIM_TTL.total_seconds() + 1)
    model = ScriptedModel([Reply([Text("I am back.")])])
    events = await run_turn(deps_for(db, model), owner, "hello?", conversation_id=conversation)
    assert not of_type(events, ev.Error) and isinstance(events[-1], ev.Done)
    assert roles(clean_db, str(conversation))[-1] == "assistant"
