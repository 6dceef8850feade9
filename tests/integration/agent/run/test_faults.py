"""Faults mid-run: a process SIGKILLed during the model stream, a tool's execution or the finish
path; the provider failing mid-stream. Afterwards the history is valid (checked for every test by
the `clean_db` fixture), nothing was written twice, usage is exact, and the next message works.
"""

from __future__ import annotations

import uuid

import psycopg
import pytest

from spotter.agent import events as ev
from spotter.agent.executions import CLAIM_TTL
from spotter.agent.transcript.replay import validate_replay
from spotter.auth import Caller
from spotter.db import Database
from spotter.db.text import REPLACEMENT
from spotter.providers.fake import MidStreamFailure, Reply, ScriptedModel, Text
from tests.support.agent import conversation_id_of, deps_for, roles, run_turn, stored_messages
from tests.support.callers import caller_for
from tests.support.hitl import of_type
from tests.support.send_child import SLOW_USAGE, kill_send_at
from tests.support.world import Org


@pytest.fixture
async def owner(db: Database, org: Org) -> Caller:
    return await caller_for(db, org, "owner")


def _usage(url: str, org: Org) -> tuple[int, int, int, int]:
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0),"
            " coalesce(sum(cost_usd_micros), 0), coalesce(sum(turns), 0)"
            " FROM ai_usage_daily WHERE organization_id = %s",
            (org.id,),
        ).fetchone()
    assert row is not None
    return int(row[0]), int(row[1]), int(row[2]), int(row[3])


def _expire_dead_run(url: str, conversation: uuid.UUID) -> None:
    """Two minutes pass: the killed run's lease and claims are known dead."""
    with psycopg.connect(url) as conn:
        conn.execute(
            "UPDATE ai_conversations SET live_run_claimed_at = live_run_claimed_at - %s"
            " WHERE id = %s AND live_run_id IS NOT NULL",
            (CLAIM_TTL, conversation),
        )
        conn.execute(
            "UPDATE ai_tool_executions SET claimed_at = claimed_at - %s"
            " WHERE conversation_id = %s AND status = 'running'",
            (CLAIM_TTL, conversation),
        )


async def _first_turn(db: Database, owner: Caller) -> uuid.UUID:
    events = await run_turn(deps_for(db, ScriptedModel([Reply([Text("Hi.")])])), owner, "hi")
    return uuid.UUID(conversation_id_of(events))


async def _next_message_works(db: Database, owner: Caller, conversation: uuid.UUID) -> None:
    model = ScriptedModel([Reply([Text("Still here.")])])
    events = await run_turn(
        deps_for(db, model), owner, "are you there?", conversation_id=conversation
    )
    assert not of_type(events, ev.Error) and isinstance(events[-1], ev.Done)
    assert validate_replay(model.requests[-1]["messages"]).ok


async def test_sigkill_during_the_model_stream(
    db: Database, org: Org, owner: Caller, clean_db: str, app_url: str
) -> None:
    conversation = await _first_turn(db, owner)
    before = _usage(clean_db, org)
    await kill_send_at(app_url, org, conversation, "stream", "text_delta")
    assert roles(clean_db, str(conversation)) == ["user", "assistant", "user"]
    assert _usage(clean_db, org)[:3] == before[:3], "the call cut by the kill was never settled"
    _expire_dead_run(clean_db, conversation)
    await _next_message_works(db, owner, conversation)


async def test_sigkill_during_a_tool_execution_keeps_the_calls_usage(
    db: Database, org: Org, owner: Caller, clean_db: str, app_url: str
) -> None:
    conversation = await _first_turn(db, owner)
    tokens_in, tokens_out, _, turns = _usage(clean_db, org)
    await kill_send_at(app_url, org, conversation, "tool", "tool_started")
    after = _usage(clean_db, org)
    assert after[0] == tokens_in + SLOW_USAGE.input_tokens, "the completed call was recorded"
    assert after[1] == tokens_out + SLOW_USAGE.output_tokens and after[3] == turns + 1
    assert roles(clean_db, str(conversation))[-2:] == ["user", "assistant"]
    _expire_dead_run(clean_db, conversation)
    await _next_message_works(db, owner, conversation)
    assert _usage(clean_db, org)[3] == turns + 2, "each run one turn, nothing twice"


