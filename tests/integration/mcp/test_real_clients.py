"""Real MCP clients against a Spotter instance on a loopback port: the official TypeScript SDK
(`@modelcontextprotocol/sdk` 1.x: the initialize handshake, 2025-11-25, as IDE clients embed it)
and the Python SDK (2026-07-28) each list tools, call a read, confirm a write through
elicitation, decline one and undo; the Inspector CLI (2.x) lists tools.

The Node packages are pinned by tests/support/mcp_clients/package-lock.json and installed once
(`npm ci`) into a cache folder outside the repository, named by the lock's hash (shared by runs
and workers; `SPOTTER_NODE_CACHE` moves it). Node.js 20+ and npm must be on PATH: without them
these tests fail and say so.
"""

from __future__ import annotations

import asyncio
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from fastapi import FastAPI

from spotter.config import Settings
from spotter.db import Database
from tests.integration.mcp.conftest import (
    answer,
    connect,
    listening,
    payload,
    rows,
    token_for,
)
from tests.support.callers import caller_for
from tests.support.hitl import add_program, program_status
from tests.support.schedule import class_type, session, today
from tests.support.tokens import TokenFactory
from tests.support.world import Org, add_person

CLIENTS = Path(__file__).parents[2] / "support" / "mcp_clients"
LOCK = CLIENTS / "package-lock.json"


def _cache() -> Path:
    root = os.environ.get("SPOTTER_NODE_CACHE") or Path.home() / ".cache" / "spotter"
    return Path(root) / f"mcp-clients-{hashlib.sha256(LOCK.read_bytes()).hexdigest()[:12]}"


@pytest.fixture(scope="session")
def node_clients() -> Path:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.fail(
            "The real-client MCP tests need Node.js 20+ and npm on PATH (to run the official"
            " TypeScript SDK and the Inspector CLI, pinned in tests/support/mcp_clients);"
            " install Node.js and run again."
        )
    folder = _cache()
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one worker installs, the others wait and reuse it
        if not (folder / "node_modules" / ".installed").exists():
            shutil.copy(CLIENTS / "package.json", folder / "package.json")
            shutil.copy(LOCK, folder / "package-lock.json")
            subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund", "--silent"],
                cwd=folder, check=True, capture_output=True, timeout=600,
            )  # fmt: skip
            (folder / "node_modules" / ".installed").write_text("ok\n")
    return folder / "node_modules"


@pytest.fixture
async def live(settings: Settings, db: Database) -> AsyncIterator[str]:
    async with listening(settings, db) as url:
        yield url


async def _node(*args: str) -> dict[str, Any]:
    done = await asyncio.create_subprocess_exec(
        "node", *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    stdout, stderr = await asyncio.wait_for(done.communicate(), timeout=120)
    assert done.returncode == 0, stderr.decode()[-2000:]
    result: dict[str, Any] = json.loads(stdout.decode())
    return result


async def _spots(db: Database, org: Org, clean_db: str, *names: str) -> list[dict[str, str]]:
    """One session tomorrow, and a spot in it for each of these new members."""
    owner = await caller_for(db, org, "owner")
    sid = await session(db, owner, await class_type(db, owner, capacity=10), today(1))
    people = [add_person(clean_db, org, name) for name in names]
    return [{"sessionId": sid, "memberId": str(p.membership_id)} for p in people]


def _booked(clean_db: str) -> list[tuple[Any, ...]]:
    return rows(clean_db, "SELECT status FROM bookings ORDER BY status")


async def test_the_typescript_sdk_1x_client_confirms_declines_and_undoes(
    live: str, node_clients: Path, db: Database, tokens: TokenFactory, org: Org, clean_db: str,
    tmp_path: Path,
) -> None:  # fmt: skip
    dana, omer = await _spots(db, org, clean_db, "Dana Levi", "Omer Tal")
    script = tmp_path / "steps.json"
    script.write_text(json.dumps([
        {"list": True},
        {"call": "programs_list", "args": {}},
        {"call": "bookings_book", "args": dana, "answer": "accept"},
        {"call": "bookings_book", "args": omer, "answer": "decline"},
        {"call": "programs_create", "args": {"name": "Engine"}},
        {"undoLast": True},
    ]))  # fmt: skip
    token = token_for(tokens, org, "owner")
    out = await _node(str(CLIENTS / "ts_sdk_client.mjs"), str(node_clients), live, token,
                      str(script))  # fmt: skip
    listed, read, confirmed, declined, created, undone = out["steps"]
    assert out["protocolVersion"] == "2025-11-25" and out["sessionId"]
    assert "bookings_book" in listed["tools"] and "spotter_undo" in listed["tools"]
    assert not read["isError"] and "programs" in read["body"]["output"]
    assert not confirmed["isError"], confirmed
    assert declined["isError"] and declined["body"]["code"] == "rejected_by_user"
    assert not created["isError"] and created["body"]["undoAvailable"] is True
    assert not undone["isError"] and undone["body"]["undone"] == created["body"]["executionId"]
    assert len(out["asked"]) == 2 and "Dana Levi" in out["asked"][0]
    assert _booked(clean_db) == [("booked",)]  # Dana once; Omer never
    assert rows(clean_db, "SELECT status FROM programs") == [("archived",)]


async def test_the_python_sdk_client_confirms_declines_and_undoes(
    live: str, mcp_app: FastAPI, db: Database, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    keep = add_program(clean_db, org, "Keep Me")
    drop = add_program(clean_db, org, "Drop Me")
    token = token_for(tokens, org, "owner")
    decisions = iter([True, False])

    async def elicit(ctx: Any, params: Any) -> Any:
        return await answer(next(decisions))(ctx, params)

    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
    async with connect(mcp_app, token, elicit=elicit, url=live, http=http) as client:
        listed = await client.list_tools()
        read = await client.call_tool("programs_list", {})
        confirmed = await client.call_tool("programs_archive", {"programId": str(drop)})
        declined = await client.call_tool("programs_archive", {"programId": str(keep)})
        created = await client.call_tool("programs_create", {"name": "Engine"})
        undone = await client.call_tool(
            "spotter_undo", {"executionId": payload(created)["executionId"]}
        )
    assert "programs_archive" in {t.name for t in listed.tools}
    assert not read.is_error and not confirmed.is_error, payload(confirmed)
    assert not created.is_error and not undone.is_error, payload(undone)
    assert payload(declined)["code"] == "rejected_by_user"
    assert program_status(clean_db, drop) == "archived"
    assert program_status(clean_db, keep) == "active"
    assert rows(clean_db, "SELECT status FROM programs WHERE name = 'Engine'") == [
        ("archived",)
    ]  # created, then undone


async def test_the_inspector_cli_lists_tools(
    live: str, node_clients: Path, tokens: TokenFactory, org: Org
) -> None:
    cli = node_clients / "@modelcontextprotocol" / "inspector" / "clients" / "launcher"
    token = token_for(tokens, org, "coach")
    out = await _node(
        str(cli / "build" / "index.js"), "--cli", live, "--transport", "http",
        "--method", "tools/list", "--header", f"Authorization: Bearer {token}",
    )  # fmt: skip
    names = {t["name"] for t in out["tools"]}
    assert "programs_list" in names
    assert "memberships_erase" not in names  # a coach's list: the role decides
