"""CORS, stated once (`spotter.http.cors`): the app answers it where it runs as `spotter dev`
(or with CORS_ALLOWED_ORIGINS), each Function URL answers it on AWS with the same policy."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from spotter.config import Settings
from spotter.db import Database
from spotter.http import cors
from spotter.http.app import create_app
from tests.integration.http.conftest import bearer
from tests.support.tokens import TokenFactory
from tests.support.world import Org

DASHBOARD = "https://dashboard.gym.example"
TEMPLATE = Path(__file__).resolve().parents[3] / "template.yaml"


def _preflight(origin: str, method: str = "POST") -> dict[str, str]:
    return {
        "origin": origin,
        "access-control-request-method": method,
        "access-control-request-headers": "authorization,content-type",
    }


async def _client(settings: Settings, db: Database) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=create_app(settings, db=db))
    return httpx.AsyncClient(transport=transport, base_url="http://spotter.test")


@pytest.fixture
async def dashboard(settings: Settings, db: Database) -> AsyncIterator[httpx.AsyncClient]:
    allowed = settings.model_copy(update={"cors_allowed_origins": DASHBOARD})
    async with await _client(allowed, db) as client:
        yield client


async def test_the_preflight_of_the_chat_allows_the_bearer_header(
    dashboard: httpx.AsyncClient,
) -> None:
    for path, method in (("/agent/chat", "POST"), ("/agent/chat/abc/stream", "GET")):
        response = await dashboard.options(path, headers=_preflight(DASHBOARD, method))
        assert response.status_code == 200, path
        assert response.headers["access-control-allow-origin"] == DASHBOARD
        allowed = response.headers["access-control-allow-headers"].lower()
        assert "authorization" in allowed and "content-type" in allowed
        assert method in response.headers["access-control-allow-methods"]
        assert response.headers["access-control-allow-credentials"] == "true"
        assert response.headers["access-control-max-age"] == str(cors.MAX_AGE_SECONDS)


async def test_another_origin_is_not_allowed(dashboard: httpx.AsyncClient) -> None:
    response = await dashboard.options("/agent/chat", headers=_preflight("https://evil.example"))
    assert response.status_code == 400
    assert "access-control-allow-origin" not in response.headers


async def test_a_refusal_is_readable_cross_origin(
    dashboard: httpx.AsyncClient, tokens: TokenFactory, org: Org
) -> None:
    """A 401 or a 400 the browser cannot read would look like a network failure to the app."""
    response = await dashboard.post("/agent/chat", json={}, headers={"origin": DASHBOARD})
    assert response.status_code == 401
    assert response.headers["access-control-allow-origin"] == DASHBOARD
    assert "x-trace-id" in response.headers["access-control-expose-headers"]
    headers = {"origin": DASHBOARD, **bearer(tokens, org)}
    bad = await dashboard.post("/agent/chat", json={"id": "x"}, headers=headers)
    assert bad.status_code == 400
    assert bad.headers["access-control-allow-origin"] == DASHBOARD


async def test_spotter_dev_allows_a_local_dev_server_by_default(
    settings: Settings, db: Database
) -> None:
    dev = settings.model_copy(update={"environment": "dev"})
    async with await _client(dev, db) as client:
        local = await client.options("/agent/chat", headers=_preflight("http://localhost:5173"))
        assert local.headers["access-control-allow-origin"] == "http://localhost:5173"
        remote = await client.options("/agent/chat", headers=_preflight(DASHBOARD))
        assert "access-control-allow-origin" not in remote.headers


async def test_production_leaves_cors_to_the_function_urls(
    settings: Settings, db: Database
) -> None:
    production = settings.model_copy(
        update={"environment": "production", "cors_allowed_origins": DASHBOARD}
    )
    app = create_app(production, db=db, mcp=False)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://spotter.test") as client:
        response = await client.get("/healthz", headers={"origin": DASHBOARD})
    # Lambda adds the headers itself: the app adding them too would make two
    assert "access-control-allow-origin" not in response.headers


def _function_urls() -> dict[str, dict[str, Any]]:
    class Loader(yaml.SafeLoader):
        pass

    def tagged(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
        if isinstance(node, yaml.ScalarNode):
            return {suffix: loader.construct_scalar(node)}
        if isinstance(node, yaml.SequenceNode):
            return {suffix: loader.construct_sequence(node, deep=True)}
        return {suffix: loader.construct_mapping(node, deep=True)}  # type: ignore[arg-type]

    Loader.add_multi_constructor("!", tagged)
    template = yaml.load(TEMPLATE.read_text(), Loader=Loader)
    return {
        name: resource["Properties"]["FunctionUrlConfig"]
        for name, resource in template["Resources"].items()
        if "FunctionUrlConfig" in resource.get("Properties", {})
    }


def test_every_dashboard_function_url_answers_cors_with_the_same_policy() -> None:
    urls = _function_urls()
    assert "ChatFunction" in urls
    for name, config in urls.items():
        if name == "McpFunction":
            assert "Cors" not in config  # MCP clients are not browsers on the dashboard
            continue
        policy = config["Cors"]
        assert policy["AllowOrigins"] == [{"Ref": "DashboardOrigin"}], name
        assert [h.lower() for h in policy["AllowHeaders"]] == list(cors.ALLOW_HEADERS), name
        assert set(policy["AllowMethods"]) <= set(cors.ALLOW_METHODS), name
        assert policy["ExposeHeaders"] == list(cors.EXPOSE_HEADERS), name
        assert policy["MaxAge"] == cors.MAX_AGE_SECONDS, name
        assert policy["AllowCredentials"] is cors.ALLOW_CREDENTIALS, name
    # the SDK's transport POSTs the chat and GETs its stream at one base URL
    assert set(urls["ChatFunction"]["Cors"]["AllowMethods"]) == {"GET", "POST"}
