"""An HTTP client for the whole app whose runs use a scripted model (one per test)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from spotter.config import Settings
from spotter.db import Database
from spotter.http.app import create_app
from spotter.providers.fake import ScriptedModel
from tests.support.agent import deps_for


@pytest.fixture
def model() -> ScriptedModel:
    return ScriptedModel()


@pytest.fixture
async def agent_client(
    settings: Settings, db: Database, model: ScriptedModel
) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(settings, db=db)
    app.state.agent_deps = deps_for(db, model, settings=settings)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://spotter.test") as c:
        yield c
