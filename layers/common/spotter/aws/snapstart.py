"""Lambda SnapStart: init runs once, when a version is published, and every new instance of that
version restores a snapshot of its memory (docs/deploy.md, "SnapStart"). So:

- before the snapshot (`warm_*`, the handlers' `before_snapshot`): import what a request needs,
  build the app, build every role × flag's tool definitions, warm the validators and the JSON
  encoder. No connection is opened and no secret that can rotate is read: a connection in the
  snapshot is dead on restore, and a secret read then would be served by every instance for
  the version's life.
- after each restore (`reseed`, then the handler's `after_restore`): reseed `random`, whose
  state is part of the snapshot (uuid4 and `secrets` read the kernel's generator, which Lambda
  reseeds on restore), read the secrets and open the pool. Lambda allows the restore 10 s: the
  pool gets `RESTORE_OPEN_SECONDS`, and if the database is not there by then the first request
  opens it, as without SnapStart (and answers 503 while it is down).

Plain handlers (reads, sweep) register with `snapshot_restore_py`, which the Lambda runtime
provides; the functions behind the Web Adapter (streaming, MCP) run as a separate process, so
the adapter relays the two moments as POSTs to `AWS_LWA_SNAPSTART_*_PATH` (`LifecycleApp`).
"""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import Awaitable, Callable
from typing import Any

from spotter.config import Settings
from spotter.db import Database
from spotter.db.server import app_pool_url
from spotter.observability import log_event

# Lambda's restore limit is 10 s; the secrets' round trip comes first.
RESTORE_OPEN_SECONDS = 4.0
BEFORE_PATH_ENV = "AWS_LWA_SNAPSTART_BEFORE_CHECKPOINT_PATH"
AFTER_PATH_ENV = "AWS_LWA_SNAPSTART_AFTER_RESTORE_PATH"

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


def snapstart_init() -> bool:
    """This init is the one a snapshot will be taken of (Lambda sets the variable)."""
    return os.environ.get("AWS_LAMBDA_INITIALIZATION_TYPE") == "snap-start"


def reseed() -> None:
    """Give this instance its own `random` state (seeded from the kernel, not the snapshot)."""
    random.seed()


def register(before: Callable[[], None], after: Callable[[], None]) -> bool:
    """Register a plain handler's hooks with the runtime; False outside Lambda's runtime (the
    library is the runtime's, never shipped in a layer, where it would shadow the real one)."""
    try:
        from snapshot_restore_py import register_after_restore, register_before_snapshot
    except ImportError:
        return False
    register_before_snapshot(before)
    register_after_restore(after)
    return True


def warm_secrets_client() -> None:
    """Import what `load_secrets` will use after restore (boto3 is a few hundred ms of it)."""
    from aws_lambda_powertools.utilities import parameters  # noqa: F401


def warm_tools() -> None:
    """Build every surface's tool definitions (read from the layer's prebuilt bytes)."""
    from spotter.tools import prebuilt
    from spotter.tools.registry import registry_for

    for surface in prebuilt.surfaces():
        registry = registry_for(*surface)
        _ = registry.definitions_json, registry.quick_definitions_json


async def open_database(settings: Settings, *, restoring: bool) -> Database:
    bound = {"open_seconds": RESTORE_OPEN_SECONDS} if restoring else {}
    return await Database.open(app_pool_url(settings), max_size=settings.db_pool_max_size, **bound)


async def connect(app: Any, *, restoring: bool) -> Database:
    """Read the secrets (those not read yet) and open the app's pool with them."""
    from spotter.aws.secrets import load_secrets
    from spotter.config import get_settings

    await asyncio.to_thread(load_secrets)
    settings = get_settings()
    app.state.settings = settings  # the run's deps (model key, embedder) are built from these
    return await open_database(settings, restoring=restoring)


class LifecycleApp:
    """The Web Adapter's side of SnapStart, around an app whose pool is not opened at startup.

    The adapter POSTs the before path once the app is ready (before the snapshot) and the after
    path once restored (before any traffic); it refuses both to outside callers, and so does
    this class beyond their one expected call each. A request that finds no pool (the restore
    could not open it) opens it first.
    """

    def __init__(
        self, app: Any, *, warm: Callable[[], None], warm_request: tuple[str, bytes] | None = None
    ) -> None:
        self.app = app
        self._warm = warm
        # (path, JSON body) of a POST sent through the app with no credentials before the
        # snapshot: it is refused (401) before any database use, having built the route's
        # matching and dependencies, the body validation, the error handler and the response.
        self._warm_request = warm_request
        self._lock = asyncio.Lock()
        self.before_path = os.environ.get(BEFORE_PATH_ENV)
        self.after_path = os.environ.get(AFTER_PATH_ENV)
        self.phase = "init"  # → "snapshot" (warmed) → "restored"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        if path in (self.before_path, self.after_path) and scope["method"] == "POST":
            await self._hook(path, send)
            return
        if path != "/healthz" and getattr(self.app.state, "db", None) is None:
            await self.open_pool(restoring=False)
        await self.app(scope, receive, send)

    async def before_snapshot(self) -> None:
        self._warm()
        # the worker thread sync dependencies run on, started now rather than by a user
        import anyio.to_thread

        await anyio.to_thread.run_sync(lambda: None)
        if self._warm_request is not None:
            await self._refused(*self._warm_request)
        self.phase = "snapshot"

    async def _refused(self, path: str, body: bytes) -> None:
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
            "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
            "root_path": "",
            "headers": [(b"host", b"127.0.0.1:8080"), (b"content-type", b"application/json")],
            "client": ("127.0.0.1", 0), "server": ("127.0.0.1", 8080), "state": {},
        }  # fmt: skip
        self.app.state.db = None  # nothing reaches it: the missing credentials are refused first
        try:
            await self.app(scope, receive, send)
        finally:
            del self.app.state.db
        status = next(m["status"] for m in sent if m["type"] == "http.response.start")
        if status != 401:
            raise RuntimeError(f"the warm-up request was answered {status}, not 401")

    async def after_restore(self) -> None:
        reseed()
        self.phase = "restored"
        try:
            await self.open_pool(restoring=True)
        except Exception as exc:  # the first request tries again, and answers 503 if it must
            log_event("snapstart.pool_deferred", level="warning", error=type(exc).__name__)

    async def open_pool(self, *, restoring: bool) -> None:
        async with self._lock:
            if getattr(self.app.state, "db", None) is None:
                self.app.state.db = await connect(self.app, restoring=restoring)

    async def _hook(self, path: str, send: Send) -> None:
        if path == self.before_path and self.phase == "init":
            await self.before_snapshot()
            status = 200
        elif path == self.after_path and self.phase == "snapshot":
            await self.after_restore()
            status = 200
        else:  # not the adapter's one call: nothing to see
            status = 404
        await send({"type": "http.response.start", "status": status, "headers": []})
        await send({"type": "http.response.body", "body": b""})
