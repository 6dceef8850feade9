"""CRM fixtures: an org scope on the app role, and a demo pipeline."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest

from spotter.db import Database
from spotter.db.scope import OrgScope
from spotter.domain import lead_pipelines
from tests.support.world import Org

ScopeFactory = Callable[[Org], Any]


@pytest.fixture
def scope_of(db: Database) -> Callable[[Org], Any]:
    """`async with scope_of(org) as scope:` one committed org transaction on the app role."""

    @asynccontextmanager
    async def open_scope(org: Org) -> AsyncIterator[OrgScope]:
        async with db.org_tx(org.id) as conn:
            yield OrgScope(conn, org.id)

    return open_scope


@pytest.fixture
def make_pipeline(scope_of: Callable[[Org], Any]) -> Callable[..., Awaitable[dict[str, Any]]]:
    async def make(
        org: Org, name: str = "Trials", stages: tuple[str, ...] = ("New", "Contacted", "Trial")
    ) -> dict[str, Any]:
        async with scope_of(org) as scope:
            return await lead_pipelines.create_pipeline(
                scope, name=name, stages=list(stages), make_default=False
            )

    return make
