"""MCP authentication: a session or OAuth access token (`auth.oauth`), then the membership check
the agent makes (`resolve_caller`), as the token the SDK's handlers read (`get_access_token`).

The gate (`spotter.mcp.endpoint`) answers a token that fails either with 401 and the
`WWW-Authenticate` challenge naming the protected-resource metadata and the scopes.
"""

from __future__ import annotations

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from pydantic import ConfigDict

from spotter.auth import Caller, resolve_caller
from spotter.auth.oauth import AccessVerifier, Grant
from spotter.db import Database
from spotter.errors import AuthError, SpotterError


class CallerToken(AccessToken):
    """An access token that carries the resolved caller (our ids and role, not Clerk's) and what
    the token may do."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    caller: Caller
    can_write: bool


async def authenticate(
    verifier: AccessVerifier,
    db: Database,
    token: str,
    resource: str,
    url_org: str | None,
    issuer: str | None,
) -> CallerToken:
    """The caller behind a bearer token. AuthError: a token we do not trust, or an active
    membership it does not have; a database outage propagates (the gate answers 503)."""
    grant: Grant = (await verifier.verify(token, resource)).in_org(url_org)
    claims = grant.claims
    if url_org is not None and claims.clerk_org_id != url_org:
        raise AuthError("invalid_token", "The token is for another organization than the URL.")
    if claims.clerk_org_id is None:
        raise AuthError("invalid_token", "Name the organization: connect to /mcp/o/{org}.")
    try:
        caller = await resolve_caller(db, claims, "en")
    except SpotterError as exc:  # not a member, membership inactive: no token of ours
        raise AuthError("invalid_token", exc.message) from exc
    # The request-state principal is (client_id, iss, subject): user AND org, so state minted
    # for one membership never verifies for another.
    return CallerToken(
        token=token,
        client_id=caller.clerk_org_id,
        scopes=sorted(grant.scopes),
        subject=caller.clerk_user_id,
        claims={"iss": issuer} if issuer else None,
        expires_at=grant.expires_at,
        caller=caller,
        can_write=grant.can_write,
    )


def current_token() -> CallerToken:
    """The token of the request being served (the gate put it there)."""
    token = get_access_token()
    if not isinstance(token, CallerToken):
        raise RuntimeError("no authenticated MCP caller")
    return token


def current_caller() -> Caller:
    return current_token().caller
