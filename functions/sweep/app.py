"""Scheduled sweep (EventBridge, every minute): close abandoned claims in every org — failed,
never re-run — and settle the messages that completes. Idempotent, and safe beside itself and
live resolutions (see `spotter.agent.settle.sweep`).

Thin on purpose: settings, an event loop and a small pool are built once per container and
reused by every warm invocation.
"""

from __future__ import annotations

import asyncio
from typing import Any

from spotter.agent.settle import sweep
from spotter.config import get_settings
from spotter.db import Database


class _Container:
    def __init__(self) -> None:
        settings = get_settings()
        url = settings.app_database_url or settings.database_url
        if not url:
            raise RuntimeError("DATABASE_URL (or APP_DATABASE_URL) is not set")
        # one loop for the container's life: the pool's connections belong to it
        self.loop = asyncio.new_event_loop()
        self.db = self.loop.run_until_complete(Database.open(url, max_size=2))


_container: _Container | None = None


def handler(event: dict[str, Any], context: Any) -> dict[str, int]:
    global _container
    if _container is None:
        _container = _Container()
    report = _container.loop.run_until_complete(sweep(_container.db))
    return {"orgs": report.orgs, "messagesClosed": report.messages_closed}
