"""The buffered JSON reads (conversations, conversation, usage) behind Mangum.

Mangum's `lifespan="auto"` runs the ASGI lifespan around every event: the app's lifespan would
open and close a connection pool per invocation. So lifespan is off, and the pool is opened on
the first event, on the one event loop every event of this container runs on, and then kept for
the container's life (Lambda freezes it between events; the pool's health checks revive it).
"""

from __future__ import annotations

import asyncio
from typing import Any

from mangum import Mangum

from spotter.aws.secrets import load_secrets
from spotter.config import Settings, get_settings
from spotter.db import Database
from spotter.db.server import app_pool_url
from spotter.http.app import create_app


class BufferedHandler:
    """A Lambda handler: `handler = BufferedHandler()` in the entry module."""

    def __init__(self, settings: Settings | None = None) -> None:
        # Settings given (tests) means the environment is already complete: no secrets to read.
        self._settings = settings
        self._loop: asyncio.AbstractEventLoop | None = None
        self._mangum: Mangum | None = None
        self.db: Database | None = None

    def __call__(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        if self._loop is None or self._mangum is None:
            self._loop, self._mangum = self._start()
        # Mangum runs each event on the current loop: make sure it is the pool's.
        asyncio.set_event_loop(self._loop)
        response: dict[str, Any] = self._mangum(event, context)
        return response

    def close(self) -> None:
        """Close the pool (Lambda never needs this; a test or tool that built a handler does)."""
        if self._loop is not None and self.db is not None:
            self._loop.run_until_complete(self.db.close())
            self._loop.close()
            # Leave no closed loop behind as the thread's current one.
            asyncio.set_event_loop(None)
        self._loop = self._mangum = self.db = None

    def _start(self) -> tuple[asyncio.AbstractEventLoop, Mangum]:
        if self._settings is None:
            load_secrets()
        settings = self._settings or get_settings()
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        try:
            self.db = loop.run_until_complete(
                Database.open(app_pool_url(settings), max_size=settings.db_pool_max_size)
            )
        except BaseException:
            # The next event starts over (the database may be back by then).
            loop.close()
            asyncio.set_event_loop(None)
            raise
        return loop, Mangum(
            create_app(settings, db=self.db, streaming=False, mcp=False), lifespan="off"
        )
