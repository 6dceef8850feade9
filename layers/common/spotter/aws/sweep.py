"""The scheduled sweep (EventBridge, every minute): close abandoned claims in every org — failed,
never re-run — and settle the messages that completes. Idempotent, and safe beside itself and
live resolutions (see `spotter.agent.approvals.settle.sweep`).

Settings, one event loop and a small pool are built on the first event and reused by every warm
invocation of the container.
"""

from __future__ import annotations

import asyncio
from typing import Any

from spotter.agent.approvals import sweep
from spotter.aws.secrets import load_secrets
from spotter.config import get_settings
from spotter.db import Database


class SweepHandler:
    """A Lambda handler: `handler = SweepHandler()` in the entry module."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.db: Database | None = None

    def __call__(self, event: dict[str, Any], context: Any) -> dict[str, int]:
        if self.loop is None or self.db is None:
            load_secrets()
            self.loop = asyncio.new_event_loop()
            url = get_settings().app_pool_url()
            self.db = self.loop.run_until_complete(Database.open(url, max_size=2))
        report = self.loop.run_until_complete(sweep(self.db))
        return {"orgs": report.orgs, "messagesClosed": report.messages_closed}

    def close(self) -> None:
        """Close the pool (Lambda never needs this; a test that built a handler does)."""
        if self.loop is not None and self.db is not None:
            self.loop.run_until_complete(self.db.close())
            self.loop.close()
        self.loop = self.db = None
