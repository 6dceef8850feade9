"""The AI SDK chat over HTTP: the whole app, its runs answered by a scripted model (one per
test); `gate` tools (tests/support/hitl.py) for runs that must stay live while a test looks."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from spotter.config import Settings
from spotter.db import Database
from spotter.http.app import create_app
from spotter.providers.fake import ScriptedModel
from tests.support.agent import deps_for
from tests.support.chat import ChatClient
from tests.support.hitl import gate_registry
from tests.support.tokens import TokenFactory
from tests.support.world import Org


@pytest.fixture
def model() -> ScriptedModel:
    return ScriptedModel()


@pytest.fixture
async def http(
    settings: Settings, db: Database, model: ScriptedModel
) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(settings, db=db)
    app.state.agent_deps = deps_for(db, model, settings=settings, registry_for=gate_registry)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://spotter.test") as c:
        yield c


def bearer(tokens: TokenFactory, org: Org, role: str = "owner") -> dict[str, str]:
    return {"authorization": f"Bearer {tokens.token(org[role].clerk_user_id, org.clerk_org_id)}"}


@pytest.fixture
def chat(http: httpx.AsyncClient, tokens: TokenFactory, org: Org) -> ChatClient:
    """The org owner's `useChat` on a fresh chat id."""
    return ChatClient(http, bearer(tokens, org))
