"""Spec "Resolving a message": confirm, confirm-batch and pick against real tools and Postgres."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator

import psycopg
import pytest

from spotter.agent import events as ev
from spotter.agent.approvals.settle import sweep
from spotter.agent.run import Decision
from spotter.agent.run import resolve as resolution
from spotter.agent.transcript.replay import validate_replay
from spotter.auth import Caller
from spotter.db import Database
from spotter.providers.fake import Reply, ScriptedModel, Text
from tests.support.agent import deps_for, kinds, roles, stored_executions, stored_messages
from tests.support.callers import caller_for
from tests.support.hitl import (
    add_program,
    archive,
    ask,
    audit_count,
    collect,
    create,
    of_type,
    program_names,
    program_status,
    suspend,
)
from tests.support.world import Org


@pytest.fixture
async def owner(db: Database, org: Org) -> Caller:
    return await caller_for(db, org, "owner")


@pytest.fixture
async def separate_pools(app_url: str) -> AsyncIterator[list[Database]]:
    """Twenty independent clients, as twenty tabs or retries would be."""
    pools = [await Database.open(app_url, max_size=1) for _ in range(20)]
    yield pools
    await asyncio.gather(*(p.close() for p in pools))


def statuses(url: str, conversation_id: uuid.UUID) -> dict[str, str]:
    return {r["tool_use_id"]: r["status"] for r in stored_executions(url, str(conversation_id))}


def error_code(events: list[ev.AgentEvent]) -> str | None:
    errors = of_type(events, ev.Error)
    return errors[0].code if errors else None


async def test_suspension_announces_only_calls_needing_the_user_and_holds_the_rest(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    a, b = add_program(clean_db, org, "A"), add_program(clean_db, org, "B")
    model = ScriptedModel()
    conversation, events = await suspend(
        db, owner, model,
        create("Before", "t0"), archive(a, "t1"), create("Held", "t2"), archive(b, "t3"),
        archive(uuid.uuid4(), "t4"),
    )  # fmt: skip
    assert kinds(events)[-5:] == [
        "tool_started", "tool_completed", "confirmation_pending", "confirmation_pending", "done",
    ]  # fmt: skip
    cards = of_type(events, ev.ConfirmationPending)
    assert [(c.tool_use_id, c.confirmation.target) for c in cards] == [("t1", "A"), ("t3", "B")]
    assert cards[0].input == {"action": "archive", "args": {"programId": str(a)}}
    assert statuses(clean_db, conversation) == {
        "t0": "succeeded", "t1": "pending", "t2": "pending", "t3": "pending", "t4": "failed",
    }  # fmt: skip
    assert program_names(clean_db) == ["A", "B", "Before"], "the held create did not run"
    done = events[-1]
    assert isinstance(done, ev.Done) and done.usage.output_tokens > 0, "the model turn is billed"


async def test_a_card_that_cannot_be_built_fails_the_call_and_the_loop_goes_on(
    db: Database, owner: Caller, clean_db: str
) -> None:
    model = ScriptedModel([Reply([Text("That program does not exist.")])])
    missing = archive(uuid.uuid4(), "t1")
    missing.input["args"]["__agentConfirmationPreview"] = {"target": "trust me"}
    conversation, events = await suspend(db, owner, model, missing)
    [completed] = of_type(events, ev.ToolCompleted)
    assert (completed.ok, completed.error["code"]) == (False, "not_found")
    assert not of_type(events, ev.ConfirmationPending)
    assert statuses(clean_db, conversation) == {"t1": "failed"}
    assert len(model.requests) == 2, "the model read the error and answered"


async def test_confirm_runs_the_write_once_then_resumes_the_model(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    a = add_program(clean_db, org, "A")
    model = ScriptedModel([Reply([Text("Archived A.")])])
    call = archive(a, "t1")
    call.input["args"]["__agentConfirmationPreview"] = {"target": "Something harmless"}
    conversation, suspended = await suspend(db, owner, model, call)
    [card] = of_type(suspended, ev.ConfirmationPending)
    assert card.confirmation.target == "A", "the card is the server's, never the model's"
    assert card.input == {"action": "archive", "args": {"programId": str(a)}}
    events = await collect(resolution.confirm(deps_for(db, model), owner, conversation, "t1", True))
    assert kinds(events) == ["tool_started", "tool_completed", "text_delta", "message_done", "done"]
    [completed] = of_type(events, ev.ToolCompleted)
    assert completed.ok and completed.output["status"] == "archived"
    assert program_status(clean_db, a) == "archived"
    assert audit_count(clean_db, "program.archived") == 1
    assert roles(clean_db, str(conversation)) == ["user", "assistant", "tool_result", "assistant"]
    resumed = model.requests[-1]["messages"]
    assert validate_replay(resumed).ok
    assert resumed[-1]["content"][0]["tool_use_id"] == "t1"
    done = events[-1]
    assert isinstance(done, ev.Done) and done.usage.output_tokens > 0
    again = await collect(resolution.confirm(deps_for(db, model), owner, conversation, "t1", True))
    assert error_code(again) == "tool_already_resolved"
    assert audit_count(clean_db, "program.archived") == 1


async def test_the_models_preview_metadata_is_stripped_before_the_turn_is_stored(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    a = add_program(clean_db, org, "A")
    model = ScriptedModel([Reply([Text("Archived A.")])])
    call = archive(a, "t1")
    call.input["args"]["__agentConfirmationPreview"] = {"target": "Something harmless"}
    conversation, _ = await suspend(db, owner, model, call)
    [assistant] = [
        m for m in stored_messages(clean_db, str(conversation)) if m["role"] == "assistant"
    ]
    [tool_use] = [b for b in assistant["content"] if b["type"] == "tool_use"]
    assert tool_use["input"] == {"action": "archive", "args": {"programId": str(a)}}
    await collect(resolution.confirm(deps_for(db, model), owner, conversation, "t1", True))
    assert "__agentConfirmationPreview" not in json.dumps(model.requests[-1]["messages"])


async def test_rejection_skips_held_calls_after_it_and_tells_the_model(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    a = add_program(clean_db, org, "A")
    model = ScriptedModel([Reply([Text("Left it.")])])
    conversation, _ = await suspend(db, owner, model, archive(a, "t1"), create("After", "t2"))
    events = await collect(
        resolution.confirm(deps_for(db, model), owner, conversation, "t1", False)
    )
    completed = of_type(events, ev.ToolCompleted)
    assert [(c.tool_use_id, c.ok, c.error["code"]) for c in completed] == [
        ("t1", False, "rejected_by_user"), ("t2", False, "skipped_after_rejection"),
    ]  # fmt: skip
    assert statuses(clean_db, conversation) == {"t1": "rejected_by_user", "t2": "failed"}
    assert program_status(clean_db, a) == "active" and "After" not in program_names(clean_db)
    results = model.requests[-1]["messages"][-1]["content"]
    assert [json.loads(r["content"])["code"] for r in results] == [
        "rejected_by_user", "skipped_after_rejection",
    ]  # fmt: skip


async def test_batch_applies_in_message_order_and_runs_held_siblings_before_a_declined_step(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    a, b = add_program(clean_db, org, "A"), add_program(clean_db, org, "B")
    model = ScriptedModel([Reply([Text("Done.")])])
    conversation, _ = await suspend(
        db, owner, model, archive(a, "t1"), create("Between", "t2"), archive(b, "t3"),
        create("Last", "t4"),
    )  # fmt: skip
    decisions = [Decision("t3", approved=False), Decision("t1", approved=True)]
    events = await collect(
        resolution.confirm_batch(deps_for(db, model), owner, conversation, decisions)
    )
    order = [(e.type, e.tool_use_id) for e in of_type(events, ev.ToolStarted | ev.ToolCompleted)]
    assert order == [
        ("tool_started", "t1"), ("tool_completed", "t1"),  # message order, not the request's
        ("tool_completed", "t3"),
        ("tool_started", "t2"), ("tool_completed", "t2"),  # before the declined step: runs
        ("tool_completed", "t4"),  # after it: skipped
    ]  # fmt: skip
    assert statuses(clean_db, conversation) == {
        "t1": "succeeded", "t2": "succeeded", "t3": "rejected_by_user", "t4": "failed",
    }  # fmt: skip
    assert program_names(clean_db) == ["A", "B", "Between"]
    [merged] = [m for m in model.requests[-1]["messages"] if m["role"] == "user"][-1:]
    assert [r["tool_use_id"] for r in merged["content"]] == ["t1", "t2", "t3", "t4"]


async def test_a_partial_batch_waits_for_the_rest(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    a, b = add_program(clean_db, org, "A"), add_program(clean_db, org, "B")
    model = ScriptedModel([Reply([Text("Both archived.")])])
    conversation, _ = await suspend(db, owner, model, archive(a, "t1"), archive(b, "t2"))
    first = await collect(resolution.confirm(deps_for(db, model), owner, conversation, "t1", True))
    assert kinds(first) == ["tool_started", "tool_completed", "done"]
    assert roles(clean_db, str(conversation)) == ["user", "assistant"]
    second = await collect(resolution.confirm(deps_for(db, model), owner, conversation, "t2", True))
    assert kinds(second)[-2:] == ["message_done", "done"]
    assert roles(clean_db, str(conversation))[-2:] == ["tool_result", "assistant"]


async def test_every_batch_level_error_is_an_sse_error_and_nothing_runs(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    a, b = add_program(clean_db, org, "A"), add_program(clean_db, org, "B")
    model = ScriptedModel()
    conversation, _ = await suspend(
        db, owner, model, archive(a, "t1"), create("Held", "t2"), ask("t3", "X", "Y")
    )
    deps = deps_for(db, model)

    async def batch(*decisions: Decision) -> str | None:
        events = await collect(resolution.confirm_batch(deps, owner, conversation, decisions))
        assert isinstance(events[-1], ev.Done) and events[-1].usage.output_tokens == 0
        assert not of_type(events, ev.ToolStarted | ev.ToolCompleted)
        return error_code(events)

    assert await batch(Decision("t1"), Decision("nope")) == "tool_execution_not_found"
    assert await batch(Decision("t1"), Decision("t2")) == "tool_not_awaiting_approval"  # held
    assert await batch(Decision("t3")) == "tool_not_awaiting_approval"  # a picker
    wrong_pick = await collect(resolution.pick(deps, owner, conversation, "t3", "id_Z"))
    assert error_code(wrong_pick) == "invalid_pick"
    not_a_picker = await collect(resolution.pick(deps, owner, conversation, "t1", "id_X"))
    assert error_code(not_a_picker) == "tool_not_awaiting_approval"
    # a second suspended message in the same conversation
    model.script.append(Reply([Text("ok")]))
    other, _ = await suspend(db, owner, model, archive(b, "u1"))
    assert other != conversation
    with psycopg.connect(clean_db) as conn:
        conn.execute(
            "UPDATE ai_tool_executions SET conversation_id = %s, message_id = m.id"
            " FROM (SELECT id FROM ai_messages WHERE conversation_id = %s AND role = 'assistant'"
            " ORDER BY ordinal DESC LIMIT 1) m WHERE tool_use_id = 'u1'",
            (conversation, other),
        )
    assert await batch(Decision("t1"), Decision("u1")) == "confirm_batch_mixed_messages"
    with psycopg.connect(clean_db) as conn:
        conn.execute("UPDATE ai_tool_executions SET status = 'succeeded' WHERE tool_use_id = 't1'")
    assert await batch(Decision("t1")) == "tool_already_resolved"
    assert program_status(clean_db, a) == "active" and program_status(clean_db, b) == "active"
    assert "Held" not in program_names(clean_db)


async def test_a_foreign_conversation_is_not_found(
    db: Database, org: Org, other_org: Org, owner: Caller, clean_db: str
) -> None:
    a = add_program(clean_db, org, "A")
    conversation, _ = await suspend(db, owner, ScriptedModel(), archive(a, "t1"))
    for stranger in (await caller_for(db, org, "coach"), await caller_for(db, other_org, "owner")):
        events = await collect(
            resolution.confirm(deps_for(db, ScriptedModel()), stranger, conversation, "t1", True)
        )
        assert error_code(events) == "not_found"
    assert program_status(clean_db, a) == "active"


async def test_pick_stores_the_choice_runs_held_siblings_and_resumes(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    model = ScriptedModel([Reply([Text("Using Y.")])])
    conversation, events = await suspend(
        db, owner, model, ask("t1", "X", "Y"), create("Held", "t2")
    )
    [asked] = of_type(events, ev.DisambiguationPending)
    assert [c.id for c in asked.candidates] == ["id_X", "id_Y"]
    events = await collect(resolution.pick(deps_for(db, model), owner, conversation, "t1", "id_Y"))
    picked = of_type(events, ev.ToolCompleted)
    assert picked[0].output == {"pickedId": "id_Y", "pickedLabel": "Y", "kind": "other"}
    assert [(c.tool_use_id, c.ok) for c in picked] == [("t1", True), ("t2", True)]
    assert "Held" in program_names(clean_db)
    result = model.requests[-1]["messages"][-1]["content"][0]
    assert json.loads(result["content"])["pickedLabel"] == "Y"
    again = await collect(resolution.pick(deps_for(db, model), owner, conversation, "t1", "id_X"))
    assert error_code(again) == "tool_already_resolved"


@pytest.mark.parametrize("entry", ["confirm", "confirm_batch", "pick"])
async def test_a_storm_of_twenty_identical_decisions_runs_once(
    db: Database,
    org: Org,
    owner: Caller,
    clean_db: str,
    separate_pools: list[Database],
    entry: str,
) -> None:
    a = add_program(clean_db, org, "A")
    model = ScriptedModel([Reply([Text("Done once.")])])
    call = ask("t1", "X", "Y") if entry == "pick" else archive(a, "t1")
    conversation, _ = await suspend(db, owner, model, call, create("Held", "t2"))

    async def decide(pool: Database) -> list[ev.AgentEvent]:
        deps = deps_for(pool, model)
        if entry == "confirm":
            return await collect(resolution.confirm(deps, owner, conversation, "t1", True))
        if entry == "confirm_batch":
            return await collect(
                resolution.confirm_batch(deps, owner, conversation, [Decision("t1")])
            )
        return await collect(resolution.pick(deps, owner, conversation, "t1", "id_X"))

    outcomes = await asyncio.gather(*(decide(pool) for pool in separate_pools))
    winners = [o for o in outcomes if error_code(o) is None]
    assert len(winners) == 1
    # a loser arrives while the winner's run is live (busy) or after it (already resolved)
    losers = {error_code(o) for o in outcomes if o not in winners}
    assert losers <= {"tool_already_resolved", "conversation_busy"}
    assert program_names(clean_db).count("Held") == 1, "the held sibling ran once"
    if entry != "pick":
        assert audit_count(clean_db, "program.archived") == 1
    assert roles(clean_db, str(conversation)).count("tool_result") == 1
    assert len(model.requests) == 2, "the model resumed once"


async def test_overlapping_batches_never_run_a_call_twice_nor_deadlock(
    db: Database, org: Org, owner: Caller, clean_db: str, separate_pools: list[Database]
) -> None:
    for round_ in range(5):
        ids = [add_program(clean_db, org, f"P{round_}{i}") for i in range(3)]
        conversation, _ = await suspend(
            db, owner, ScriptedModel(), *(archive(p, f"t{i}") for i, p in enumerate(ids))
        )

        async def batch(
            pool: Database, names: list[str], conversation: uuid.UUID = conversation
        ) -> list[ev.AgentEvent]:
            decisions = [Decision(n) for n in names]
            deps = deps_for(pool, ScriptedModel())
            return await collect(resolution.confirm_batch(deps, owner, conversation, decisions))

        first, second = await asyncio.wait_for(
            asyncio.gather(
                batch(separate_pools[0], ["t0", "t1"]), batch(separate_pools[1], ["t1", "t2"])
            ),
            timeout=20,
        )
        codes = sorted([str(error_code(first)), str(error_code(second))])
        # the loser meets the winner's lease (busy) or, after it, the claimed call
        assert codes[0] == "None" and codes[1] in {"conversation_busy", "tool_already_resolved"}
        ran = [t for t, s in statuses(clean_db, conversation).items() if s == "succeeded"]
        assert ran in (["t0", "t1"], ["t1", "t2"])
    assert audit_count(clean_db, "program.archived") == 10


async def test_a_resumed_run_checks_the_spend_cap_before_calling_the_model(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    a = add_program(clean_db, org, "A")
    model = ScriptedModel()
    conversation, _ = await suspend(db, owner, model, archive(a, "t1"))
    with psycopg.connect(clean_db) as conn:  # growth tier: $5.00 a day, now spent
        conn.execute(
            "UPDATE ai_usage_daily SET cost_usd_micros = 5000000 WHERE organization_id = %s",
            (org.id,),
        )
    events = await collect(resolution.confirm(deps_for(db, model), owner, conversation, "t1", True))
    assert kinds(events) == ["tool_started", "tool_completed", "error", "done"]
    assert error_code(events) == "agent_budget_exceeded"
    assert len(model.requests) == 1, "no model call over the cap"
    assert program_status(clean_db, a) == "archived", "the approved write still ran"
    assert roles(clean_db, str(conversation)) == ["user", "assistant", "tool_result"]


async def test_two_sweeps_and_a_resolution_at_once_settle_once(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    a, b = add_program(clean_db, org, "A"), add_program(clean_db, org, "B")
    model = ScriptedModel([Reply([Text("One was interrupted.")])])
    conversation, _ = await suspend(db, owner, model, archive(a, "t1"), archive(b, "t2"))
    with psycopg.connect(clean_db) as conn:  # t1: claimed by a stream that died
        conn.execute(
            "UPDATE ai_tool_executions SET status = 'running',"
            " claimed_at = now() - interval '3 minutes' WHERE tool_use_id = 't1'"
        )
    deps = deps_for(db, model)
    _, _, events = await asyncio.gather(
        sweep(db), sweep(db), collect(resolution.confirm(deps, owner, conversation, "t2", True))
    )
    assert isinstance(events[-1], ev.Done) and not of_type(events, ev.Error)
    assert statuses(clean_db, conversation) == {"t1": "failed", "t2": "succeeded"}
    assert roles(clean_db, str(conversation)).count("tool_result") == 1
    assert len(model.requests) <= 2 and program_status(clean_db, a) == "active"
