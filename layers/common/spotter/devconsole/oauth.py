"""`spotter dev`'s stand-in for Clerk as the OAuth authorization server, so a real MCP client
(the Inspector, Claude Code, Cursor, the SDKs) signs in to the dev server the way it signs in to
production: the 401 names the protected-resource metadata, which names this server; the client
registers, authorizes with PKCE S256 (a page where you pick a demo user) and gets an RFC 9068
access token for the MCP resource.

Stateless, like the rest of Spotter: the authorization code and the refresh token are short-lived
JWTs signed with the local dev key, so nothing lives in process memory. The access token is
signed with the same key the dev server trusts for Clerk and is verified by the production code
path (`spotter.auth.oauth`). `spotter dev` points `CLERK_OAUTH_ISSUER` here; without that, the
metadata still answers but the tokens are refused (another issuer is trusted). Dev only: the
console app that mounts it refuses ENVIRONMENT=production.
"""

from __future__ import annotations

import base64
import hashlib
import html
import secrets
import time
from typing import Any
from urllib.parse import urlencode, urlsplit

import jwt
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from spotter.auth.devkeys import ensure_dev_key, public_pem
from spotter.auth.oauth import SCOPES
from spotter.config import Settings
from spotter.seed.day_grain import DAY_GRAIN_CLERK_ORG_ID, DAY_GRAIN_STAFF
from spotter.seed.demo import DEMO_CLERK_ORG_ID, DEMO_STAFF

CODE_TTL_SECONDS = 120
ACCESS_TTL_SECONDS = 3600
REFRESH_TTL_SECONDS = 12 * 3600
_CODE_AUDIENCE = "spotter-dev-oauth-code"
_REFRESH_AUDIENCE = "spotter-dev-oauth-refresh"

# Who may sign in: (clerk user id, clerk org id, label).
PEOPLE: tuple[tuple[str, str, str], ...] = (
    *((p.clerk_user_id, DEMO_CLERK_ORG_ID, f"{p.full_name} ({p.role})") for p in DEMO_STAFF),
    *(
        (p.clerk_user_id, DAY_GRAIN_CLERK_ORG_ID, f"{p.full_name} ({p.role}, day-grain gym)")
        for p in DAY_GRAIN_STAFF
    ),
)

router = APIRouter(include_in_schema=False)


def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def _issuer(request: Request) -> str:
    """The issuer the dev server trusts (`spotter dev` sets it to its own origin), so a client
    that reached it as `localhost` still gets tokens the verifier accepts."""
    return _settings(request).clerk_oauth_issuer or str(request.base_url).rstrip("/")


def _sign(settings: Settings, claims: dict[str, Any], typ: str = "JWT") -> str:
    key = ensure_dev_key(settings.data_dir)
    return jwt.encode(claims, key, algorithm="RS256", headers={"kid": "spotter-dev", "typ": typ})


def _read(settings: Settings, token: str, audience: str, issuer: str) -> dict[str, Any] | None:
    key = public_pem(ensure_dev_key(settings.data_dir))
    try:
        claims: dict[str, Any] = jwt.decode(
            token, key, algorithms=["RS256"], audience=audience, issuer=issuer
        )
    except jwt.PyJWTError:
        return None
    return claims


def _granted(asked: str | None) -> str:
    """The Spotter scopes asked for (both when none is named); others are dropped."""
    wanted = [s for s in (asked or "").split() if s in SCOPES]
    return " ".join(wanted or SCOPES)


