"""OAuth end to end: the official Python SDK's OAuth client discovers the authorization server
from the protected-resource metadata, authorizes with PKCE, gets a token for this resource, lists
tools and makes a confirmed write. Expired, wrong-audience, wrong-issuer and revoked tokens are
all 401 with nothing run; a read-only token cannot write; session tokens keep working."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import parse_qs, urlparse

import httpx2
import pytest
from fastapi import FastAPI
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

from spotter.config import Settings
from spotter.db import Database
from tests.integration.mcp.conftest import BASE, MCP_URL, answer, payload, rows, serving
from tests.support.hitl import add_program, program_names, program_status
from tests.support.loopback import on_loopback
from tests.support.oauth_server import SECRET_KEY, AuthorizationServer
from tests.support.tokens import TokenFactory
from tests.support.world import Org

HEADERS = {"accept": "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28"}
# A bare tools/call (no handshake): the initialize era's stateless form.
CALL_HEADERS = {"accept": "application/json, text/event-stream"}


class Memory:
    """The client's token storage, in memory."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


@pytest.fixture
async def clerk(tokens: TokenFactory, org: Org) -> AsyncIterator[AuthorizationServer]:
    server = AuthorizationServer(tokens, org["owner"].clerk_user_id)
    async with on_loopback(server.app()) as origin:
        server.issuer = origin
        yield server


@pytest.fixture
async def oauth_app(
    settings: Settings, db: Database, clerk: AuthorizationServer
) -> AsyncIterator[FastAPI]:
    oauth = settings.model_copy(update={
        "clerk_oauth_issuer": clerk.issuer,
        "clerk_secret_key": SECRET_KEY,
        "clerk_oauth_verify_url": f"{clerk.issuer}/oauth_applications/access_tokens/verify",
    })  # fmt: skip
    async with serving(oauth, db) as app:
        yield app


def _http(app: FastAPI, **kwargs: Any) -> httpx2.AsyncClient:
    """Spotter in process; the authorization server over loopback."""
    return httpx2.AsyncClient(
        mounts={BASE: httpx2.ASGITransport(app=app)}, timeout=30, follow_redirects=False, **kwargs
    )


def _provider(url: str, scope: str = "spotter:read spotter:write") -> OAuthClientProvider:
    codes: list[AuthorizationCodeResult] = []

    async def redirect(authorization_url: str) -> None:
        # the person signs in and consents: the stand-in redirects back at once
        async with httpx2.AsyncClient(follow_redirects=False) as browser:
            location = (await browser.get(authorization_url)).headers["location"]
        query = parse_qs(urlparse(location).query)
        codes.append(AuthorizationCodeResult(code=query["code"][0], state=query["state"][0]))

    async def callback() -> AuthorizationCodeResult:
        return codes.pop()

    return OAuthClientProvider(
        url,
        OAuthClientMetadata(
            redirect_uris=["http://127.0.0.1:1/callback"],  # type: ignore[list-item]
            client_name="Spotter OAuth test",
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            scope=scope,
            token_endpoint_auth_method="none",
        ),
        Memory(),
        redirect_handler=redirect,
        callback_handler=callback,
    )


async def test_the_sdk_oauth_client_signs_in_lists_tools_and_confirms_a_write(
    oauth_app: FastAPI, clerk: AuthorizationServer, org: Org, clean_db: str
) -> None:
    program = add_program(clean_db, org, "Barbell Club")
    url = f"{MCP_URL}/o/{org.clerk_org_id}"  # the token names no org: the URL does
    async with (
        _http(oauth_app, auth=_provider(url)) as http,
        Client(
            streamable_http_client(url, http_client=http),
            elicitation_callback=answer(True), raise_exceptions=True,
        ) as client,
    ):  # fmt: skip
        listed = await client.list_tools()
        result = await client.call_tool("programs_archive", {"programId": str(program)})
    assert "programs_archive" in {t.name for t in listed.tools}
    assert not result.is_error, payload(result)
    assert program_status(clean_db, program) == "archived"
    (grant,) = clerk.issued
    assert grant["resource"] == MCP_URL  # the protected-resource metadata's resource (RFC 8707)
    assert rows(clean_db, "SELECT channel, status FROM ai_tool_executions") == [
        ("mcp", "succeeded")
    ]


