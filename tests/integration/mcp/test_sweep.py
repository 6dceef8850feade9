"""An MCP call's abandoned claim is closed by the sweep like any other (it has no message)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from spotter.agent.approvals.settle import sweep
from spotter.db import Database
from tests.integration.mcp.conftest import answer, connect, rows, token_for
from tests.support.hitl import add_program, program_status
from tests.support.tokens import TokenFactory
from tests.support.world import Org


async def test_a_stale_mcp_claim_is_closed_not_applied_and_never_rerun(
    mcp_app: FastAPI, db: Database, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    program = add_program(clean_db, org, "Barbell Club")
    async with connect(mcp_app, token_for(tokens, org, "owner"), elicit=answer(True)) as client:
        first: Any = await client.session.call_tool(
            "programs_archive", {"programId": str(program)}, allow_input_required=True
        )
    assert first.request_state is not None
    # A retry that claimed the row and died: running, its claim long past the TTL.
    rows(
        clean_db,
        "UPDATE ai_tool_executions SET status = 'running',"
        " claimed_at = now() - interval '10 minutes' RETURNING id",
    )
    report = await sweep(db)
    assert (report.orgs, report.messages_closed) == (1, 0)
    assert rows(clean_db, "SELECT status, error->>'code' FROM ai_tool_executions") == [
        ("failed", "interrupted_not_applied")
    ]
    assert program_status(clean_db, program) == "active"