async def test_sigkill_during_finish_writes_nothing_twice(
    db: Database, org: Org, owner: Caller, clean_db: str, app_url: str
) -> None:
    conversation = await _first_turn(db, owner)
    before = _usage(clean_db, org)
    # message_done: the reply and its usage are stored; the finish path runs next
    await kill_send_at(app_url, org, conversation, "stream", "message_done")
    rows = stored_messages(clean_db, str(conversation))
    assert [r["role"] for r in rows][-2:] == ["user", "assistant"]
    assert _usage(clean_db, org)[0] == before[0] + SLOW_USAGE.input_tokens, "recorded once"
    _expire_dead_run(clean_db, conversation)
    await _next_message_works(db, owner, conversation)
    assert _usage(clean_db, org)[0] == before[0] + SLOW_USAGE.input_tokens + 100


@pytest.mark.parametrize(
    ("failure", "code"),
    [
        ("rate_limit_error", "provider_rate_limited"),
        ("overloaded_error", "provider_overloaded"),
        ("api_error", "provider_unavailable"),
        ("connection_reset", "provider_unavailable"),
        ("read_timeout", "provider_unavailable"),
    ],
)
async def test_a_provider_fault_mid_stream_ends_the_run_cleanly(
    db: Database,
    org: Org,
    owner: Caller,
    clean_db: str,
    failure: MidStreamFailure,
    code: str,
) -> None:
    conversation = await _first_turn(db, owner)
    before = _usage(clean_db, org)
    cut = Reply([Text("This reply will not finish " * 5)], fail_after=5, failure=failure)
    events = await run_turn(
        deps_for(db, ScriptedModel([cut])), owner, "go on", conversation_id=conversation
    )
    assert of_type(events, ev.TextDelta), "the fault came mid-stream"
    assert [e.code for e in of_type(events, ev.Error)] == [code]
    done = events[-1]
    assert isinstance(done, ev.Done)
    after = _usage(clean_db, org)
    assert after[0] - before[0] == done.usage.input_tokens, "what was reported is recorded, once"
    assert after[2] - before[2] == done.usage.cost_usd_micros
    assert roles(clean_db, str(conversation))[-1] == "user", "no half reply stored"
    await _next_message_works(db, owner, conversation)


@pytest.mark.parametrize("hostile", ["\u0000", "\ud800"], ids=["nul", "lone_surrogate"])
@pytest.mark.parametrize("failure", ["connection_reset", "api_error"])
async def test_a_hostile_stream_cut_by_a_provider_fault_frees_the_conversation(
    db: Database,
    org: Org,
    owner: Caller,
    clean_db: str,
    hostile: str,
    failure: MidStreamFailure,
) -> None:
    """Text Postgres cannot hold, then the provider fails mid-stream: the events streamed so far
    are stored repaired, the run ends with its error and `done`, and nothing keeps the lease."""
    conversation = await _first_turn(db, owner)
    cut = Reply([Text(f"a{hostile}b " * 20)], fail_after=6, failure=failure)
    events = await run_turn(
        deps_for(db, ScriptedModel([cut])), owner, "go on", conversation_id=conversation
    )
    streamed = "".join(e.delta for e in of_type(events, ev.TextDelta))
    assert streamed and hostile not in streamed and REPLACEMENT in streamed
    assert [e.code for e in of_type(events, ev.Error)] == ["provider_unavailable"]
    assert isinstance(events[-1], ev.Done)
    with psycopg.connect(clean_db) as conn:
        lease = conn.execute(
            "SELECT live_run_id FROM ai_conversations WHERE id = %s", (conversation,)
        ).fetchone()
        logged = conn.execute(
            "SELECT count(*) FROM ai_run_events WHERE conversation_id = %s AND final",
            (conversation,),
        ).fetchone()
    assert lease == (None,), "the ended run freed its conversation"
    assert logged == (2,), "both runs' events were persisted to their `done`"
    assert roles(clean_db, str(conversation))[-1] == "user", "no half reply stored"
    await _next_message_works(db, owner, conversation)
