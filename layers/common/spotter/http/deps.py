"""Request dependencies: the database, the locale, and the authenticated caller."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from fastapi import Depends, Request

from spotter.auth import Caller, TokenVerifier, resolve_caller
from spotter.config import Settings
from spotter.db import Database
from spotter.errors import AuthError, ForbiddenError
from spotter.http.locale import resolve_locale
from spotter.i18n import Locale

if TYPE_CHECKING:
    # The model SDK is a second of cold start: only the streaming routes pay for it.
    from spotter.agent.state import AgentDeps


# `async def` though they await nothing: FastAPI runs a plain `def` dependency in its thread
# pool, a thread hop per request for a dictionary lookup (tens of µs of CPU each, more under load)
async def get_db(request: Request) -> Database:
    db: Database = request.app.state.db
    return db


async def get_locale(request: Request) -> Locale:
    return resolve_locale(request.headers.get("x-locale"), request.headers.get("accept-language"))


def _bearer(request: Request) -> str:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise AuthError("missing_token", "Send `Authorization: Bearer <Clerk session token>`.")
    return token.strip()


async def get_caller(
    request: Request,
    db: Annotated[Database, Depends(get_db)],
    locale: Annotated[Locale, Depends(get_locale)],
) -> Caller:
    verifier: TokenVerifier = request.app.state.verifier
    claims = await verifier.verify(_bearer(request))
    return await resolve_caller(db, claims, locale)


async def get_staff_caller(caller: Annotated[Caller, Depends(get_caller)]) -> Caller:
    if not caller.is_staff:
        raise ForbiddenError("staff_only", "Spotter is available to staff only.")
    return caller


def get_agent_deps(request: Request, db: Annotated[Database, Depends(get_db)]) -> AgentDeps:
    """The run's dependencies, built once per process (tests put their own on app.state)."""
    from spotter.agent.state import AgentDeps
    from spotter.providers.anthropic import build_client
    from spotter.providers.embeddings import embedder_for

    deps: AgentDeps | None = getattr(request.app.state, "agent_deps", None)
    if deps is None:
        settings: Settings = request.app.state.settings
        deps = AgentDeps(
            db=db,
            client=build_client(settings),
            settings=settings,
            embedder=embedder_for(settings),
            email_sender=request.app.state.email_sender,
        )
        request.app.state.agent_deps = deps
    return deps


AnyCaller = Annotated[Caller, Depends(get_caller)]
StaffCaller = Annotated[Caller, Depends(get_staff_caller)]
Db = Annotated[Database, Depends(get_db)]
