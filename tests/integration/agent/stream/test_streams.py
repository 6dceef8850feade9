"""Streams that survive the dashboard: ids, replay and follow from another instance, a client
that leaves, stop, and the HTTP surface (`GET …/stream`, `POST …/stop`)."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator

import httpx
import pytest
from starlette.types import Message

from spotter.agent.run import SendMessage, send_message
from spotter.agent.stream import LiveRun, Recorded, follow, request_stop, start_live
from spotter.agent.stream.log import LOCAL_RUNS
from spotter.agent.transcript.replay import alternating, api_role, validate_replay
from spotter.auth import Caller
from spotter.db import Database
from spotter.http.sse import recorded_response
from spotter.providers.fake import Reply, ScriptedModel, Text
from tests.support.agent import deps_for, roles, sse_frames, stored_messages
from tests.support.callers import caller_for
from tests.support.tokens import TokenFactory
from tests.support.world import Org

STORY = "a long answer " * 20  # 18 deltas


def slow() -> Reply:
    return Reply([Text(STORY)], delay_s=0.06)  # about a second of text


@pytest.fixture
async def owner(db: Database, org: Org) -> Caller:
    return await caller_for(db, org, "owner")


@pytest.fixture
async def other_instance(app_url: str) -> AsyncIterator[Database]:
    """A second pool: what another Lambda container would have."""
    pool = await Database.open(app_url, max_size=2)
    yield pool
    await pool.close()


def live_send(
    db: Database, model: ScriptedModel, caller: Caller, text: str, **kw: object
) -> LiveRun:
    deps = deps_for(db, model)
    request = SendMessage(text=text, pathname="/", **kw)  # type: ignore[arg-type]
    return start_live(lambda log: send_message(deps, caller, request, log=log))


async def take(events: AsyncIterator[Recorded], count: int) -> list[Recorded]:
    seen = []
    async for recorded in events:
        seen.append(recorded)
        if len(seen) == count:
            break
    return seen


async def test_every_event_of_a_run_has_the_next_id_of_its_conversation(
    db: Database, owner: Caller
) -> None:
    model = ScriptedModel([Reply([Text("one")]), Reply([Text("two")])])
    first = [r async for r in live_send(db, model, owner, "hi").events()]
    cid = uuid.UUID(first[0].data["conversationId"])
    second = [r async for r in live_send(db, model, owner, "again", conversation_id=cid).events()]
    ids = [r.seq for r in first + second]
    assert ids == list(range(1, len(ids) + 1))
    assert [r.type for r in second] == ["text_delta", "message_done", "done"]


async def test_a_reconnect_mid_run_from_another_instance_gets_every_event_once_in_order(
    db: Database, other_instance: Database, owner: Caller
) -> None:
    model = ScriptedModel([slow()])
    live = live_send(db, model, owner, "tell me a story")
    events = live.events()
    seen = await take(events, 4)  # conversation_started and three deltas, then the tab reloads
    cid = uuid.UUID(seen[0].data["conversationId"])
    last = seen[-1].seq
    assert last is not None
    followed = [r async for r in follow(other_instance, owner, cid, after=last)]
    rest = [r async for r in events]  # the original connection, had it stayed
    assert followed == rest, "the follower sees exactly what the first connection saw next"
    assert [r.seq for r in followed] == list(range(last + 1, last + 1 + len(followed)))
    assert followed[-1].type == "done"
    text = "".join(r.data["delta"] for r in seen + followed if r.type == "text_delta")
    assert text == STORY


async def test_a_client_that_leaves_does_not_stop_the_run_and_a_reload_shows_the_answer(
    db: Database, other_instance: Database, owner: Caller, clean_db: str
) -> None:
    model = ScriptedModel([slow()])
    live = live_send(db, model, owner, "tell me a story")
    events = live.events()
    seen = await take(events, 2)
    await events.aclose()  # the dashboard closed the sheet; the request waits for the run
    assert live.task.done() and model.streams_finished == 1 and model.streams_cut == 0
    cid = seen[0].data["conversationId"]
    assert roles(clean_db, cid) == ["user", "assistant"]
    replay = [r async for r in follow(other_instance, owner, uuid.UUID(cid))]
    assert replay[0].seq == 1 and replay[-1].type == "done"
    assert "".join(r.data["delta"] for r in replay if r.type == "text_delta") == STORY


async def _stop_and_check(
    db: Database, stopper: Database, owner: Caller, clean_db: str, *, other_instance: bool
) -> None:
    model = ScriptedModel([slow(), Reply([Text("fresh start")])])
    live = live_send(db, model, owner, "tell me a story")
    events = live.events()
    seen = await take(events, 3)
    cid = uuid.UUID(seen[0].data["conversationId"])
    watcher = asyncio.create_task(_collect(follow(stopper, owner, cid, after=seen[-1].seq or 0)))
    if other_instance:
        LOCAL_RUNS.pop(cid)  # the run is not in the stopping process: only the database says
    assert await request_stop(stopper, owner, cid) is True
    rest = [r async for r in events]
    assert [r.type for r in rest][-2:] == ["error", "done"]
    assert rest[-2].data["code"] == "run_stopped"
    assert model.streams_cut == 1 and model.streams_finished == 0
    watched = await watcher
    assert watched[-2:] == rest[-2:], "everyone watching sees the stop"
    assert await request_stop(stopper, owner, cid) is False, "stopping again changes nothing"
    assert roles(clean_db, str(cid)) == ["user"]
    again = [r async for r in live_send(db, model, owner, "again", conversation_id=cid).events()]
    assert [r.type for r in again] == ["text_delta", "message_done", "done"]
    stored = stored_messages(clean_db, str(cid))
    sent = alternating([{"role": api_role(m["role"]), "content": m["content"]} for m in stored])
    assert validate_replay(sent).ok  # what the next run replays is a valid request


async def _collect(events: AsyncIterator[Recorded]) -> list[Recorded]:
    return [r async for r in events]


async def test_stop_mid_stream_ends_the_run_for_everyone_and_keeps_a_valid_history(
    db: Database, other_instance: Database, owner: Caller, clean_db: str
) -> None:
    await _stop_and_check(db, other_instance, owner, clean_db, other_instance=False)


async def test_a_stop_from_another_instance_reaches_the_run_through_the_database(
    db: Database, other_instance: Database, owner: Caller, clean_db: str
) -> None:
    await _stop_and_check(db, other_instance, owner, clean_db, other_instance=True)


def parsed(text: str) -> list[tuple[int, str, object]]:
    """Each frame's id, event and data (parsed: a replay comes back from jsonb, key order aside)."""
    return [(int(f["id"]), f["event"], json.loads(f["data"])) for f in sse_frames(text)]


