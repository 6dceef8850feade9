"""An MCP call's abandoned claim is closed by the sweep like any other (it has no message)."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import httpx2
import pytest
from fastapi import FastAPI
from mcp_types import ElicitResult

from spotter import cli
from spotter.agent.approvals.settle import sweep
from spotter.config import Settings, get_settings
from spotter.db import Database
from spotter.mcp import calls, legacy
from tests.integration.mcp.conftest import answer, connect, listening, payload, rows, token_for
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


async def test_a_pending_call_whose_sealed_state_lapsed_is_closed_expired_and_the_late_retry_is_told(
    mcp_app: FastAPI, db: Database, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    # issue 30, item 12: an MCP call left pending when its question lapsed must not stay pending
    program = add_program(clean_db, org, "Barbell Club")
    approve = {"confirm": ElicitResult(action="accept", content={"approved": True})}
    async with connect(mcp_app, token_for(tokens, org, "owner"), elicit=answer(True)) as client:
        asked: Any = await client.session.call_tool(
            "programs_archive", {"programId": str(program)}, allow_input_required=True
        )
        rows(clean_db, "UPDATE ai_tool_executions SET expires_at = now() - interval '1 second'"
             " RETURNING id")  # fmt: skip
        report = await sweep(db)
        late: Any = await client.session.call_tool(
            "programs_archive", {"programId": str(program)}, input_responses=approve,
            request_state=asked.request_state, allow_input_required=True,
        )  # fmt: skip
        again: Any = await client.session.call_tool(
            "programs_archive", {"programId": str(program)}, input_responses=approve,
            request_state=asked.request_state, allow_input_required=True,
        )  # fmt: skip
    assert report.mcp_expired == 1
    assert payload(late)["code"] == "expired"  # told once, with the answer it came with ignored
    assert payload(again)["code"] == "tool_already_resolved"
    assert rows(clean_db, "SELECT status, error->>'code' FROM ai_tool_executions") == [
        ("failed", "expired")
    ]
    assert program_status(clean_db, program) == "active"


async def test_the_sweep_leaves_a_question_that_is_still_open(
    mcp_app: FastAPI, db: Database, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    program = add_program(clean_db, org, "Barbell Club")
    async with connect(mcp_app, token_for(tokens, org, "owner"), elicit=answer(True)) as client:
        await client.session.call_tool(
            "programs_archive", {"programId": str(program)}, allow_input_required=True
        )
    report = await sweep(db)
    assert report.mcp_expired == 0
    assert rows(clean_db, "SELECT status FROM ai_tool_executions") == [("pending",)]


async def test_an_in_stream_question_nobody_answers_lapses_and_a_late_answer_runs_nothing(
    mcp_app: FastAPI, settings: Settings, db: Database, tokens: TokenFactory, org: Org, clean_db: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.setattr(legacy, "STREAM_WAIT", timedelta(seconds=1))
    monkeypatch.setattr(calls, "STREAM_WAIT", timedelta(seconds=1))
    program = add_program(clean_db, org, "Barbell Club")
    late_answers: list[bool] = []

    async def slow(_ctx: Any, _params: Any) -> ElicitResult:
        await asyncio.sleep(2.5)  # the person answers after the stream gave up
        late_answers.append(True)
        return ElicitResult(action="accept", content={"approved": True})

    token = token_for(tokens, org, "owner")
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
    async with (
        listening(settings, db) as url,
        connect(mcp_app, token, elicit=slow, mode="legacy", url=url, http=http)
        as client,
    ):  # fmt: skip
        result = await client.call_tool("programs_archive", {"programId": str(program)})
    assert payload(result)["code"] == "expired"
    assert rows(clean_db, "SELECT status, error->>'code' FROM ai_tool_executions") == [
        ("failed", "expired")
    ]
    assert program_status(clean_db, program) == "active"


async def test_spotter_sweep_prints_how_many_mcp_calls_it_expired(
    mcp_app: FastAPI,
    tokens: TokenFactory,
    org: Org,
    clean_db: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """fix31 item 4: the CLI says what the sweep did to MCP calls, beside the messages."""
    program = add_program(clean_db, org, "Barbell Club")
    async with connect(mcp_app, token_for(tokens, org, "owner"), elicit=answer(True)) as client:
        await client.session.call_tool(
            "programs_archive", {"programId": str(program)}, allow_input_required=True
        )
    rows(clean_db, "UPDATE ai_tool_executions SET expires_at = now() - interval '1 second'"
         " RETURNING id")  # fmt: skip
    monkeypatch.setenv("DATABASE_URL", clean_db)
    monkeypatch.delenv("APP_DATABASE_URL", raising=False)
    get_settings.cache_clear()
    try:
        await asyncio.to_thread(cli.main, ["sweep"])  # its own event loop, as from a shell
    finally:
        get_settings.cache_clear()
    printed = capsys.readouterr().out
    assert "sweep: 0 message(s) closed in 0 org(s), 1 MCP call(s) expired," in printed
    assert rows(clean_db, "SELECT status, error->>'code' FROM ai_tool_executions") == [
        ("failed", "expired")
    ]
