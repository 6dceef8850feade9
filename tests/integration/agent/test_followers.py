"""Followers that cost little (issue 22): a poll is one statement in one round trip, a run silent
for longer than a flush is polled ever more slowly (at most every 2 s), events bring the short
pause back, and the follower ends with the run."""

from __future__ import annotations

import importlib
import uuid
from collections.abc import AsyncIterator, Iterator
from types import SimpleNamespace
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb

from spotter.agent.stream import follow
from spotter.auth import Caller
from spotter.db import Database
from tests.support.bench import bench_module
from tests.support.callers import caller_for
from tests.support.world import Org

# the module (the package exports its `follow` function under the same name)
follow_module = importlib.import_module("spotter.agent.stream.follow")


@pytest.fixture
async def owner(db: Database, org: Org) -> Caller:
    return await caller_for(db, org, "owner")


def _live_conversation(url: str, org: Org) -> tuple[uuid.UUID, uuid.UUID]:
    """A conversation whose run holds the lease and has said nothing yet."""
    conversation, run = uuid.uuid4(), uuid.uuid4()
    with psycopg.connect(url) as conn:
        conn.execute(
            "INSERT INTO ai_conversations (id, organization_id, user_id, live_run_id,"
            " live_run_claimed_at) VALUES (%s, %s, %s, %s, clock_timestamp())",
            (conversation, org.id, org["owner"].user_id, run),
        )
    return conversation, run


def _say(
    url: str, org: Org, conversation: uuid.UUID, run: uuid.UUID, seqs: range, *, end: bool
) -> None:
    """The run's next batch (its last, releasing the lease, when `end`), as its log writes it."""
    events = [[seq, {"type": "done" if end and seq == seqs[-1] else "text_delta"}] for seq in seqs]
    with psycopg.connect(url) as conn:
        conn.execute(
            "INSERT INTO ai_run_events (organization_id, conversation_id, run_id, first_seq,"
            " last_seq, events, final) VALUES (%s, %s, %s, %s, %s, %s, %s)",
            (org.id, conversation, run, seqs[0], seqs[-1], Jsonb(events), end),
        )
        if end:
            conn.execute(
                "UPDATE ai_conversations SET live_run_id = NULL, live_run_claimed_at = NULL"
                " WHERE id = %s",
                (conversation,),
            )
        else:
            conn.execute(
                "UPDATE ai_conversations SET live_run_claimed_at = clock_timestamp() WHERE id = %s",
                (conversation,),
            )


@pytest.fixture
def counted(direct_app_url: str) -> Iterator[Any]:
    """The app's login through the benchmarks' round-trip counter."""
    wire = bench_module("wire_counter")
    with wire.RoundTripProxy.for_url(direct_app_url) as proxy:
        yield proxy


@pytest.fixture
async def counted_db(counted: Any, direct_app_url: str) -> AsyncIterator[Database]:
    pool = await Database.open(counted.url(direct_app_url), max_size=1)
    yield pool
    await pool.close()


async def test_a_poll_is_one_statement_in_one_round_trip(
    db: Database, counted: Any, counted_db: Database, org: Org, clean_db: str
) -> None:
    conversation, run = _live_conversation(clean_db, org)
    _say(clean_db, org, conversation, run, range(1, 4), end=False)
    before = counted.round_trips
    live, found = await follow_module._read(counted_db, org.id, conversation, after=1)
    assert counted.round_trips - before == 1, "no BEGIN, no COMMIT, no second read"
    assert live and [r.seq for r in found] == [2, 3]


async def test_a_poll_sees_only_its_own_orgs_run(
    db: Database, org: Org, other_org: Org, clean_db: str
) -> None:
    conversation, run = _live_conversation(clean_db, other_org)
    _say(clean_db, other_org, conversation, run, range(1, 3), end=False)
    live, found = await follow_module._read(db, org.id, conversation, after=0)
    assert (live, found) == (False, [])


async def test_a_silent_run_is_polled_ever_more_slowly_and_the_follower_ends_with_it(
    db: Database, owner: Caller, org: Org, clean_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    conversation, run = _live_conversation(clean_db, org)
    pauses: list[float] = []

    async def the_run_goes_on(seconds: float) -> None:
        """Instead of sleeping: the run speaks after the 6th silent poll and ends at the 9th."""
        pauses.append(seconds)
        if len(pauses) == 6:
            _say(clean_db, org, conversation, run, range(1, 3), end=False)
        if len(pauses) == 9:
            _say(clean_db, org, conversation, run, range(3, 5), end=True)

    monkeypatch.setattr(follow_module, "asyncio", SimpleNamespace(sleep=the_run_goes_on))
    seen = [r async for r in follow(db, owner, conversation)]
    assert [r.seq for r in seen] == [1, 2, 3, 4] and seen[-1].type == "done"
    assert pauses == [0.25, 0.25, 0.5, 1.0, 2.0, 2.0, 0.25, 0.25, 0.25]
