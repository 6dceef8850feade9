"""Who an MCP request is: a Clerk session token (the dashboard's, full access), or a Clerk OAuth
access token that an MCP client (Claude, ChatGPT, Cursor, VS Code) obtained from Clerk as the
authorization server.

- A JWT access token (RFC 9068: `typ: at+jwt`, or a `client_id` and no session) is verified
  networklessly against the instance's keys (Clerk signs it like a session token), its issuer
  (`CLERK_OAUTH_ISSUER`, else `CLERK_ISSUER`), its expiry, and its audience: it must name this
  resource (RFC 8707), so a token minted for another server is refused.
- An opaque access token is verified by Clerk's endpoint (`CLERK_OAUTH_VERIFY_URL` with
  `CLERK_SECRET_KEY`), which also knows whether it was revoked; without the key it is refused.
- Scopes say what the token may do: `spotter:read` lists tools and calls reads,
  `spotter:write` also calls writes (each still confirmed by a person where the tool says so)
  and undoes them. A session token has both.

The organization comes from the token where it carries one, else from the MCP URL; the caller's
membership is checked by `resolve_caller` either way (the MCP gate does it).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

import httpx2
import jwt

from spotter.auth.clerk import SessionClaims, TokenVerifier, is_oauth_access_token, read_claims
from spotter.config import Settings
from spotter.errors import AuthError

SCOPE_READ = "spotter:read"
SCOPE_WRITE = "spotter:write"
SCOPES: tuple[str, ...] = (SCOPE_READ, SCOPE_WRITE)
_ALGORITHMS = ["RS256"]
_VERIFY_TIMEOUT_SECONDS = 5.0


@dataclass(frozen=True)
class Grant:
    """A verified token: whose it is, what it may do, and which client holds it."""

    claims: SessionClaims  # the org may be missing: the MCP URL names it then
    scopes: frozenset[str]
    client_id: str
    kind: Literal["session", "oauth"]
    issuer: str | None = None
    expires_at: int | None = None

    @property
    def can_read(self) -> bool:
        return SCOPE_READ in self.scopes or self.can_write

    @property
    def can_write(self) -> bool:
        return SCOPE_WRITE in self.scopes

    def in_org(self, clerk_org_id: str | None) -> Grant:
        """The grant for the org the URL names, when the token names none."""
        if self.claims.clerk_org_id is not None or clerk_org_id is None:
            return self
        return replace(self, claims=replace(self.claims, clerk_org_id=clerk_org_id))


def _scopes(payload: dict[str, Any]) -> frozenset[str]:
    scope, scp = payload.get("scope"), payload.get("scp")
    if isinstance(scope, str):
        return frozenset(scope.split())
    if isinstance(scp, list):
        return frozenset(str(s) for s in scp)
    if isinstance(scp, str):
        return frozenset(scp.split())
    return frozenset()


def _audiences(resource: str) -> list[str]:
    base = resource.rstrip("/")
    return [base, base + "/"]


class AccessVerifier:
    def __init__(self, settings: Settings, sessions: TokenVerifier) -> None:
        self._sessions = sessions
        self._issuer = settings.clerk_oauth_issuer or settings.clerk_issuer
        self._leeway = settings.clerk_leeway_seconds
        self._secret = settings.clerk_secret_key
        self._verify_url = settings.clerk_oauth_verify_url

    async def verify(self, token: str, resource: str) -> Grant:
        """The token's grant for this resource; AuthError (401) for any token we cannot trust."""
        if token.count(".") == 2 and is_oauth_access_token(token):
            return await self._jwt_access_token(token, resource)
        if token.count(".") == 2:
            claims = await self._sessions.verify(token)
            return Grant(claims, frozenset(SCOPES), claims.clerk_org_id or "", "session")
        return await self._opaque_access_token(token)

    async def _jwt_access_token(self, token: str, resource: str) -> Grant:
        key = await self._sessions.signing_key(token)
        try:
            payload = jwt.decode(
                token,
                key,
                algorithms=_ALGORITHMS,
                leeway=self._leeway,
                issuer=self._issuer,
                audience=_audiences(resource),
                options={"require": ["exp", "sub", "iss", "aud"]},
            )
        except jwt.ExpiredSignatureError as exc:
            raise AuthError("token_expired", "The access token has expired.") from exc
        except jwt.InvalidIssuerError as exc:
            raise AuthError("invalid_issuer", "The access token has the wrong issuer.") from exc
        except jwt.InvalidAudienceError as exc:
            raise AuthError("invalid_token", "The access token is for another resource.") from exc
        except jwt.PyJWTError as exc:
            raise AuthError("invalid_token", "The access token is not valid.") from exc
        return Grant(
            read_claims(payload),
            _scopes(payload),
            str(payload.get("client_id") or payload.get("azp") or ""),
            "oauth",
            issuer=str(payload["iss"]),
            expires_at=int(payload["exp"]),
        )

    async def _opaque_access_token(self, token: str) -> Grant:
        if not self._secret or not token.isascii() or len(token) > 4096:
            raise AuthError("invalid_token", "The access token is not valid.")
        try:
            async with httpx2.AsyncClient(timeout=_VERIFY_TIMEOUT_SECONDS) as http:
                response = await http.post(
                    self._verify_url,
                    json={"access_token": token},
                    headers={"authorization": f"Bearer {self._secret}"},
                )
        except httpx2.HTTPError as exc:
            raise AuthError("invalid_token", "The access token could not be verified.") from exc
        if response.status_code != 200:
            raise AuthError("invalid_token", "The access token is not valid.")
        body = response.json()
        if not isinstance(body, dict) or body.get("revoked") or body.get("expired"):
            raise AuthError("invalid_token", "The access token was revoked or has expired.")
        subject = body.get("subject")
        if not isinstance(subject, str) or not subject:
            raise AuthError("invalid_token", "The access token has no subject.")
        org = body.get("org_id") or body.get("organization_id")
        scopes = body.get("scopes")
        return Grant(
            SessionClaims(subject, org if isinstance(org, str) and org else None, None, None),
            frozenset(str(s) for s in scopes) if isinstance(scopes, list) else frozenset(),
            str(body.get("client_id") or ""),
            "oauth",
            issuer=self._issuer,
        )
