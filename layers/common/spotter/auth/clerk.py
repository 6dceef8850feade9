"""Clerk session tokens: RS256 only, verified against a PEM key (networkless) or a cached JWKS.

PyJWT rather than Clerk's `clerk-backend-api`: verification is all we need, the SDK's
`authenticate_request` does not check `iss` and brings a large generated HTTP client into every
Lambda cold start, and we must read both session-token claim formats (v1 and v2) ourselves.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import jwt
from jwt import PyJWKClient

from spotter.config import Settings
from spotter.db.text import unstorable
from spotter.errors import AuthError, ForbiddenError

_ALGORITHMS = ["RS256"]


@dataclass(frozen=True)
class SessionClaims:
    """What a verified Clerk session token says about the caller."""

    clerk_user_id: str
    clerk_org_id: str | None
    token_org_role: str | None
    session_id: str | None


def read_claims(payload: dict[str, Any]) -> SessionClaims:
    """Both claim formats: v2 carries `o: {id, rol}`, v1 carries `org_id` / `org_role`.

    The claims we read are compared in Postgres: a signed token whose subject, org, role or
    session holds text no column can hold (a NUL, a lone surrogate) names nobody: invalid."""
    read = [payload.get(k) for k in ("sub", "o", "org_id", "org_role", "sid")]
    if unstorable(read):
        raise AuthError("invalid_token", "The session token's claims are not valid text.")
    subject = payload.get("sub")
    if not isinstance(subject, str) or not subject:
        raise AuthError("invalid_token", "The session token has no subject.")
    org = payload.get("o")
    if isinstance(org, dict):
        org_id, role = org.get("id"), org.get("rol")
    else:
        org_id, role = payload.get("org_id"), payload.get("org_role")
    if isinstance(role, str) and role.startswith("org:"):
        role = role.removeprefix("org:")
    sid = payload.get("sid")
    return SessionClaims(
        clerk_user_id=subject,
        clerk_org_id=org_id if isinstance(org_id, str) and org_id else None,
        token_org_role=role if isinstance(role, str) else None,
        session_id=sid if isinstance(sid, str) else None,
    )


def is_oauth_access_token(token: str) -> bool:
    """A JWT profiled as an OAuth access token (RFC 9068 `typ: at+jwt`, or a `client_id` claim
    and no session id), read before any verification to pick the verifier."""
    try:
        header = jwt.get_unverified_header(token)
        payload = jwt.decode(token, options={"verify_signature": False})
    except jwt.PyJWTError:
        return False
    typ = str(header.get("typ", "")).lower()
    return typ in ("at+jwt", "application/at+jwt") or (
        "client_id" in payload and "sid" not in payload
    )


class TokenVerifier:
    """Verifies session tokens with the key source the settings name."""

    def __init__(self, settings: Settings) -> None:
        if not settings.clerk_jwt_key and not settings.clerk_jwks_url:
            raise RuntimeError("set CLERK_JWT_KEY (PEM public key) or CLERK_JWKS_URL")
        self._pem = settings.clerk_jwt_key.replace("\\n", "\n") if settings.clerk_jwt_key else None
        self._jwks = (
            PyJWKClient(settings.clerk_jwks_url, cache_keys=True, lifespan=3600)
            if settings.clerk_jwks_url and not self._pem
            else None
        )
        self._issuer = settings.clerk_issuer
        self._parties = settings.authorized_parties
        self._leeway = settings.clerk_leeway_seconds

    async def signing_key(self, token: str) -> Any:
        """The instance key that signed `token` (the PEM, or the JWKS key its `kid` names):
        Clerk signs session tokens and OAuth JWT access tokens with the same keys."""
        if self._jwks is None:
            return self._pem
        try:
            signing_key = await asyncio.to_thread(self._jwks.get_signing_key_from_jwt, token)
        except jwt.PyJWTError as exc:
            raise AuthError("invalid_token", "No signing key matches the token.") from exc
        return signing_key.key

    async def verify(self, token: str) -> SessionClaims:
        if is_oauth_access_token(token):
            # An OAuth client's token (an MCP client's) is never a dashboard session.
            raise AuthError("invalid_token", "An OAuth access token is not a session token.")
        return self.verify_with_key(token, await self.signing_key(token))

    def verify_with_key(self, token: str, key: Any) -> SessionClaims:
        try:
            payload = jwt.decode(
                token,
                key,
                algorithms=_ALGORITHMS,
                leeway=self._leeway,
                issuer=self._issuer,
                options={"require": ["exp", "sub"], "verify_aud": False},
            )
        except jwt.ExpiredSignatureError as exc:
            raise AuthError("token_expired", "The session token has expired.") from exc
        except jwt.InvalidIssuerError as exc:
            raise AuthError("invalid_issuer", "The session token has the wrong issuer.") from exc
        except jwt.PyJWTError as exc:
            raise AuthError("invalid_token", "The session token is not valid.") from exc
        if self._parties:
            azp = payload.get("azp")
            if azp not in self._parties:
                raise AuthError(
                    "invalid_authorized_party", "The session token was issued to another origin."
                )
        claims = read_claims(payload)
        if claims.clerk_org_id is None:
            raise ForbiddenError("no_active_organization", "Select an organization first.")
        return claims