async def _create(app: FastAPI, token: str, url: str = MCP_URL) -> httpx2.Response:
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "programs_create", "arguments": {"name": "Sneaky"}}}  # fmt: skip
    async with _http(app, headers={"authorization": f"Bearer {token}"}) as http:
        return await http.post(url, json=call, headers=CALL_HEADERS)


@pytest.mark.parametrize(
    "claims",
    [
        {"exp": 1_000_000_000, "iat": 999_999_000, "nbf": 999_999_000},  # expired long ago
        {"aud": "https://another.example/mcp"},  # for another resource
        {"iss": "https://not-clerk.example"},  # from another issuer
    ],
    ids=["expired", "wrong-audience", "wrong-issuer"],
)
async def test_a_bad_access_token_is_401_and_runs_nothing(
    oauth_app: FastAPI, clerk: AuthorizationServer, org: Org, clean_db: str,
    claims: dict[str, Any],
) -> None:  # fmt: skip
    token = clerk.access_token(
        audience=MCP_URL, scope="spotter:read spotter:write", client_id="ide", **claims
    )
    response = await _create(oauth_app, token, f"{MCP_URL}/o/{org.clerk_org_id}")
    assert response.status_code == 401
    challenge = response.headers["www-authenticate"]
    assert 'resource_metadata="' in challenge and 'scope="spotter:read spotter:write"' in challenge
    assert program_names(clean_db) == []


async def test_a_revoked_opaque_token_is_401_and_runs_nothing(
    oauth_app: FastAPI, clerk: AuthorizationServer, org: Org, clean_db: str
) -> None:
    url = f"{MCP_URL}/o/{org.clerk_org_id}"
    token = clerk.opaque_token(scope="spotter:read spotter:write", client_id="ide")
    before = await _create(oauth_app, token, url)
    clerk.revoke(token)
    after = await _create(oauth_app, token, url)
    assert before.status_code == 200
    assert after.status_code == 401
    assert program_names(clean_db) == ["Sneaky"]  # only the call made before the revocation


async def test_a_read_only_token_lists_reads_and_cannot_write(
    oauth_app: FastAPI, clerk: AuthorizationServer, org: Org, clean_db: str
) -> None:
    url = f"{MCP_URL}/o/{org.clerk_org_id}"
    token = clerk.access_token(audience=MCP_URL, scope="spotter:read", client_id="ide")
    refused = await _create(oauth_app, token, url)
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}
    async with _http(oauth_app, headers={"authorization": f"Bearer {token}"}) as http:
        listed = (await http.post(url, json=listing, headers=CALL_HEADERS)).json()
    assert refused.status_code == 403
    assert 'error="insufficient_scope"' in refused.headers["www-authenticate"]
    names = {t["name"] for t in listed["result"]["tools"]}
    assert "programs_list" in names and "programs_create" not in names
    assert program_names(clean_db) == []


async def test_a_token_for_one_org_cannot_name_another_in_the_url(
    oauth_app: FastAPI, clerk: AuthorizationServer, org: Org, other_org: Org, clean_db: str
) -> None:
    token = clerk.access_token(
        audience=MCP_URL, scope="spotter:write", client_id="ide", o={"id": org.clerk_org_id}
    )
    response = await _create(oauth_app, token, f"{MCP_URL}/o/{other_org.clerk_org_id}")
    assert response.status_code == 401
    assert program_names(clean_db) == []


async def test_the_metadata_names_the_authorization_server_and_the_scopes(
    oauth_app: FastAPI, clerk: AuthorizationServer
) -> None:
    async with _http(oauth_app) as http:
        document = (await http.get(f"{BASE}/.well-known/oauth-protected-resource/mcp/leads")).json()
        missing = await http.post(MCP_URL, json={}, headers=HEADERS)
    assert document["resource"] == MCP_URL
    assert [s.rstrip("/") for s in document["authorization_servers"]] == [clerk.issuer]
    assert document["scopes_supported"] == ["spotter:read", "spotter:write"]
    assert missing.status_code == 401
    assert 'scope="spotter:read spotter:write"' in missing.headers["www-authenticate"]
