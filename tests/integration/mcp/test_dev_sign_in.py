"""`spotter dev` signs MCP clients in the way production does: its stand-in for Clerk
(spotter.devconsole.oauth) is what the protected-resource metadata names, so the official Python
SDK's OAuth client discovers it, registers, authorizes with PKCE on the sign-in page (a demo
user picked), and its token lists tools and makes a confirmed write on the demo gym."""

from __future__ import annotations

import asyncio
import base64
import hashlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlparse

import httpx2
import pytest
from fastapi import FastAPI
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata

from spotter.auth.devkeys import DEV_ISSUER, ensure_dev_key, public_pem
from spotter.config import Settings
from spotter.db import Database
from spotter.devconsole.app import create_dev_app
from spotter.seed.demo import seed_demo
from tests.integration.mcp.conftest import BASE, MCP_URL, STATE_KEY, answer, payload, rows
from tests.integration.mcp.test_oauth import Memory

OWNER = "user_demo_owner"


@asynccontextmanager
async def dev_server(settings: Settings, db: Database, data_dir: Path) -> AsyncIterator[FastAPI]:
    """The dev app as `spotter dev` configures it: the dev key trusted for sessions and for
    OAuth access tokens, whose issuer is the dev server itself."""
    app = create_dev_app(
        settings.model_copy(update={
            "data_dir": data_dir, "clerk_jwt_key": public_pem(ensure_dev_key(data_dir)),
            "clerk_issuer": DEV_ISSUER, "clerk_jwks_url": None, "clerk_oauth_issuer": BASE,
            "mcp_resource_url": MCP_URL, "mcp_state_key": STATE_KEY,
        }),
        db=db,
    )  # fmt: skip
    started, stop = asyncio.Event(), asyncio.Event()

    async def serve() -> None:
        async with app.router.lifespan_context(app):
            started.set()
            await stop.wait()

    task = asyncio.create_task(serve())
    await started.wait()
    try:
        yield app
    finally:
        stop.set()
        await task


@pytest.fixture
async def dev_app(
    settings: Settings, db: Database, clean_db: str, tmp_path: Path
) -> AsyncIterator[FastAPI]:
    await seed_demo(clean_db)
    async with dev_server(settings, db, tmp_path) as app:
        yield app


class _Form(HTMLParser):
    """The sign-in page's form: its hidden fields and the users it offers."""

    def __init__(self) -> None:
        super().__init__()
        self.fields: dict[str, str] = {}
        self.users: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "input" and a.get("type") == "hidden":
            self.fields[a["name"]] = a["value"]
        if tag == "button" and a.get("name") == "user":
            self.users.append(a["value"])


def _http(app: FastAPI, **kwargs: object) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app), base_url=BASE, timeout=30, **kwargs
    )  # type: ignore[arg-type]


async def _sign_in(app: FastAPI, authorization_url: str, user: str) -> str:
    """What the person does in the browser: open the page, pick a user. The redirect's URL."""
    async with _http(app) as browser:
        page = await browser.get(authorization_url)
        assert page.status_code == 200, page.text
        form = _Form()
        form.feed(page.text)
        assert user in form.users
        chosen = await browser.post("/oauth/authorize", data={**form.fields, "user": user})
    assert chosen.status_code == 302
    return chosen.headers["location"]


def _provider(app: FastAPI) -> OAuthClientProvider:
    codes: list[AuthorizationCodeResult] = []

    async def redirect(authorization_url: str) -> None:
        query = parse_qs(urlparse(await _sign_in(app, authorization_url, OWNER)).query)
        codes.append(AuthorizationCodeResult(code=query["code"][0], state=query["state"][0]))

    async def callback() -> AuthorizationCodeResult:
        return codes.pop()

    return OAuthClientProvider(
        MCP_URL,
        OAuthClientMetadata(
            redirect_uris=["http://127.0.0.1:1/callback"],  # type: ignore[list-item]
            client_name="an MCP client on the dev server",
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        Memory(),
        redirect_handler=redirect,
        callback_handler=callback,
    )


async def test_an_mcp_client_signs_in_to_the_dev_server_and_confirms_a_write(
    dev_app: FastAPI, clean_db: str
) -> None:
    async with (
        _http(dev_app, auth=_provider(dev_app), follow_redirects=False) as http,
        Client(
            streamable_http_client(MCP_URL, http_client=http),
            elicitation_callback=answer(True), raise_exceptions=True,
        ) as client,
    ):  # fmt: skip
        listed = await client.list_tools()
        programs = payload(await client.call_tool("programs_list", {}))["output"]["programs"]
        target = programs[0]
        archived = await client.call_tool("programs_archive", {"programId": target["id"]})
    assert "programs_archive" in {t.name for t in listed.tools}  # the owner's full list
    assert not archived.is_error, payload(archived)
    assert rows(clean_db, "SELECT status FROM programs WHERE id = %s", target["id"]) == [
        ("archived",)
    ]
    assert rows(
        clean_db,
        "SELECT status FROM ai_tool_executions WHERE channel = 'mcp' AND action = 'archive'",
    ) == [("succeeded",)]  # run once


def _pkce() -> tuple[str, str]:
    verifier = "v" * 50
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).decode().rstrip("=")


async def test_a_code_without_its_pkce_verifier_gets_no_token(dev_app: FastAPI) -> None:
    verifier, challenge = _pkce()
    query = {
        "response_type": "code", "client_id": "dev_client_x", "state": "s",
        "redirect_uri": "http://127.0.0.1:1/callback", "code_challenge": challenge,
        "code_challenge_method": "S256", "resource": MCP_URL,
    }  # fmt: skip
    location = await _sign_in(dev_app, f"/oauth/authorize?{urlencode(query)}", OWNER)
    code = parse_qs(urlparse(location).query)["code"][0]
    exchange = {"grant_type": "authorization_code", "code": code, "client_id": "dev_client_x",
                "redirect_uri": "http://127.0.0.1:1/callback"}  # fmt: skip
    async with _http(dev_app) as http:
        wrong = await http.post("/oauth/token", data={**exchange, "code_verifier": "w" * 50})
        right = await http.post("/oauth/token", data={**exchange, "code_verifier": verifier})
    assert wrong.status_code == 400 and wrong.json()["error"] == "invalid_grant"
    assert right.status_code == 200 and right.json()["scope"] == "spotter:read spotter:write"


async def test_the_sign_in_page_refuses_an_authorization_without_pkce(dev_app: FastAPI) -> None:
    query = {"response_type": "code", "client_id": "c", "redirect_uri": "http://127.0.0.1:1/cb"}
    async with _http(dev_app) as http:
        page = await http.get(f"/oauth/authorize?{urlencode(query)}")
    assert page.status_code == 400 and "PKCE" in page.text
