"""MCP authentication: the agent's Clerk verification and membership check, as the SDK's
`TokenVerifier`. A token that fails either is no token (401 with the metadata hint)."""

from __future__ import annotations

from collections.abc import Callable

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from pydantic import ConfigDict

from spotter.auth import Caller, TokenVerifier, resolve_caller
from spotter.db import Database
from spotter.errors import SpotterError
from spotter.observability import log_event


class CallerToken(AccessToken):
    """An access token that carries the resolved caller (our ids and role, not Clerk's)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    caller: Caller


class ClerkMcpVerifier:
    # `db` is a getter: the pool opens in the host app's lifespan, after this is built.
    def __init__(
        self, verifier: TokenVerifier, db: Callable[[], Database], issuer: str | None
    ) -> None:
        self._verifier = verifier
        self._db = db
        self._issuer = issuer

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            claims = await self._verifier.verify(token)
            caller = await resolve_caller(self._db(), claims, "en")
        except SpotterError as exc:
            log_event("mcp.auth.refused", code=exc.code)
            return None
        # The request-state principal is (client_id, iss, subject): user AND org, so state minted
        # for one membership never verifies for another.
        return CallerToken(
            token=token,
            client_id=caller.clerk_org_id,
            scopes=["staff"] if caller.is_staff else [],
            subject=caller.clerk_user_id,
            claims={"iss": self._issuer} if self._issuer else None,
            caller=caller,
        )


def current_caller() -> Caller:
    """The caller of the request being served (the bearer middleware put the token there)."""
    token = get_access_token()
    if not isinstance(token, CallerToken):
        raise RuntimeError("no authenticated MCP caller")
    return token.caller
