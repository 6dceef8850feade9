"""The approval page of a pending MCP call, in Chromium: an MCP client without elicitation gets
its URL, the person approves there (signed in as the console's user), and the client's retry
runs the call once."""

from __future__ import annotations

import asyncio
import json
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlparse

import httpx
import httpx2
import psycopg
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import TextContent
from playwright.sync_api import Browser, expect

from spotter.seed.demo import DEMO_CLERK_ORG_ID
from tests.browser.conftest import ARTIFACTS, open_console

pytestmark = pytest.mark.xdist_group("browser")

# a camelCase or snake_case key shown to a person (as tests/browser/test_console.py checks cards)
RAW_KEY = re.compile(r"(?<![\w.@])([a-z]+[A-Z][A-Za-z]*|[a-z]+_[a-z_]+)(?![\w@])")


def _owner_token(console_url: str) -> str:
    token: str = httpx.post(f"{console_url}/dev/token", json={"role": "owner"}).json()["token"]
    return token


async def _archive(console_url: str, token: str, program_id: str) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(streamable_http_client(f"{console_url}/mcp", http_client=http)) as client,
    ):
        result = await client.call_tool("programs_archive", {"programId": program_id})
    block = result.content[0]
    assert isinstance(block, TextContent)
    body: dict[str, Any] = json.loads(block.text)
    return body


def _call(console_url: str, token: str, program_id: str) -> dict[str, Any]:
    # Playwright's sync API holds this thread's event loop: the MCP client runs in another.
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, _archive(console_url, token, program_id)).result()


def _program(console_db: str, name: str) -> tuple[str, str]:
    with psycopg.connect(console_db) as conn:
        org = conn.execute(
            "SELECT id FROM organizations WHERE clerk_org_id = %s", (DEMO_CLERK_ORG_ID,)
        ).fetchone()
        assert org is not None
        row = conn.execute(
            "INSERT INTO programs (organization_id, name) VALUES (%s, %s) RETURNING id, status",
            (org[0], name),
        ).fetchone()
    assert row is not None
    return str(row[0]), str(row[1])


def _status(console_db: str, program_id: str) -> str:
    with psycopg.connect(console_db) as conn:
        row = conn.execute("SELECT status FROM programs WHERE id = %s", (program_id,)).fetchone()
    assert row is not None
    return str(row[0])


def test_approving_on_the_page_lets_the_retry_run_the_call_once(
    browser: Browser, console_url: str, console_db: str
) -> None:
    program, _ = _program(console_db, "Approval Page Club")
    token = _owner_token(console_url)
    asked = _call(console_url, token, program)
    assert asked["code"] == "confirmation_required"
    path = urlparse(asked["approvalUrl"]).path
    assert path == f"/approvals/{asked['executionId']}"

    page = open_console(browser, console_url)  # the console's login: its remembered user
    page.goto(console_url + path)
    expect(page.get_by_test_id("approval-tool")).to_have_text("Archive a program")
    expect(page.get_by_test_id("approval-message")).to_contain_text("Approval Page Club")
    shown = page.get_by_test_id("approval-card").inner_text()
    assert not RAW_KEY.search(shown), shown  # the server's words, never programs_archive or a key
    assert _status(console_db, program) == "active"
    expect(page.get_by_test_id("approve")).to_be_enabled()
    page.get_by_test_id("approve").click()
    expect(page.get_by_test_id("approval-card")).to_have_attribute("data-status", "approved")
    expect(page.get_by_test_id("approve")).to_be_disabled()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "approval_page_approved.png"))
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()

    ran = _call(console_url, token, program)
    assert ran["executionId"] == asked["executionId"] and "output" in ran
    assert _status(console_db, program) == "archived"


def test_rejecting_on_the_page_runs_nothing(
    browser: Browser, console_url: str, console_db: str
) -> None:
    program, _ = _program(console_db, "Rejected Page Club")
    token = _owner_token(console_url)
    asked = _call(console_url, token, program)
    page = open_console(browser, console_url)
    page.goto(console_url + urlparse(asked["approvalUrl"]).path)
    expect(page.get_by_test_id("reject")).to_be_enabled()
    page.get_by_test_id("approval-reason").fill("Not this one")
    page.get_by_test_id("reject").click()
    expect(page.get_by_test_id("approval-card")).to_have_attribute("data-status", "rejected")
    page.context.close()
    told = _call(console_url, token, program)
    assert told["code"] == "rejected_by_user" and told["reason"] == "Not this one"
    assert _status(console_db, program) == "active"
