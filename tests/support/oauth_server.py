"""A local stand-in for Clerk as an OAuth authorization server, enough for a real MCP client's
whole chain: RFC 8414 metadata, dynamic client registration (RFC 7591), the authorization
endpoint (PKCE S256 required; the signed-in user consents at once), the token endpoint (the
resource indicator of RFC 8707 becomes the token's audience), and Clerk's opaque-token
verification endpoint with revocation. JWT access tokens are RFC 9068 (`typ: at+jwt`), signed
with the key the app under test trusts for Clerk, as Clerk signs its OAuth JWTs with the
instance's keys."""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from tests.support.tokens import TokenFactory

SECRET_KEY = "sk_test_standin"


@dataclass
class AuthorizationServer:
    tokens: TokenFactory
    clerk_user_id: str
    issuer: str = "http://127.0.0.1"  # set to the served URL
    opaque: bool = False  # issue opaque tokens (verified by the endpoint) instead of JWTs
    scope: str | None = None  # what it grants (None: what was asked)
    codes: dict[str, dict[str, Any]] = field(default_factory=dict)
    opaque_tokens: dict[str, dict[str, Any]] = field(default_factory=dict)
    issued: list[dict[str, Any]] = field(default_factory=list)

    def access_token(self, *, audience: str, scope: str, client_id: str, **over: Any) -> str:
        now = int(time.time())
        claims = {
            "iss": self.issuer, "sub": self.clerk_user_id, "aud": audience, "scope": scope,
            "client_id": client_id, "iat": now, "nbf": now - 1, "exp": now + 600,
            "jti": secrets.token_hex(8), **over,
        }  # fmt: skip
        return self.tokens.sign(claims, headers={"typ": "at+jwt"})

    def opaque_token(self, *, scope: str, client_id: str) -> str:
        token = "oat_" + secrets.token_urlsafe(24)
        self.opaque_tokens[token] = {
            "subject": self.clerk_user_id, "scopes": scope.split(), "client_id": client_id,
            "revoked": False, "expired": False,
        }  # fmt: skip
        return token

    def revoke(self, token: str) -> None:
        self.opaque_tokens[token]["revoked"] = True

    # ---- the endpoints ----------------------------------------------------------------------

    async def metadata(self, _request: Request) -> Response:
        return JSONResponse({
            "issuer": self.issuer,
            "authorization_endpoint": f"{self.issuer}/authorize",
            "token_endpoint": f"{self.issuer}/token",
            "registration_endpoint": f"{self.issuer}/register",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none"],
            "scopes_supported": ["spotter:read", "spotter:write"],
        })  # fmt: skip

    async def register(self, request: Request) -> Response:
        body = await request.json()
        client_id = "client_" + secrets.token_hex(6)
        return JSONResponse({**body, "client_id": client_id, "token_endpoint_auth_method": "none",
                             "client_id_issued_at": int(time.time())}, status_code=201)  # fmt: skip

    async def authorize(self, request: Request) -> Response:
        q = request.query_params
        if q.get("code_challenge_method") != "S256" or not q.get("code_challenge"):
            return JSONResponse({"error": "invalid_request"}, status_code=400)
        code = secrets.token_urlsafe(16)
        self.codes[code] = dict(q)
        redirect = f"{q['redirect_uri']}?{urlencode({'code': code, 'state': q.get('state', '')})}"
        return RedirectResponse(redirect, status_code=302)

    async def token(self, request: Request) -> Response:
        form = await request.form()
        grant = self.codes.pop(str(form.get("code")), None)
        verifier = str(form.get("code_verifier", ""))
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
        if grant is None or challenge.decode().rstrip("=") != grant["code_challenge"]:
            return JSONResponse({"error": "invalid_grant"}, status_code=400)
        scope = self.scope or grant.get("scope") or ""
        resource = str(form.get("resource") or grant.get("resource") or "")
        client_id = grant["client_id"]
        self.issued.append({"resource": resource, "scope": scope, "client_id": client_id})
        access = (
            self.opaque_token(scope=scope, client_id=client_id)
            if self.opaque
            else self.access_token(audience=resource, scope=scope, client_id=client_id)
        )
        return JSONResponse(
            {"access_token": access, "token_type": "Bearer", "expires_in": 600, "scope": scope}
        )

    async def verify(self, request: Request) -> Response:
        """Clerk's `POST /oauth_applications/access_tokens/verify`, called with the secret key."""
        if request.headers.get("authorization") != f"Bearer {SECRET_KEY}":
            return JSONResponse({"errors": [{"code": "unauthorized"}]}, status_code=401)
        body = await request.json()
        known = self.opaque_tokens.get(str(body.get("access_token")))
        if known is None:
            return JSONResponse({"errors": [{"code": "not_found"}]}, status_code=404)
        return JSONResponse({"object": "clerk_idp_oauth_access_token", **known})

    def app(self) -> Starlette:
        return Starlette(routes=[
            Route("/.well-known/oauth-authorization-server", self.metadata),
            Route("/register", self.register, methods=["POST"]),
            Route("/authorize", self.authorize),
            Route("/token", self.token, methods=["POST"]),
            Route("/oauth_applications/access_tokens/verify", self.verify, methods=["POST"]),
        ])  # fmt: skip
