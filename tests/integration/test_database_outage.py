"""With Postgres gone, requests answer 503 `service_unavailable` within seconds (never a hang,
never 500); streams end with that code; the pool heals by itself when the server is back."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Iterator

import httpx
import psycopg
import pytest

from spotter.agent import events as ev
from spotter.agent.run import SendMessage, send_message
from spotter.auth import Caller
from spotter.config import Settings
from spotter.db import Database
from spotter.http.app import create_app
from spotter.providers.fake import Reply, ScriptedModel, Text
from tests.support.agent import deps_for, run_turn
from tests.support.callers import caller_for
from tests.support.history import stored_history_violations
from tests.support.outage import OwnServer
from tests.support.outage import own_server as own_server_for
from tests.support.tokens import TokenFactory
from tests.support.world import Org, create_org

# Bounded waits: connect 3 s, pool checkout 5 s; the answer may take one of each.
ANSWER_WITHIN_SECONDS = 9.0


@pytest.fixture
def own_server() -> Iterator[OwnServer]:
    # not under tmp_path: pytest resets /tmp/pytest-of-<user> to 0700 whenever any session
    # starts (other worktrees' too), locking the server's own user out mid-test
    with own_server_for("spotter-outage-") as server:
        yield server


@pytest.fixture
def outage_org(own_server: OwnServer) -> Org:
    return create_org(own_server.url, name="Outage Box")


@pytest.fixture
async def outage_client(
    settings: Settings, own_server: OwnServer
) -> AsyncIterator[httpx.AsyncClient]:
    db = await Database.open(own_server.app_url, max_size=2)
    app = create_app(settings, db=db)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://spotter.test") as c:
        yield c
    await db.close()


@pytest.fixture
def owner_headers(tokens: TokenFactory, outage_org: Org) -> dict[str, str]:
    token = tokens.token(outage_org["owner"].clerk_user_id, outage_org.clerk_org_id)
    return {"authorization": f"Bearer {token}"}


async def test_a_request_during_an_outage_is_503_with_retry_after_within_seconds(
    outage_client: httpx.AsyncClient, owner_headers: dict[str, str], own_server: OwnServer
) -> None:
    assert (await outage_client.get("/agent/usage", headers=owner_headers)).status_code == 200
    await asyncio.to_thread(own_server.stop)
    started = time.monotonic()
    response = await outage_client.get("/agent/usage", headers=owner_headers)
    elapsed = time.monotonic() - started
    assert response.status_code == 503
    body = response.json()
    assert body["code"] == "service_unavailable"
    assert body["traceId"] == response.headers["x-trace-id"]
    assert int(response.headers["retry-after"]) > 0
    assert elapsed < ANSWER_WITHIN_SECONDS, f"answered after {elapsed:.1f} s"


async def test_the_pool_recovers_by_itself_when_the_database_returns(
    outage_client: httpx.AsyncClient, owner_headers: dict[str, str], own_server: OwnServer
) -> None:
    assert (await outage_client.get("/agent/usage", headers=owner_headers)).status_code == 200
    await asyncio.to_thread(own_server.stop)
    assert (await outage_client.get("/agent/usage", headers=owner_headers)).status_code == 503
    await asyncio.to_thread(own_server.start)
    deadline = time.monotonic() + 20
    statuses: list[int] = []
    while time.monotonic() < deadline:
        response = await outage_client.get("/agent/usage", headers=owner_headers)
        statuses.append(response.status_code)
        if response.status_code == 200:
            break
        await asyncio.sleep(0.5)
    assert statuses[-1] == 200, f"still failing after the restart: {statuses}"
    assert set(statuses) <= {200, 503}, "only ever 503 while healing, never 500"


async def test_an_in_flight_stream_ends_with_service_unavailable_and_the_next_message_works(
    settings: Settings, own_server: OwnServer, outage_org: Org
) -> None:
    db = await Database.open(own_server.app_url, max_size=2)
    try:
        caller = await caller_for(db, outage_org, "owner")
        slow = Reply([Text("A long answer that the outage will interrupt. " * 6)], delay_s=0.05)
        request = SendMessage("hello", "/dashboard")
        events: list[ev.AgentEvent] = []
        started = 0.0
        async for event in send_message(deps_for(db, ScriptedModel([slow])), caller, request):
            events.append(event)
            if isinstance(event, ev.TextDelta) and not started:
                await asyncio.to_thread(own_server.stop)  # Postgres goes away mid-run
                started = time.monotonic()
        elapsed = time.monotonic() - started
        assert [e.code for e in events if isinstance(e, ev.Error)] == ["service_unavailable"]
        assert isinstance(events[-1], ev.Done)
        assert elapsed < ANSWER_WITHIN_SECONDS * 2, f"the stream ended {elapsed:.1f} s later"

        await asyncio.to_thread(own_server.start)
        conversation = next(e for e in events if isinstance(e, ev.ConversationStarted))
        # no waiting out the lease: the ended run frees its conversation once Postgres is back
        again = await _retry_until_up(db, caller, conversation.conversation_id)
        assert not [e for e in again if isinstance(e, ev.Error)]
        assert stored_history_violations(own_server.url) == {}
    finally:
        await db.close()


async def test_runs_ended_by_a_postgres_restart_free_their_conversations_when_it_is_back(
    settings: Settings, own_server: OwnServer, outage_org: Org
) -> None:
    """The blip of issue 30 item 10: a restart under load left conversations leased for the
    TTL although their runs had ended. Each ended run writes its final batch and releases its
    lease once the database answers again: events kept, ids continuing, nothing to wait out."""
    db = await Database.open(own_server.app_url, max_size=4)
    try:
        caller = await caller_for(db, outage_org, "owner")
        conversations = []
        for _ in range(3):
            first = await run_turn(deps_for(db, ScriptedModel([Reply([Text("Hi.")])])), caller)
            conversations.append(next(e for e in first if isinstance(e, ev.Done)).conversation_id)
        streaming = asyncio.Event()

        async def send(conversation: str | None) -> list[ev.AgentEvent]:
            slow = Reply([Text("An answer the restart cuts. " * 10)], delay_s=0.05)
            seen = []
            request = SendMessage("go on", "/dashboard", conversation_id=uuid.UUID(conversation))
            async for event in send_message(deps_for(db, ScriptedModel([slow])), caller, request):
                seen.append(event)
                if isinstance(event, ev.TextDelta):
                    streaming.set()
            return seen

        runs = [asyncio.create_task(send(c)) for c in conversations]
        await asyncio.wait_for(streaming.wait(), 10)
        await asyncio.to_thread(own_server.restart)  # a blip: down and straight back up
        ended = await asyncio.wait_for(asyncio.gather(*runs), 60)
        for events in ended:
            assert isinstance(events[-1], ev.Done)
        for _ in range(80):  # the final writes are retried in the background: seconds
            if not _leased(own_server.url, conversations):
                break
            await asyncio.sleep(0.25)
        assert _leased(own_server.url, conversations) == [], "every ended run released"
        for conversation in conversations:
            ids = _event_ids(own_server.url, conversation)
            assert ids == list(range(1, len(ids) + 1)), "every event kept, once, in order"
            model = ScriptedModel([Reply([Text("Back.")])])
            after = await run_turn(deps_for(db, model), caller, "ok?", conversation_id=conversation)
            assert not [e for e in after if isinstance(e, ev.Error)]
        assert stored_history_violations(own_server.url) == {}
    finally:
        await db.close()


def _leased(url: str, conversations: list[str]) -> list[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT id FROM ai_conversations WHERE id = ANY(%s::uuid[])"
            " AND live_run_id IS NOT NULL",
            (conversations,),
        ).fetchall()
    return [str(r[0]) for r in rows]


def _event_ids(url: str, conversation: str) -> list[int]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT events FROM ai_run_events WHERE conversation_id = %s ORDER BY first_seq",
            (conversation,),
        ).fetchall()
    return [seq for (events,) in rows for seq, _ in events]


async def _retry_until_up(db: Database, caller: Caller, conversation: str) -> list[ev.AgentEvent]:
    deadline = time.monotonic() + 20
    while True:
        model = ScriptedModel([Reply([Text("Back again.")])])
        events = await run_turn(
            deps_for(db, model), caller, "still there?", conversation_id=conversation
        )
        codes = [e.code for e in events if isinstance(e, ev.Error)]
        if codes != ["service_unavailable"] or time.monotonic() > deadline:
            return events
        await asyncio.sleep(0.5)
