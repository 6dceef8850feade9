"""MCP auth: the agent's Clerk verification and membership; a 401 points at the metadata."""

from __future__ import annotations

import pytest
from fastapi import FastAPI

from tests.integration.mcp.conftest import BASE, MCP_URL, http_client
from tests.integration.test_auth import UNSTORABLE_CLAIMS
from tests.support.tokens import TEST_ISSUER, TokenFactory
from tests.support.world import Org

METADATA = f"{BASE}/.well-known/oauth-protected-resource/mcp"
LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
HEADERS = {"accept": "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28"}


async def _post(app: FastAPI, token: str | None) -> tuple[int, str]:
    async with http_client(app, token) as http:
        response = await http.post(MCP_URL, json=LIST, headers=HEADERS)
    return response.status_code, response.headers.get("www-authenticate", "")


async def test_missing_token_is_401_with_the_metadata_hint(mcp_app: FastAPI) -> None:
    status, challenge = await _post(mcp_app, None)
    assert status == 401
    assert challenge.startswith("Bearer ")
    assert f'resource_metadata="{METADATA}"' in challenge


async def test_forged_token_is_401(mcp_app: FastAPI, tokens: TokenFactory, org: Org) -> None:
    other = TokenFactory()  # a key the app does not trust
    status, challenge = await _post(
        mcp_app, other.token(org["owner"].clerk_user_id, org.clerk_org_id)
    )
    assert status == 401 and "resource_metadata" in challenge


async def test_token_without_membership_is_401(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org, other_org: Org
) -> None:
    # A valid Clerk session, but for an org this user is no member of.
    status, _ = await _post(
        mcp_app, tokens.token(org["owner"].clerk_user_id, other_org.clerk_org_id)
    )
    assert status == 401


@pytest.mark.parametrize("claims", UNSTORABLE_CLAIMS)
async def test_a_signed_token_whose_claims_hold_a_nul_or_a_lone_surrogate_is_401(
    mcp_app: FastAPI, tokens: TokenFactory, org: Org, claims: dict[str, object]
) -> None:
    token = tokens.token(org["owner"].clerk_user_id, org.clerk_org_id, **claims)
    status, challenge = await _post(mcp_app, token)
    assert status == 401 and "resource_metadata" in challenge


async def test_protected_resource_metadata_names_clerk_as_authorization_server(
    mcp_app: FastAPI,
) -> None:
    async with http_client(mcp_app, None) as http:
        suffixed = await http.get("/.well-known/oauth-protected-resource/mcp")
        bare = await http.get("/.well-known/oauth-protected-resource")
    assert suffixed.status_code == bare.status_code == 200
    assert suffixed.json() == bare.json()
    assert suffixed.json()["resource"] == MCP_URL
    assert [s.rstrip("/") for s in suffixed.json()["authorization_servers"]] == [TEST_ISSUER]
