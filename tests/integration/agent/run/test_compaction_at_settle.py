"""Issue 26 item 8 (spec 002): compaction off the user's path. A turn that makes the
conversation due is compacted when it settles — after `done`, on the same stream, before its
lease is released (the same invocation) — so the next send does not wait for the summary; a
send that finds it in flight waits for it (bounded) instead of being refused or skipping it;
every open stream of the conversation sees it; the summary's usage is kept on its marker."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from spotter.agent import events as ev
from spotter.agent.cost.model_policy import FAST_MODEL
from spotter.agent.run import SendMessage, send_message
from spotter.agent.stream.follow import follow
from spotter.db import Database
from spotter.providers.fake import FakeUsage, Reply, ScriptedModel, Text, tool_reply
from tests.support.agent import (
    DEFAULT_SUMMARY,
    conversation_row,
    deps_for,
    kinds,
    long_conversation,
    run_turn,
    stored_messages,
)
from tests.support.callers import caller_for
from tests.support.hitl import add_program, archive, of_type
from tests.support.world import Org

SUMMARY_USAGE = FakeUsage(input_tokens=900, output_tokens=120)


async def test_compaction_off_the_users_path_a_settled_turn_compacts_after_done(
    db: Database, org: Org, clean_db: str
) -> None:
    # 22 stored + the new turn's 2 = 24 messages: due when this turn settles, not before it
    conversation = long_conversation(clean_db, org, exchanges=11, usage=None)
    model = ScriptedModel([Reply([Text("Here you go.")]), Reply([Text("And more.")])])
    model.lanes["compaction"] = [Reply([Text(DEFAULT_SUMMARY)], usage=SUMMARY_USAGE)]
    owner = await caller_for(db, org, "owner")
    deps = deps_for(db, model)
    events = await run_turn(deps, owner, "what next?", conversation_id=conversation)
    assert kinds(events) == [
        "text_delta", "message_done", "done", "compaction_started", "compaction_finished",
    ]  # fmt: skip
    finished = events[-1]
    assert isinstance(finished, ev.CompactionFinished) and finished.compacted
    assert finished.summarized_messages == 18
    after = conversation_row(clean_db, conversation)
    assert after["live_run_id"] is None and after["compacting_since"] is None, "free once done"

    # the next send replays the projection, with no summary on its path
    events = await run_turn(deps, owner, "thanks", conversation_id=conversation)
    assert kinds(events) == ["text_delta", "message_done", "done"]
    sent = model.requests[1]["messages"]
    # the summary and the kept tail's first user turn are one user message, then the rest
    assert DEFAULT_SUMMARY in sent[0]["content"][0]["text"]
    assert sent[0]["content"][1]["text"] == "question 9"
    assert [m["content"][0]["text"] for m in sent[1:-1]] == [
        "answer 9", "question 10", "answer 10", "what next?", "Here you go."
    ]  # fmt: skip
    assert len(model.lane_requests["compaction"]) == 1


async def test_compaction_off_the_users_path_reaches_every_open_stream_of_the_conversation(
    db: Database, org: Org, clean_db: str
) -> None:
    conversation = long_conversation(clean_db, org, exchanges=11, usage=None)
    model = ScriptedModel([Reply([Text("Here you go.")])])
    # a summary slow enough for a follower to be reading while it is written
    model.lanes["compaction"] = [Reply([Text(DEFAULT_SUMMARY)], delay_s=0.05)]
    owner = await caller_for(db, org, "owner")
    request = SendMessage("what next?", "/dashboard", conversation_id=uuid.UUID(conversation))
    followed: list[tuple[int | None, str]] = []

    async def follower() -> None:
        async for recorded in follow(db, owner, uuid.UUID(conversation), 0):
            followed.append((recorded.seq, recorded.type))

    sent: list[ev.AgentEvent] = []
    following: asyncio.Task[None] | None = None
    async for event in send_message(deps_for(db, model), owner, request):
        sent.append(event)
        if event.type == "message_done":
            following = asyncio.create_task(follower())  # a second tab, mid-run
    assert following is not None
    await asyncio.wait_for(following, 10)
    tail = [kind for _, kind in followed][-3:]
    assert tail == ["done", "compaction_started", "compaction_finished"], "a follower sees it"
    seqs = [seq for seq, _ in followed]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs), "ids in order, once each"
    assert kinds(sent)[-3:] == tail, "and so does the sender's own stream"
    # a reconnect later replays it too, then ends
    replayed = [r.type async for r in follow(db, owner, uuid.UUID(conversation), 0)]
    assert replayed[-3:] == tail


async def test_compaction_off_the_users_path_a_send_during_it_waits_for_it(
    db: Database, org: Org, clean_db: str
) -> None:
    conversation = long_conversation(clean_db, org, exchanges=11, usage=None)
    model = ScriptedModel([Reply([Text("Here you go.")]), Reply([Text("Now this.")])])
    model.lanes["compaction"] = [Reply([Text(DEFAULT_SUMMARY)], delay_s=0.08)]
    owner = await caller_for(db, org, "owner")
    deps = deps_for(db, model)
    first = SendMessage("what next?", "/dashboard", conversation_id=uuid.UUID(conversation))
    second: asyncio.Task[list[ev.AgentEvent]] | None = None
    async for event in send_message(deps, owner, first):
        if event.type == "done":
            # the client has its answer and sends again at once: the summary is in flight
            second = asyncio.create_task(
                run_turn(deps, owner, "and then?", conversation_id=conversation)
            )
    assert second is not None
    events = await second
    assert not [e for e in events if isinstance(e, ev.Error)], "waited, not refused"
    assert kinds(events)[:2] == ["compaction_started", "compaction_finished"]
    waited = events[1]
    assert isinstance(waited, ev.CompactionFinished)
    assert waited.compacted and waited.summarized_messages == 18
    assert kinds(events)[2:] == ["text_delta", "message_done", "done"]
    # it replayed the compacted conversation, and compacted nothing itself
    assert DEFAULT_SUMMARY in model.requests[1]["messages"][0]["content"][0]["text"]
    assert len(model.lane_requests["compaction"]) == 1


async def test_compaction_off_the_users_path_the_summary_usage_is_kept_on_its_marker(
    db: Database, org: Org, clean_db: str, caplog: pytest.LogCaptureFixture
) -> None:
    conversation = long_conversation(clean_db, org, exchanges=11, usage=None)
    model = ScriptedModel([Reply([Text("Here you go.")])])
    model.lanes["compaction"] = [Reply([Text(DEFAULT_SUMMARY)], usage=SUMMARY_USAGE)]
    owner = await caller_for(db, org, "owner")
    events = await run_turn(deps_for(db, model), owner, "what next?", conversation_id=conversation)
    [marker] = [r for r in stored_messages(clean_db, conversation) if r["role"] == "system_note"]
    usage = marker["usage"]
    assert (usage["model"], usage["inputTokens"], usage["outputTokens"]) == (FAST_MODEL, 900, 120)
    assert usage["costUsdMicros"] == 900 * 1 + 120 * 5  # Haiku's rates
    done = next(e for e in events if isinstance(e, ev.Done))
    assert done.usage.input_tokens == 100, "recorded on its marker, not tallied in the run"
    [record] = [r for r in caplog.records if r.getMessage() == "compaction.done"]
    logged = vars(record)
    assert logged["marker_id"] == str(marker["id"]) and logged["cost_usd_micros"] == 1_500
    assert DEFAULT_SUMMARY not in repr(logged), "ids and counts, never the summary's text"


async def test_compaction_off_the_users_path_never_after_a_turn_that_waits_for_a_person(
    db: Database, org: Org, clean_db: str
) -> None:
    """A suspended turn is not settled: its approval must not wait for a summary."""
    conversation = long_conversation(clean_db, org, exchanges=11, usage=None)
    program = add_program(clean_db, org, "Old")
    model = ScriptedModel([tool_reply(archive(program, "t_archive"))])
    owner = await caller_for(db, org, "owner")
    events = await run_turn(deps_for(db, model), owner, "archive Old", conversation_id=conversation)
    assert of_type(events, ev.ConfirmationPending)
    assert kinds(events)[-1] == "done" and "compaction" not in model.lane_requests
