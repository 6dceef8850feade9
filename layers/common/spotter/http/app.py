"""The FastAPI app factory: one app serves every route, in dev, tests and Lambda alike."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Route

from spotter.auth import TokenVerifier
from spotter.config import Settings, get_settings
from spotter.db import Database
from spotter.db.errors import RETRY_AFTER_SECONDS, UNAVAILABLE_ERRORS
from spotter.db.server import app_pool_url
from spotter.errors import ErrorCode, SpotterError
from spotter.http.approval_routes import router as approvals_router
from spotter.http.cors import add_cors
from spotter.http.health import database_reachable
from spotter.http.locale import resolve_locale
from spotter.http.middleware import BodyLimitMiddleware, NulPathMiddleware, TraceIdMiddleware
from spotter.http.routes import gym as gym_router
from spotter.http.routes import router as reads_router
from spotter.i18n import error_message
from spotter.observability import current_trace_id, log_event
from spotter.providers.email import email_sender_for

if TYPE_CHECKING:
    from spotter.mcp.server import McpApp

CHAT_PATH = "/agent/chat"  # the AI SDK chat's POST: the SDK sends the whole chat each time


def _error_body(request: Request, code: str, detail: Any) -> dict[str, Any]:
    locale = resolve_locale(request.headers.get("x-locale"), request.headers.get("accept-language"))
    return {
        "code": code,
        "message": error_message(code, locale),
        "detail": detail,
        "traceId": current_trace_id(),
    }


async def _spotter_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, SpotterError)
    log_event("http.error", code=exc.code, status=exc.status, path=request.url.path)
    return JSONResponse(
        _error_body(request, exc.code, exc.message), status_code=exc.status, headers=exc.headers
    )


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    # Only where and why: the rejected input may be what the user typed.
    problems = [
        {"loc": [str(part) for part in err.get("loc", ())], "msg": err.get("msg", "")}
        for err in exc.errors()
    ]
    log_event("http.invalid_request", path=request.url.path, problems=len(problems))
    return JSONResponse(_error_body(request, "invalid_request", problems), status_code=400)


# The framework's own refusals (no route, wrong method, an unparseable body) in our shape.
_FRAMEWORK_CODES: dict[int, ErrorCode] = {
    400: "invalid_request",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
}


async def _framework_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code = _FRAMEWORK_CODES.get(exc.status_code, "invalid_request")
    log_event("http.error", code=code, status=exc.status_code, path=request.url.path)
    # The framework's detail can quote the body; only our own sentence goes back.
    return JSONResponse(
        _error_body(request, code, None),
        status_code=exc.status_code,
        headers=dict(exc.headers or {}),
    )


async def _database_unavailable(request: Request, exc: Exception) -> JSONResponse:
    log_event("http.error", code="service_unavailable", status=503, path=request.url.path)
    return JSONResponse(
        _error_body(request, "service_unavailable", None),
        status_code=503,
        headers={"retry-after": str(RETRY_AFTER_SECONDS)},
    )


def create_app(
    settings: Settings | None = None,
    *,
    db: Database | None = None,
    streaming: bool = True,
    mcp: bool = True,
    open_pool: bool = True,
) -> FastAPI:
    """Build the app. Pass `db` to share a pool (tests); otherwise the lifespan opens one.
    `streaming=False` leaves out the SSE routes and with them the model SDK (the reads Lambda);
    `mcp=False` leaves out the MCP server (`/mcp` and its OAuth metadata); `open_pool=False`
    leaves `app.state.db` to the caller (SnapStart opens it after restore, spotter.aws) and the
    lifespan only closes it."""
    settings = settings or get_settings()
    verifier = TokenVerifier(settings)
    mcp_app: McpApp | None = None

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            if mcp_app is not None:
                await stack.enter_async_context(mcp_app.session_manager.run())
            if db is not None:
                app.state.db = db
                yield
                return
            if not open_pool:
                try:
                    yield
                finally:
                    if getattr(app.state, "db", None) is not None:
                        await app.state.db.close()
                return
            app.state.db = await Database.open(
                app_pool_url(settings), max_size=settings.db_pool_max_size
            )
            try:
                yield
            finally:
                await app.state.db.close()

    # The schema and its viewer help in dev; in production they only describe the attack surface.
    documented = settings.environment != "production"
    app = FastAPI(
        title="Spotter",
        version="0.1.0",
        lifespan=lifespan,
        openapi_url="/openapi.json" if documented else None,
        docs_url="/docs" if documented else None,
        redoc_url="/redoc" if documented else None,
    )
    app.state.settings = settings
    app.state.verifier = verifier
    if db is not None:
        app.state.db = db
    app.add_exception_handler(SpotterError, _spotter_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _framework_error)
    for unavailable in UNAVAILABLE_ERRORS:
        app.add_exception_handler(unavailable, _database_unavailable)
    app.include_router(reads_router)
    app.include_router(gym_router)
    if streaming:
        from spotter.http.agent_routes import router as agent_router
        from spotter.http.chat_routes import router as chat_router

        app.include_router(agent_router)
        app.include_router(chat_router)
    # one sender per app: an approved outbound call delivers its mail right after it committed,
    # on every channel (the agent's confirm stream, an MCP approval)
    app.state.email_sender = email_sender_for(settings)
    if mcp:
        from spotter.mcp.server import MCP_PATH, build_mcp

        mcp_app = build_mcp(
            settings, verifier, lambda: app.state.db, lambda: app.state.email_sender
        )
        app.router.routes.extend(mcp_app.metadata_routes)
        for path in (MCP_PATH, MCP_PATH + "/{rest:path}"):  # toolsets, /mcp/o/{org}
            app.router.routes.append(Route(path, mcp_app.app, methods=["GET", "POST", "DELETE"]))
        app.state.mcp = mcp_app
    app.include_router(approvals_router)

    @app.get("/healthz")
    async def healthz(request: Request) -> JSONResponse:
        """Liveness (this process answers: always 200) and readiness beside it: whether the
        database answers (`?ready=1` turns an unreachable one into 503 + Retry-After)."""
        reachable = await database_reachable(request.app.state.db)
        body = {"status": "ok", "database": "reachable" if reachable else "unreachable"}
        if reachable or request.query_params.get("ready") != "1":
            return JSONResponse(body)
        return JSONResponse(
            {**body, "status": "unavailable"},
            status_code=503,
            headers={"retry-after": str(RETRY_AFTER_SECONDS)},
        )

    # Outermost first: the trace id exists before the body limit can refuse a request, and CORS
    # wraps everything, so a refusal is readable cross-origin.
    app.add_middleware(
        BodyLimitMiddleware,
        max_bytes=settings.max_body_bytes,
        per_path={CHAT_PATH: settings.chat_max_body_bytes},
    )
    app.add_middleware(NulPathMiddleware)
    app.add_middleware(TraceIdMiddleware)
    add_cors(app, settings)
    return app
