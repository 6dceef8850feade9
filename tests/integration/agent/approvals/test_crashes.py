"""Crashes and abandoned claims: a killed executor's row is closed by the sweep, never re-run,
and the conversation replays validly; a late executor leaves no trace; a new message closes
what the user typed past."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import uuid
from pathlib import Path

import psycopg
import pytest

from spotter.agent import events as ev
from spotter.agent.approvals.settle import sweep
from spotter.agent.executions import NOT_APPLIED, OUTCOME_UNKNOWN, claim_all
from spotter.agent.run import resolve as resolution
from spotter.agent.transcript.replay import validate_replay
from spotter.auth import Caller
from spotter.db import Database
from spotter.providers.fake import Reply, ScriptedModel, Text
from tests.support.agent import deps_for, roles, run_turn, stored_executions
from tests.support.callers import caller_for
from tests.support.hitl import (
    RELEASE,
    STARTED,
    add_program,
    archive,
    ask,
    collect,
    create,
    gate_registry,
    hold,
    of_type,
    program_names,
    program_status,
    suspend,
)
from tests.support.world import Org

ROOT = Path(__file__).resolve().parents[4]


@pytest.fixture
async def owner(db: Database, org: Org) -> Caller:
    return await caller_for(db, org, "owner")


def rows(url: str, conversation: uuid.UUID) -> dict[str, tuple[str, str | None]]:
    return {
        r["tool_use_id"]: (r["status"], (r["error"] or {}).get("code"))
        for r in stored_executions(url, str(conversation))
    }


def age_claims(url: str, conversation: uuid.UUID) -> None:
    with psycopg.connect(url) as conn:
        conn.execute(
            "UPDATE ai_tool_executions SET claimed_at = claimed_at - interval '3 minutes'"
            " WHERE conversation_id = %s AND status = 'running'",
            (conversation,),
        )
        # the run behind them is known dead by the same rule: its conversation lease expired
        conn.execute(
            "UPDATE ai_conversations SET live_run_claimed_at = live_run_claimed_at"
            " - interval '3 minutes' WHERE id = %s AND live_run_id IS NOT NULL",
            (conversation,),
        )


@pytest.mark.parametrize(("external", "code"), [(False, NOT_APPLIED), (True, OUTCOME_UNKNOWN)])
async def test_a_killed_executor_is_closed_by_the_sweep_never_rerun_and_replays_validly(
    db: Database, org: Org, owner: Caller, clean_db: str, app_url: str, external: bool, code: str
) -> None:
    model = ScriptedModel()
    conversation, _ = await suspend(
        db, owner, model, hold("Killed", "t1", external=external), gate=True
    )
    person = org["owner"]
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.support.hitl_child", app_url, org.clerk_org_id,
        person.clerk_user_id, str(conversation), "t1",
        cwd=ROOT, stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert child.stdout is not None
    seen: list[str] = []
    while not any(line.startswith("HOLDING") for line in seen):
        line = await asyncio.wait_for(child.stdout.readline(), timeout=30)
        assert line, f"the child ended early: {seen}"
        seen.append(line.decode().strip())
    os.kill(child.pid, signal.SIGKILL)
    await child.wait()
    assert rows(clean_db, conversation) == {"t1": ("running", None)}, "the claim was committed"
    assert program_names(clean_db) == [], "the uncommitted write died with the process"

    assert (await sweep(db)).messages_closed == 0, "a fresh claim may still have a live stream"
    age_claims(clean_db, conversation)
    assert (await sweep(db)).messages_closed == 1
    assert rows(clean_db, conversation) == {"t1": ("failed", code)}
    assert roles(clean_db, str(conversation)) == ["user", "assistant", "tool_result"]

    again = await collect(resolution.confirm(deps_for(db, model), owner, conversation, "t1", True))
    assert of_type(again, ev.Error)[0].code == "tool_already_resolved"
    assert program_names(clean_db) == [], "never re-run"

    model.script.append(Reply([Text("It was interrupted; let me check.")]))
    deps = deps_for(db, model, registry_for=gate_registry)
    events = await run_turn(deps, owner, "did it work?", conversation_id=conversation)
    assert isinstance(events[-1], ev.Done) and not of_type(events, ev.Error)
    replayed = model.requests[-1]["messages"]
    assert validate_replay(replayed).ok
    answer = replayed[2]["content"][0]
    assert answer["is_error"] is True and json.loads(answer["content"])["code"] == code


async def test_an_executor_finishing_after_the_sweep_closed_its_row_leaves_no_trace(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    model = ScriptedModel()
    conversation, _ = await suspend(db, owner, model, hold("Late", "t1"), gate=True)
    STARTED["Late"], RELEASE["Late"] = asyncio.Event(), asyncio.Event()
    try:
        deps = deps_for(db, model, registry_for=gate_registry)
        task = asyncio.create_task(
            collect(resolution.confirm(deps, owner, conversation, "t1", True))
        )
        await asyncio.wait_for(STARTED["Late"].wait(), timeout=10)
        age_claims(clean_db, conversation)
        assert (await sweep(db)).messages_closed == 1
        RELEASE["Late"].set()
        events = await asyncio.wait_for(task, timeout=10)
    finally:
        STARTED.pop("Late"), RELEASE.pop("Late")
    [completed] = of_type(events, ev.ToolCompleted)
    assert (completed.ok, completed.error["code"]) == (False, NOT_APPLIED)
    assert not of_type(events, ev.Error) and isinstance(events[-1], ev.Done)
    assert program_names(clean_db) == [], "its write rolled back"
    assert rows(clean_db, conversation) == {"t1": ("failed", NOT_APPLIED)}
    assert roles(clean_db, str(conversation)) == ["user", "assistant", "tool_result"]
    assert len(model.requests) == 1, "the settled message is not resumed twice"


async def test_a_stale_claim_is_closed_when_its_message_is_next_resolved(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    a, b = add_program(clean_db, org, "A"), add_program(clean_db, org, "B")
    model = ScriptedModel([Reply([Text("One was interrupted.")])])
    conversation, _ = await suspend(db, owner, model, archive(a, "t1"), archive(b, "t2"))
    [first] = [
        r for r in stored_executions(clean_db, str(conversation)) if r["tool_use_id"] == "t1"
    ]
    with psycopg.connect(clean_db) as conn:
        execution_id = conn.execute(
            "SELECT id FROM ai_tool_executions WHERE tool_use_id = 't1' AND conversation_id = %s",
            (conversation,),
        ).fetchone()[0]  # type: ignore[index]
    assert first["status"] == "pending"
    assert await claim_all(db, org.id, [execution_id]) is not None  # a stream that then died
    age_claims(clean_db, conversation)
    events = await collect(resolution.confirm(deps_for(db, model), owner, conversation, "t2", True))
    assert isinstance(events[-1], ev.Done) and events[-1].usage.output_tokens > 0
    assert rows(clean_db, conversation) == {
        "t1": ("failed", NOT_APPLIED),
        "t2": ("succeeded", None),
    }
    assert program_status(clean_db, a) == "active" and program_status(clean_db, b) == "archived"


async def test_a_decision_while_another_resolution_is_live_is_busy_and_claims_nothing(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    b = add_program(clean_db, org, "B")
    model = ScriptedModel()
    conversation, _ = await suspend(
        db, owner, model, hold("Slow", "t1"), archive(b, "t2"), gate=True
    )
    STARTED["Slow"], RELEASE["Slow"] = asyncio.Event(), asyncio.Event()
    deps = deps_for(db, model, registry_for=gate_registry)
    try:
        first = asyncio.create_task(
            collect(resolution.confirm(deps, owner, conversation, "t1", True))
        )
        await asyncio.wait_for(STARTED["Slow"].wait(), timeout=10)
        second = await collect(resolution.confirm(deps, owner, conversation, "t2", True))
        assert [e.type for e in second] == ["error", "done"]
        assert of_type(second, ev.Error)[0].code == "conversation_busy"
        assert rows(clean_db, conversation)["t2"] == ("pending", None), "nothing claimed"
        RELEASE["Slow"].set()
        events = await asyncio.wait_for(first, timeout=10)
    finally:
        STARTED.pop("Slow"), RELEASE.pop("Slow")
    assert not of_type(events, ev.Error) and len(model.requests) == 1, "t2 still waits"
    model.script.append(Reply([Text("Both done.")]))
    after = await collect(resolution.confirm(deps, owner, conversation, "t2", True))
    assert [e.type for e in after][-3:] == ["text_delta", "message_done", "done"]
    assert len(model.requests) == 2, "the message settled and resumed once"
    assert program_names(clean_db) == ["B", "Slow"]


async def test_a_new_message_supersedes_what_the_user_typed_past(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    a = add_program(clean_db, org, "A")
    model = ScriptedModel()
    conversation, _ = await suspend(
        db, owner, model, archive(a, "t1"), ask("t2", "X", "Y"), create("Held", "t3")
    )
    model.script.append(Reply([Text("Never mind then.")]))
    events = await run_turn(deps_for(db, model), owner, "forget it", conversation_id=conversation)
    assert isinstance(events[-1], ev.Done) and not of_type(events, ev.Error)
    assert {k: v for k, v in rows(clean_db, conversation).items()} == {
        "t1": ("failed", "superseded"), "t2": ("failed", "superseded"),
        "t3": ("failed", "superseded"),
    }  # fmt: skip
    replayed = model.requests[-1]["messages"]
    assert validate_replay(replayed).ok
    results = [b for b in replayed[2]["content"] if b["type"] == "tool_result"]
    assert [json.loads(b["content"])["code"] for b in results] == ["superseded"] * 3
    assert replayed[2]["content"][3]["text"] == "forget it", "the new text, in the same user turn"
    assert roles(clean_db, str(conversation)) == [
        "user", "assistant", "tool_result", "user", "assistant",
    ]  # fmt: skip
    late = await collect(resolution.confirm(deps_for(db, model), owner, conversation, "t1", True))
    assert of_type(late, ev.Error)[0].code == "tool_already_resolved"
    assert program_status(clean_db, a) == "active" and "Held" not in program_names(clean_db)
