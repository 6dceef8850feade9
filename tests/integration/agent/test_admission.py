"""Issue 26 item 6: `agent_disabled` (an organization's kill switch and the platform's) and
`rate_limited` (a per-user window on sends, in Postgres) refuse before anything is written."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import psycopg
import pytest

from spotter.agent.admission import admit_send
from spotter.agent.errors import RateLimited
from spotter.cli import cmd_agent_switch
from spotter.config import Settings
from spotter.db import Database
from spotter.db.server import LOCAL_APP_PASSWORD, with_login
from spotter.http.app import create_app
from spotter.i18n import error_message
from spotter.providers.fake import Reply, ScriptedModel, Text
from tests.support.agent import deps_for, sse_payloads
from tests.support.callers import caller_for
from tests.support.owner import MIGRATION_OWNER, switch_agent
from tests.support.tokens import TokenFactory
from tests.support.world import Org

T0 = datetime(2026, 12, 2, 9, 0, tzinfo=UTC)
BODY = {"text": "hello", "pageContext": {"pathname": "/dashboard"}}


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def model() -> ScriptedModel:
    return ScriptedModel([Reply([Text(f"Reply {i}.")]) for i in range(10)])


@pytest.fixture
async def api(
    settings: Settings, db: Database, model: ScriptedModel, clock: Clock
) -> AsyncIterator[httpx.AsyncClient]:
    limited = settings.model_copy(update={"agent_send_limit": 2, "agent_send_window_seconds": 60})
    app = create_app(limited, db=db)
    app.state.agent_deps = deps_for(db, model, settings=limited, clock=clock)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://spotter.test") as c:
        yield c


def _auth(tokens: TokenFactory, org: Org, role: str = "owner") -> dict[str, str]:
    return {"authorization": f"Bearer {tokens.token(org[role].clerk_user_id, org.clerk_org_id)}"}


def _count(url: str, table: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute(f"SELECT count(*) FROM {table}").fetchone()
    assert row is not None
    return int(row[0])


def _switch(url: str, state: str, org: Org | None = None) -> None:
    switch_agent(url, state, org.clerk_org_id if org else None)


async def test_an_orgs_kill_switch_refuses_with_agent_disabled_before_anything_is_written(
    api: httpx.AsyncClient,
    model: ScriptedModel,
    tokens: TokenFactory,
    org: Org,
    other_org: Org,
    clean_db: str,
) -> None:
    _switch(clean_db, "off", org)
    refused = await api.post("/agent/messages", json=BODY, headers=_auth(tokens, org))
    assert refused.status_code == 403
    body = refused.json()
    assert body["code"] == "agent_disabled"
    assert body["message"] == error_message("agent_disabled", "en")
    assert body["traceId"] == refused.headers["x-trace-id"]
    for table in ("ai_conversations", "ai_messages", "agent_sends", "ai_usage_daily"):
        assert _count(clean_db, table) == 0, table
    assert model.requests == []
    # a confirmation or an undo is refused the same way, before it claims anything
    for path in (
        "/agent/conversations/00000000-0000-4000-8000-000000000000/confirm/t1",
        "/agent/conversations/00000000-0000-4000-8000-000000000000/undo/t1",
    ):
        answer = await api.post(path, json={"approved": True}, headers=_auth(tokens, org))
        assert (answer.status_code, answer.json()["code"]) == (403, "agent_disabled")
    # another organization is not affected
    served = await api.post("/agent/messages", json=BODY, headers=_auth(tokens, other_org))
    assert served.status_code == 200 and sse_payloads(served.text)[-1]["type"] == "done"
    _switch(clean_db, "on", org)
    again = await api.post("/agent/messages", json=BODY, headers=_auth(tokens, org))
    assert again.status_code == 200


async def test_the_platform_kill_switch_turns_the_agent_off_everywhere(
    api: httpx.AsyncClient, tokens: TokenFactory, org: Org, other_org: Org, clean_db: str
) -> None:
    _switch(clean_db, "off")
    for who in (org, other_org):
        refused = await api.post("/agent/messages", json=BODY, headers=_auth(tokens, who))
        assert (refused.status_code, refused.json()["code"]) == (403, "agent_disabled")
    # reading stays open, so nobody is stranded
    assert (await api.get("/agent/conversations", headers=_auth(tokens, org))).status_code == 200
    _switch(clean_db, "on")
    assert (await api.post("/agent/messages", json=BODY, headers=_auth(tokens, org))).is_success


async def test_sends_over_the_users_window_are_rate_limited_with_retry_after(
    api: httpx.AsyncClient, tokens: TokenFactory, org: Org, clock: Clock, clean_db: str
) -> None:
    owner, coach = _auth(tokens, org), _auth(tokens, org, "coach")
    for seconds in (0, 20):
        clock.now = T0 + timedelta(seconds=seconds)
        assert (await api.post("/agent/messages", json=BODY, headers=owner)).status_code == 200
    clock.now = T0 + timedelta(seconds=45)
    refused = await api.post("/agent/messages", json=BODY, headers=owner)
    assert refused.status_code == 429
    assert refused.headers["retry-after"] == "15"  # the first send leaves the window at 60 s
    assert refused.json()["code"] == "rate_limited"
    assert refused.json()["message"] == error_message("rate_limited", "en")
    assert _count(clean_db, "ai_conversations") == 2  # the refused send wrote nothing
    # the window is the user's: a colleague in the same org sends
    assert (await api.post("/agent/messages", json=BODY, headers=coach)).status_code == 200
    clock.now = T0 + timedelta(seconds=61)
    assert (await api.post("/agent/messages", json=BODY, headers=owner)).status_code == 200
    # rows that left the window are pruned by the next admission
    assert _count(clean_db, "agent_sends") == 3  # owner's two in the window, the coach's one


async def test_concurrent_sends_are_counted_exactly(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    settings = Settings(environment="test", agent_send_limit=3, agent_send_window_seconds=60)

    async def one(i: int) -> Any:
        try:
            await admit_send(db, settings, owner, T0 + timedelta(milliseconds=i))
        except RateLimited as refused:
            return refused
        return "admitted"

    results = await asyncio.gather(*(one(i) for i in range(8)))
    assert results.count("admitted") == 3
    assert all(isinstance(r, RateLimited) for r in results if r != "admitted")


async def test_the_app_role_cannot_flip_a_kill_switch(db: Database, org: Org) -> None:
    async with db.org_tx(org.id) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            await conn.execute(
                "INSERT INTO agent_kill_switches (organization_id) VALUES (%s)", (org.id,)
            )
    async with db.org_tx(org.id) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            await conn.execute("SELECT spotter_switch_agent(%s, true, 'x')", (org.clerk_org_id,))


def test_switching_an_unknown_org_says_so_and_writes_nothing(clean_db: str, org: Org) -> None:
    owner = with_login(clean_db, MIGRATION_OWNER, LOCAL_APP_PASSWORD)
    settings = Settings(environment="test", database_url=owner)
    with pytest.raises(SystemExit, match="no organization org_nobody"):
        cmd_agent_switch(settings, "off", "org_nobody", "typo")
    assert _count(clean_db, "agent_kill_switches") == 0