def _error(error: str, description: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": error, "error_description": description}, status_code=status)


@router.get("/.well-known/oauth-authorization-server")
async def metadata(request: Request) -> dict[str, Any]:
    issuer = _issuer(request)
    return {
        "issuer": issuer,
        "authorization_endpoint": f"{issuer}/oauth/authorize",
        "token_endpoint": f"{issuer}/oauth/token",
        "registration_endpoint": f"{issuer}/oauth/register",
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
        "scopes_supported": list(SCOPES),
        "client_id_metadata_document_supported": True,
    }


@router.post("/oauth/register")
async def register(request: Request) -> JSONResponse:
    """Dynamic client registration (RFC 7591): every public client is welcome in dev."""
    try:
        body = await request.json()
    except ValueError:
        return _error("invalid_client_metadata", "The body is not JSON.")
    if not isinstance(body, dict) or not body.get("redirect_uris"):
        return _error("invalid_redirect_uri", "Name at least one redirect URI.")
    return JSONResponse(
        {
            **body,
            "client_id": "dev_client_" + secrets.token_hex(8),
            "client_id_issued_at": int(time.time()),
            "token_endpoint_auth_method": "none",
        },
        status_code=201,
    )


def _authorize_problem(params: dict[str, str]) -> str | None:
    if params.get("response_type") != "code":
        return "response_type must be code."
    if params.get("code_challenge_method") != "S256" or not params.get("code_challenge"):
        return "PKCE with S256 is required (code_challenge, code_challenge_method=S256)."
    if not params.get("client_id"):
        return "client_id is missing."
    if not urlsplit(params.get("redirect_uri", "")).scheme:
        return "redirect_uri is missing or not absolute."
    return None


_PARAMS = (
    "response_type", "client_id", "redirect_uri", "code_challenge", "code_challenge_method",
    "scope", "state", "resource",
)  # fmt: skip


@router.get("/oauth/authorize")
async def authorize_page(request: Request) -> Response:
    """The sign-in page: pick the demo user the client acts for."""
    params = {k: v for k, v in request.query_params.items() if k in _PARAMS}
    problem = _authorize_problem(params)
    if problem is not None:
        return HTMLResponse(f"<p>{html.escape(problem)}</p>", status_code=400)
    hidden = "".join(
        f'<input type="hidden" name="{k}" value="{html.escape(v, quote=True)}">'
        for k, v in params.items()
    )
    buttons = "".join(
        f'<button name="user" value="{html.escape(user)}">{html.escape(label)}</button>'
        for user, _org, label in PEOPLE
    )
    client = html.escape(params["client_id"])
    page = (
        '<!doctype html><html><head><meta charset="utf-8"><title>Sign in to Spotter (dev)</title>'
        '<link rel="stylesheet" href="/console.css"></head><body class="oauth">'
        "<main><h1>Sign in to Spotter (dev)</h1>"
        f"<p>An MCP client (<code>{client}</code>) asks for <code>"
        f"{html.escape(_granted(params.get('scope')))}</code>. Sign in as:</p>"
        f'<form method="post" action="/oauth/authorize">{hidden}{buttons}</form>'
        "<p>Dev only: this stands in for Clerk's sign-in and consent.</p></main></body></html>"
    )
    return HTMLResponse(page)


@router.post("/oauth/authorize")
async def authorize(request: Request) -> Response:
    form = await request.form()
    params = {k: str(v) for k, v in form.items() if k in _PARAMS}
    problem = _authorize_problem(params)
    person = next((p for p in PEOPLE if p[0] == form.get("user")), None)
    if problem is not None or person is None:
        return HTMLResponse(f"<p>{html.escape(problem or 'Pick a user.')}</p>", status_code=400)
    now = int(time.time())
    code = _sign(
        _settings(request),
        {
            "iss": _issuer(request), "aud": _CODE_AUDIENCE, "iat": now,
            "exp": now + CODE_TTL_SECONDS, "sub": person[0], "org": person[1],
            "client_id": params["client_id"], "redirect_uri": params["redirect_uri"],
            "challenge": params["code_challenge"], "scope": _granted(params.get("scope")),
            "resource": params.get("resource", ""),
        },
    )  # fmt: skip
    redirect = params["redirect_uri"]
    joiner = "&" if urlsplit(redirect).query else "?"
    query = urlencode({"code": code, **({"state": params["state"]} if "state" in params else {})})
    return RedirectResponse(f"{redirect}{joiner}{query}", status_code=302)


def _resource(settings: Settings, request: Request, asked: str) -> str:
    return asked or settings.mcp_resource_url or f"{_issuer(request)}/mcp"


def _tokens(settings: Settings, request: Request, grant: dict[str, Any]) -> JSONResponse:
    now, issuer = int(time.time()), _issuer(request)
    access = _sign(
        settings,
        {
            "iss": issuer, "sub": grant["sub"], "org_id": grant["org"],
            "aud": _resource(settings, request, grant["resource"]), "scope": grant["scope"],
            "client_id": grant["client_id"], "iat": now, "nbf": now - 5,
            "exp": now + ACCESS_TTL_SECONDS, "jti": secrets.token_hex(8),
        },
        typ="at+jwt",
    )  # fmt: skip
    refresh = _sign(
        settings,
        {
            "iss": issuer, "aud": _REFRESH_AUDIENCE, "iat": now, "exp": now + REFRESH_TTL_SECONDS,
            **{k: grant[k] for k in ("sub", "org", "client_id", "scope", "resource")},
        },
    )  # fmt: skip
    return JSONResponse(
        {
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": ACCESS_TTL_SECONDS,
            "scope": grant["scope"],
            "refresh_token": refresh,
        },
        headers={"cache-control": "no-store"},
    )


def _pkce_ok(verifier: str, challenge: str) -> bool:
    digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode()
    return secrets.compare_digest(digest.rstrip("="), challenge)


@router.post("/oauth/token")
async def token(request: Request) -> JSONResponse:
    settings, issuer = _settings(request), _issuer(request)
    form = {k: str(v) for k, v in (await request.form()).items()}
    match form.get("grant_type"):
        case "authorization_code":
            grant = _read(settings, form.get("code", ""), _CODE_AUDIENCE, issuer)
            if (
                grant is None
                or grant["redirect_uri"] != form.get("redirect_uri")
                or grant["client_id"] != form.get("client_id", grant["client_id"])
                or not _pkce_ok(form.get("code_verifier", ""), grant["challenge"])
            ):
                return _error("invalid_grant", "The code is unknown, expired or not yours.")
            if form.get("resource"):
                grant["resource"] = form["resource"]
            return _tokens(settings, request, grant)
        case "refresh_token":
            grant = _read(settings, form.get("refresh_token", ""), _REFRESH_AUDIENCE, issuer)
            if grant is None:
                return _error("invalid_grant", "The refresh token is unknown or expired.")
            return _tokens(settings, request, grant)
        case _:
            return _error("unsupported_grant_type", "Use authorization_code or refresh_token.")
