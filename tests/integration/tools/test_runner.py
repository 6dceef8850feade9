"""The runner: validation, RBAC at run time, audit rows, result caps, stable error codes."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import psycopg

from spotter.auth.caller import Caller
from spotter.db import Database
from spotter.tools.args import Args
from spotter.tools.catalog import ToolCatalog
from spotter.tools.context import ToolContext
from spotter.tools.invoke import invoke_tool
from spotter.tools.registry import ToolRegistry
from spotter.tools.router import Router
from spotter.tools.runner import (
    MAX_TOOL_RESULT_CHARS,
    PREVIEW_KEY,
    cap_output,
    execute,
    resolve_call,
)
from spotter.tools.spec import Audit
from tests.support.callers import caller_for
from tests.support.world import Org


async def test_write_tool_creates_row_and_audit_log_linked_to_actor(
    db: Database, org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, org, "owner")
    outcome = await invoke_tool(
        db, owner, "programs", {"action": "create", "args": {"name": "Barbell Club"}}
    )
    assert outcome.ok, outcome.error
    assert outcome.audit_log_id is not None
    with psycopg.connect(clean_db) as conn:
        audit = conn.execute(
            "SELECT actor_clerk_id, action, resource, resource_id, metadata FROM audit_logs WHERE id = %s",
            (outcome.audit_log_id,),
        ).fetchone()
    assert audit == (
        org["owner"].clerk_user_id,
        "program.created",
        "program",
        outcome.output["id"],
        {"agent": True, "tool": "programs.create"},
    )


async def test_read_tool_writes_no_audit_log(db: Database, org: Org, clean_db: str) -> None:
    owner = await caller_for(db, org, "owner")
    outcome = await invoke_tool(db, owner, "programs", {"action": "list", "args": {}})
    assert outcome.ok
    assert outcome.audit_log_id is None


async def test_unknown_action_is_unknown_tool(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    outcome = await invoke_tool(db, owner, "programs", {"action": "explode", "args": {}})
    assert outcome.error is not None and outcome.error.code == "unknown_tool"


async def test_malformed_input_is_invalid_args(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    for raw in ("create", {"args": {}}, {"action": "create", "args": []}):
        outcome = await invoke_tool(db, owner, "programs", raw)
        assert outcome.error is not None and outcome.error.code == "invalid_args", raw


async def test_bad_args_name_the_field_and_problem(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    outcome = await invoke_tool(
        db, owner, "programs", {"action": "create", "args": {"name": "", "bogus": 1}}
    )
    assert outcome.error is not None
    assert outcome.error.code == "invalid_args"
    fields = {p["field"] for p in outcome.error.details["problems"]}
    assert fields == {"name", "bogus"}


async def test_role_without_access_is_forbidden(db: Database, org: Org, clean_db: str) -> None:
    coach = await caller_for(db, org, "coach")
    outcome = await invoke_tool(
        db, coach, "programs", {"action": "create", "args": {"name": "Nope"}}
    )
    assert outcome.error is not None and outcome.error.code == "forbidden"
    with psycopg.connect(clean_db) as conn:
        assert conn.execute("SELECT count(*) FROM programs").fetchone() == (0,)


async def test_model_supplied_preview_metadata_is_stripped(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    registry = ToolRegistry(_catalog_with_echo(), "owner", day_grain=False)
    call = resolve_call(
        registry, "echo", {"action": "say", "args": {"text": "hi", PREVIEW_KEY: {"target": "x"}}}
    )
    assert call.executable_input == {"action": "say", "args": {"text": "hi"}}
    assert owner.role == "owner"


class SayArgs(Args):
    text: str


def _catalog_with_echo() -> ToolCatalog:
    echo = Router("echo", "Echo.")

    @echo.write("say", "Echo.", audit=Audit("echo", "echo.said"))
    async def say(ctx: ToolContext, args: SayArgs) -> dict[str, Any]:
        if args.text == "boom":
            raise RuntimeError("secret internals")
        await ctx.conn.execute(
            "INSERT INTO programs (organization_id, name) VALUES (%s, %s)",
            (ctx.caller.org_id, args.text),
        )
        return {
            "id": None,
            "text": args.text * (MAX_TOOL_RESULT_CHARS if args.text == "big" else 1),
        }

    return ToolCatalog([echo])


async def _run(db: Database, caller: Caller, text: str) -> Any:
    registry = ToolRegistry(_catalog_with_echo(), "owner", day_grain=False)
    call = resolve_call(registry, "echo", {"action": "say", "args": {"text": text}})
    async with db.org_tx(caller.org_id) as conn:
        return await execute(ToolContext(caller, conn, datetime.now(UTC)), call)


async def test_handler_crash_is_internal_without_details_and_rolls_back(
    db: Database, org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, org, "owner")
    outcome = await _run(db, owner, "boom")
    assert outcome.error.as_json() == {
        "code": "internal",
        "message": "echo.say failed unexpectedly.",
    }
    with psycopg.connect(clean_db) as conn:
        assert conn.execute("SELECT count(*) FROM programs").fetchone() == (0,)


async def test_failed_call_leaves_the_outer_transaction_usable(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    registry = ToolRegistry(_catalog_with_echo(), "owner", day_grain=False)
    boom = resolve_call(registry, "echo", {"action": "say", "args": {"text": "boom"}})
    async with db.org_tx(owner.org_id) as conn:
        ctx = ToolContext(owner, conn, datetime.now(UTC))
        assert not (await execute(ctx, boom)).ok
        cur = await conn.execute("SELECT 1 AS one")
        assert (await cur.fetchone()) == {"one": 1}


async def test_large_results_are_capped(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    outcome = await _run(db, owner, "big")
    assert outcome.ok
    assert isinstance(outcome.output, str) and len(outcome.output) == MAX_TOOL_RESULT_CHARS


def test_small_results_are_kept_as_json() -> None:
    assert cap_output({"a": [1, 2]}) == {"a": [1, 2]}
