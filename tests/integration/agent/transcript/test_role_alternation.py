"""After a failed run or a superseded call, the next request still alternates user / assistant,
and it extends the previous run's last request block for block (the cached prefix holds)."""

from __future__ import annotations

import itertools
from typing import Any

from spotter.agent.run import MAX_TURNS
from spotter.auth.caller import Caller
from spotter.db import Database
from spotter.providers.fake import ProviderError, Reply, ScriptedModel, Text, ToolUse, tool_reply
from tests.support.agent import (
    compact,
    conversation_id_of,
    deps_for,
    run_turn,
    without_cache_markers,
)
from tests.support.callers import caller_for
from tests.support.hitl import add_program, archive, suspend
from tests.support.world import Org


def _roles(body: dict[str, Any]) -> list[str]:
    return [m["role"] for m in body["messages"]]


def _alternate(body: dict[str, Any]) -> bool:
    return all(a != b for a, b in itertools.pairwise(_roles(body)))


def _blocks(body: dict[str, Any]) -> list[bytes]:
    """The messages as the provider renders them: one block after another, markers removed."""
    return [
        compact(without_cache_markers(block))
        for message in body["messages"]
        for block in message["content"]
    ]


def _extends(earlier: dict[str, Any], later: dict[str, Any]) -> bool:
    before, after = _blocks(earlier), _blocks(later)
    return len(after) > len(before) and after[: len(before)] == before


def _list_call() -> ToolUse:
    return ToolUse("programs", {"action": "list", "args": {}})


async def _owner(db: Database, org: Org) -> Caller:
    return await caller_for(db, org, "owner")


async def test_after_max_turns_the_next_request_alternates_roles(db: Database, org: Org) -> None:
    model = ScriptedModel(
        [*[tool_reply(_list_call()) for _ in range(MAX_TURNS)], Reply([Text("Here.")])]
    )
    deps, owner = deps_for(db, model), await _owner(db, org)
    cid = conversation_id_of(await run_turn(deps, owner, "keep going"))
    await run_turn(deps, owner, "and now?", conversation_id=cid)
    nxt = model.requests[MAX_TURNS]
    assert _alternate(nxt), _roles(nxt)
    assert _extends(model.requests[MAX_TURNS - 1], nxt)


async def test_after_a_provider_error_the_next_request_alternates_roles(
    db: Database, org: Org
) -> None:
    model = ScriptedModel(
        [
            tool_reply(_list_call()),
            ProviderError(400, "invalid_request_error"),
            Reply([Text("Ok.")]),
        ]
    )
    deps, owner = deps_for(db, model), await _owner(db, org)
    failed = await run_turn(deps, owner, "list them")
    assert failed[-2].type == "error"
    await run_turn(deps, owner, "try again", conversation_id=conversation_id_of(failed))
    assert _alternate(model.requests[2]), _roles(model.requests[2])
    assert _extends(model.requests[1], model.requests[2])


async def test_two_failed_runs_in_a_row_still_alternate(db: Database, org: Org) -> None:
    model = ScriptedModel(
        [
            ProviderError(400, "invalid_request_error"),
            ProviderError(400, "invalid_request_error"),
            Reply([Text("Ok.")]),
        ]
    )
    deps, owner = deps_for(db, model), await _owner(db, org)
    cid = conversation_id_of(await run_turn(deps, owner, "one"))
    await run_turn(deps, owner, "two", conversation_id=cid)
    await run_turn(deps, owner, "three", conversation_id=cid)
    assert _roles(model.requests[2]) == ["user"]
    assert _extends(model.requests[1], model.requests[2])


async def test_a_superseded_call_and_the_new_text_reach_the_model_as_one_user_turn(
    db: Database, org: Org, clean_db: str
) -> None:
    model = ScriptedModel([Reply([Text("Fine, I will not.")])])
    owner = await _owner(db, org)
    program = add_program(clean_db, org, "A")
    conversation, _ = await suspend(db, owner, model, archive(program, "t1"))
    await run_turn(deps_for(db, model), owner, "never mind", conversation_id=conversation)
    nxt = model.requests[-1]
    assert _roles(nxt) == ["user", "assistant", "user"]
    last = nxt["messages"][-1]["content"]
    assert last[0]["type"] == "tool_result" and "superseded" in last[0]["content"]
    assert any(b.get("text") == "never mind" for b in last)
    assert _extends(model.requests[0], nxt)
