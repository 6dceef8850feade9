"""Richer decisions: approve with edited arguments, a rejection's reason, the card's fingerprint.

`memo.write` (test-local) confirms always and names its target by `label`: editing `note` keeps
the target, editing `label` changes it.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from spotter.agent import events as ev
from spotter.agent.run import Decision
from spotter.agent.run import resolve as resolution
from spotter.auth import Caller
from spotter.db import Database
from spotter.domain import programs
from spotter.providers.fake import Reply, ScriptedModel, Text, ToolUse, tool_reply
from spotter.tools.args import Args
from spotter.tools.catalog import ToolCatalog, load_catalog
from spotter.tools.context import ToolContext
from spotter.tools.registry import ToolRegistry
from spotter.tools.router import Router
from spotter.tools.spec import NameTarget
from tests.support.agent import conversation_id_of, deps_for, kinds, run_turn, stored_executions
from tests.support.callers import caller_for
from tests.support.hitl import collect, of_type, program_names
from tests.support.world import Org


class MemoArgs(Args):
    label: str
    note: str


async def _write(ctx: ToolContext, args: MemoArgs) -> dict[str, Any]:
    row = await programs.create_program(ctx.scope, name=args.label, description=args.note)
    return {"id": str(row["id"]), "label": args.label, "note": args.note}


def _memo_catalog() -> ToolCatalog:
    memo = Router("memo", "Test memos.")
    memo.write("write", "Write a memo.", confirm="always", target=NameTarget(("label",)))(_write)
    return ToolCatalog([*load_catalog().routers, memo])


_CATALOG = _memo_catalog()


def memo_registry(caller: Caller) -> ToolRegistry:
    return ToolRegistry(_CATALOG, caller.role, day_grain=caller.day_grain_programming)


def memo(label: str, note: str, tool_use_id: str = "t1") -> ToolUse:
    return ToolUse(
        "memo", {"action": "write", "args": {"label": label, "note": note}}, id=tool_use_id
    )


@pytest.fixture
async def owner(db: Database, org: Org) -> Caller:
    return await caller_for(db, org, "owner")


async def suspend_memo(
    db: Database, owner: Caller, model: ScriptedModel
) -> tuple[uuid.UUID, list[ev.AgentEvent]]:
    model.script.insert(0, tool_reply(memo("Gym memo", "open at 6")))
    deps = deps_for(db, model, registry_for=memo_registry)
    events = await run_turn(deps, owner, "write the memo")
    return uuid.UUID(conversation_id_of(events)), events


def _deps(db: Database, model: ScriptedModel) -> Any:
    return deps_for(db, model, registry_for=memo_registry)


def _last_result(model: ScriptedModel) -> Any:
    return json.loads(model.requests[-1]["messages"][-1]["content"][0]["content"])


async def test_the_card_carries_a_fingerprint_of_router_action_and_arguments(
    db: Database, org: Org, owner: Caller
) -> None:
    model = ScriptedModel()
    _, first = await suspend_memo(db, owner, model)
    _, second = await suspend_memo(db, owner, model)
    [a], [b] = of_type(first, ev.ConfirmationPending), of_type(second, ev.ConfirmationPending)
    assert a.fingerprint and len(a.fingerprint) == 32
    assert a.fingerprint == b.fingerprint, "the same call shows the same fingerprint"


async def test_an_edit_that_keeps_the_target_runs_the_edited_call_and_tells_the_model(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    model = ScriptedModel([Reply([Text("Written.")])])
    conversation, events = await suspend_memo(db, owner, model)
    [card] = of_type(events, ev.ConfirmationPending)
    edited = {"label": "Gym memo", "note": "open at 7"}
    stream = resolution.confirm(
        _deps(db, model), owner, conversation, "t1", True, args=edited, fingerprint=card.fingerprint
    )
    result = await collect(stream)
    assert kinds(result) == ["tool_started", "tool_completed", "text_delta", "message_done", "done"]
    [started] = of_type(result, ev.ToolStarted)
    assert started.input == {"action": "write", "args": edited}
    [row] = stored_executions(clean_db, str(conversation))
    assert row["status"] == "succeeded" and row["input"]["args"]["note"] == "open at 7"
    told = _last_result(model)
    assert told["editedByUser"]["arguments"] == edited
    assert "edited" in told["editedByUser"]["note"] and told["result"]["note"] == "open at 7"


async def test_an_edit_that_changes_the_target_asks_again_and_runs_nothing(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    model = ScriptedModel([Reply([Text("Written.")])])
    conversation, events = await suspend_memo(db, owner, model)
    [card] = of_type(events, ev.ConfirmationPending)
    edited = {"label": "Other memo", "note": "open at 6"}
    result = await collect(
        resolution.confirm(_deps(db, model), owner, conversation, "t1", True, args=edited)
    )
    assert kinds(result) == ["confirmation_pending", "done"]
    [fresh] = of_type(result, ev.ConfirmationPending)
    assert fresh.confirmation is not None and fresh.confirmation.target == "Other memo"
    assert fresh.input["args"] == edited and fresh.fingerprint != card.fingerprint
    assert program_names(clean_db) == []
    [row] = stored_executions(clean_db, str(conversation))
    assert row["status"] == "pending" and row["input"]["args"] == edited
    # the old card is stale now; the fresh one approves what it shows
    stale = await collect(
        resolution.confirm(
            _deps(db, model), owner, conversation, "t1", True, fingerprint=card.fingerprint
        )
    )
    assert [e.code for e in of_type(stale, ev.Error)] == ["confirmation_stale"]
    ran = await collect(
        resolution.confirm(
            _deps(db, model), owner, conversation, "t1", True, fingerprint=fresh.fingerprint
        )
    )
    assert of_type(ran, ev.ToolCompleted)[0].ok and program_names(clean_db) == ["Other memo"]


async def test_an_invalid_edit_is_refused_and_nothing_runs(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    model = ScriptedModel([Reply([Text("Written.")])])
    conversation, _ = await suspend_memo(db, owner, model)
    for bad in ({"label": "Gym memo"}, {"label": "Gym memo", "note": "x", "extra": 1}):
        result = await collect(
            resolution.confirm(_deps(db, model), owner, conversation, "t1", True, args=bad)
        )
        assert kinds(result) == ["error", "done"]
        assert of_type(result, ev.Error)[0].code == "invalid_edited_args"
    [row] = stored_executions(clean_db, str(conversation))
    assert row["status"] == "pending" and row["input"]["args"]["note"] == "open at 6"
    assert program_names(clean_db) == []


async def test_a_rejection_reason_reaches_the_model_and_never_the_logs(
    db: Database,
    org: Org,
    owner: Caller,
    capfd: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    model = ScriptedModel([Reply([Text("Understood.")])])
    conversation, _ = await suspend_memo(db, owner, model)
    reason = "Not before the owner signs off, quietly-secret-42"
    result = await collect(
        resolution.confirm(_deps(db, model), owner, conversation, "t1", False, reason=reason)
    )
    captured = capfd.readouterr()
    logged = captured.out + captured.err + repr([vars(r) for r in caplog.records])
    [completed] = of_type(result, ev.ToolCompleted)
    assert completed.error is not None and completed.error["code"] == "rejected_by_user"
    told = _last_result(model)
    assert told["code"] == "rejected_by_user" and told["reason"] == reason
    assert "agent.turn.finished" in logged, "the resumed run logged"
    assert "quietly-secret-42" not in logged


async def test_a_stale_fingerprint_is_refused_in_a_batch_and_nothing_runs(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    model = ScriptedModel([Reply([Text("Written.")])])
    conversation, _ = await suspend_memo(db, owner, model)
    decisions = [Decision("t1", True, fingerprint="0" * 32)]
    result = await collect(
        resolution.confirm_batch(_deps(db, model), owner, conversation, decisions)
    )
    assert kinds(result) == ["error", "done"]
    assert of_type(result, ev.Error)[0].code == "confirmation_stale"
    [row] = stored_executions(clean_db, str(conversation))
    assert row["status"] == "pending" and program_names(clean_db) == []
