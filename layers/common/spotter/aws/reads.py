"""The buffered JSON reads (conversations, conversation, usage) behind Mangum.

Mangum's `lifespan="auto"` runs the ASGI lifespan around every event: the app's lifespan would
open and close a connection pool per invocation. So lifespan is off, and the pool is opened on
the first event (or, under SnapStart, after the restore), on the one event loop every event of
this container runs on, and then kept for the container's life (Lambda freezes it between
events; the pool's health checks revive it). The app itself is built before any of that: at
init, which SnapStart snapshots (`spotter.aws.snapstart`).
"""

from __future__ import annotations

import asyncio
from typing import Any

from mangum import Mangum

from spotter.aws.secrets import load_secrets
from spotter.aws.snapstart import open_database, reseed, warm_secrets_client
from spotter.config import Settings, get_settings
from spotter.db import Database
from spotter.http.app import create_app
from spotter.observability import log_event


class BufferedHandler:
    """A Lambda handler: `handler = BufferedHandler()` in the entry module."""

    def __init__(self, settings: Settings | None = None) -> None:
        # Settings given (tests) means the environment is already complete: no secrets to read.
        self._settings = settings
        self._loop: asyncio.AbstractEventLoop | None = None
        self._mangum: Mangum | None = None
        self.app: Any = None
        self.db: Database | None = None

    def __call__(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        loop, mangum = self._build()
        if self.db is None:
            self._open(restoring=False)
        # Mangum runs each event on the current loop: make sure it is the pool's.
        asyncio.set_event_loop(loop)
        response: dict[str, Any] = mangum(event, context)
        return response

    def before_snapshot(self) -> None:
        """SnapStart: the app and its loop built, the secrets client imported; nothing opened."""
        self._build()
        warm_secrets_client()
        import spotter.mcp.approval_page  # noqa: F401 (its routes import it on first use)

    def after_restore(self) -> None:
        """SnapStart: this instance's own `random`, its secrets, its pool (or, if the database
        cannot be reached now, on the first event)."""
        reseed()
        try:
            self._open(restoring=True)
        except Exception as exc:
            log_event("snapstart.pool_deferred", level="warning", error=type(exc).__name__)

    def close(self) -> None:
        """Close the pool (Lambda never needs this; a test or tool that built a handler does)."""
        if self._loop is not None:
            if self.db is not None:
                self._loop.run_until_complete(self.db.close())
            self._loop.close()
            # Leave no closed loop behind as the thread's current one.
            asyncio.set_event_loop(None)
        self._loop = self._mangum = self.app = self.db = None

    def _build(self) -> tuple[asyncio.AbstractEventLoop, Mangum]:
        if self._loop is None or self._mangum is None:
            self._loop = asyncio.new_event_loop()
            asyncio.set_event_loop(self._loop)
            # Built from the environment alone: the secrets (the database URL) come with the pool.
            self.app = create_app(
                self._settings or get_settings(), streaming=False, mcp=False, open_pool=False
            )
            self._mangum = Mangum(self.app, lifespan="off")
        return self._loop, self._mangum

    def _open(self, *, restoring: bool) -> None:
        loop, _ = self._build()
        if self._settings is None:
            load_secrets()
        settings = self._settings or get_settings()
        # A failure leaves no pool: the next event starts over (the database may be back).
        self.db = loop.run_until_complete(open_database(settings, restoring=restoring))
        self.app.state.db = self.db
        self.app.state.settings = settings