def _auth(tokens: TokenFactory, org: Org) -> dict[str, str]:
    token = tokens.token(org["owner"].clerk_user_id, org.clerk_org_id)
    return {"authorization": f"Bearer {token}"}


async def test_a_reconnect_after_done_replays_to_done_and_ends(
    agent_client: httpx.AsyncClient, model: ScriptedModel, tokens: TokenFactory, org: Org
) -> None:
    model.script.append(Reply([Text("Hello there, coach.")]))
    headers = _auth(tokens, org)
    body = {"text": "hi", "pageContext": {"pathname": "/"}}
    sent = parsed((await agent_client.post("/agent/messages", json=body, headers=headers)).text)
    assert [f[0] for f in sent] == list(range(1, len(sent) + 1))
    cid = sent[0][2]["conversationId"]  # type: ignore[index]
    url = f"/agent/conversations/{cid}/stream"
    resumed = await agent_client.get(url, headers={**headers, "last-event-id": "2"})
    assert resumed.status_code == 200
    assert parsed(resumed.text) == sent[2:]
    by_query = await agent_client.get(url, params={"after": 1}, headers=headers)
    assert parsed(by_query.text) == sent[1:]
    after_done = await agent_client.get(url, params={"after": len(sent)}, headers=headers)
    assert after_done.status_code == 200 and after_done.text == ""


async def test_stream_and_stop_refuse_a_foreign_conversation_and_a_bad_id(
    agent_client: httpx.AsyncClient, tokens: TokenFactory, org: Org
) -> None:
    headers = _auth(tokens, org)
    missing = uuid.uuid4()
    stream = await agent_client.get(f"/agent/conversations/{missing}/stream", headers=headers)
    assert stream.status_code == 404 and stream.json()["code"] == "not_found"
    stop = await agent_client.post(f"/agent/conversations/{missing}/stop", headers=headers)
    assert stop.status_code == 404
    bad = await agent_client.get(
        f"/agent/conversations/{missing}/stream", headers={**headers, "last-event-id": "x"}
    )
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_request"


async def test_stop_over_http_is_idempotent_when_nothing_runs(
    agent_client: httpx.AsyncClient, model: ScriptedModel, tokens: TokenFactory, org: Org
) -> None:
    model.script.append(Reply([Text("Done already.")]))
    headers = _auth(tokens, org)
    body = {"text": "hi", "pageContext": {"pathname": "/"}}
    sent = sse_frames((await agent_client.post("/agent/messages", json=body, headers=headers)).text)
    cid = sent[0]["data"].split('"conversationId":"')[1].split('"')[0]
    for _ in range(2):
        stop = await agent_client.post(f"/agent/conversations/{cid}/stop", headers=headers)
        assert stop.status_code == 200 and stop.json() == {"stopping": False}


async def test_the_http_response_of_a_client_that_left_waits_for_the_run_to_finish(
    db: Database, owner: Caller, clean_db: str
) -> None:
    """Starlette ends the response when a send fails (the client is gone); the run goes on and
    the request only returns once it has, so a Lambda invocation outlives no run of its own."""
    model = ScriptedModel([slow()])
    live = live_send(db, model, owner, "tell me a story")
    response = recorded_response(live.events(), run=live.task)
    sent: list[Message] = []

    async def send(message: Message) -> None:
        if message["type"] == "http.response.body" and message.get("body"):
            sent.append(message)
            if len(sent) == 2:
                raise OSError("the client went away")

    async def receive() -> Message:
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    scope = {"type": "http", "asgi": {"spec_version": "2.4"}, "method": "POST", "headers": []}
    with pytest.raises(Exception):  # noqa: B017, PT011 - Starlette's wrapper of the send failure
        await response(scope, receive, send)
    assert live.task.done() and model.streams_finished == 1 and model.streams_cut == 0
    cid = json.loads(sent[0]["body"].decode().split("data: ", 1)[1])["conversationId"]
    assert roles(clean_db, cid) == ["user", "assistant"]
