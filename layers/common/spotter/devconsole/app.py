"""`spotter dev`'s app: the API, plus the console at `/` and the demo users' token endpoint.

No login form: the console asks `POST /dev/token` for a session token of a demo user, minted
with the local dev key (`.spotter/dev-jwt-key.pem`) that the dev server trusts as CLERK_JWT_KEY.
Every API call then goes through the same verification as production. MCP clients sign in
through `devconsole.oauth`, the dev stand-in for Clerk as their authorization server. The app
refuses to be built with ENVIRONMENT=production.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel

from spotter.auth.devkeys import ensure_dev_key, mint_token
from spotter.config import Settings, get_settings
from spotter.db import Database
from spotter.devconsole import oauth
from spotter.errors import ForbiddenError, SpotterError
from spotter.http.app import create_app
from spotter.http.deps import AnyCaller, StaffCaller
from spotter.providers.anthropic import provider_configured, uses_demo_model
from spotter.seed.demo import DEMO_CLERK_ORG_ID, DEMO_STAFF, reset_demo
from spotter.tools.registry import registry_for, registry_for_caller

STATIC_DIR = Path(__file__).parent / "static"
DemoRole = Literal["owner", "admin", "coach", "member"]
TOKEN_TTL_SECONDS = 12 * 3600


class TokenBody(BaseModel):
    role: DemoRole


class DevConsoleRefused(RuntimeError):
    """The console and its token endpoint never run in production."""


def model_label(settings: Settings) -> dict[str, Any]:
    if uses_demo_model(settings):
        return {"kind": "demo", "offline": True}
    if provider_configured(settings):
        return {"kind": settings.model_provider, "offline": False}
    return {"kind": "none", "offline": True}


def _routers() -> list[str]:
    """Every router an owner's tools include: the console shows a page only when its router
    exists (the leads board appears once a `leads` router does)."""
    return sorted({spec.router for spec in registry_for("owner", False, True).specs})


router = APIRouter(prefix="/dev", include_in_schema=False)


@router.get("/info")
async def info(request: Request) -> dict[str, Any]:
    settings: Settings = request.app.state.settings
    return {
        "model": model_label(settings),
        "users": [
            {"role": p.role, "userId": p.clerk_user_id, "name": p.full_name} for p in DEMO_STAFF
        ],
        "routers": _routers(),
    }


@router.post("/token")
async def token(request: Request, body: TokenBody) -> dict[str, Any]:
    settings: Settings = request.app.state.settings
    person = next(p for p in DEMO_STAFF if p.role == body.role)
    key = ensure_dev_key(settings.data_dir)
    minted = mint_token(
        key,
        clerk_user_id=person.clerk_user_id,
        clerk_org_id=DEMO_CLERK_ORG_ID,
        ttl_seconds=TOKEN_TTL_SECONDS,
    )
    return {"token": minted, "role": person.role, "name": person.full_name}


@router.get("/abilities")
async def abilities(caller: AnyCaller) -> dict[str, Any]:
    """What the signed-in demo user may ask Spotter for: their role's actions (`router.action`),
    as the registry gives the model its tools. The console offers only the suggested prompts
    these cover (a member: none)."""
    actions = sorted(spec.name for spec in registry_for_caller(caller).specs)
    return {"role": caller.role, "actions": actions}


@router.post("/reset-demo")
async def reset(request: Request, caller: StaffCaller) -> dict[str, Any]:
    """`make reset-demo` from the console: the demo gyms back as a first seed leaves them today.
    The owner's button (the same command a developer runs)."""
    if caller.role != "owner":
        raise ForbiddenError("staff_only", "Only the demo gym's owner resets it.")
    settings: Settings = request.app.state.settings
    if not settings.database_url:
        raise SpotterError("service_unavailable", "No database to reset.", status=503)
    await reset_demo(settings.database_url)
    return {"reset": True}


# The dashboard's approval page of a pending MCP call (the URL an MCP client without
# elicitation is given): its own static page beside the console, the same login.
approvals_page = APIRouter(include_in_schema=False)


@approvals_page.get("/approvals/{execution_id}")
async def approval_page(execution_id: str) -> FileResponse:
    return FileResponse(STATIC_DIR / "approvals.html", media_type="text/html")


def create_dev_app(settings: Settings | None = None, *, db: Database | None = None) -> FastAPI:
    settings = settings or get_settings()
    if settings.environment == "production":
        raise DevConsoleRefused("the dev console is refused when ENVIRONMENT=production")
    app = create_app(settings, db=db)
    app.include_router(router)
    app.include_router(approvals_page)
    app.include_router(oauth.router)  # MCP clients sign in here (stands in for Clerk)
    # last: a mount at "/" would shadow every route added after it
    app.mount("/", StaticFiles(directory=STATIC_DIR, html=True), name="console")
    return app
