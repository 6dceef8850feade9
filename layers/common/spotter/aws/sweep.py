"""The scheduled sweep (EventBridge, every minute): close abandoned claims in every org — failed,
never re-run — and settle the messages that completes; close MCP calls whose question lapsed;
charge the budget holds of runs that are gone (estimates of calls whose usage never arrived).
Idempotent, and safe beside itself and live resolutions (see
`spotter.agent.approvals.settle.sweep`).

Settings, one event loop and a small pool are built on the first event (under SnapStart, after
the restore: `spotter.aws.snapstart`) and reused by every warm invocation of the container.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from spotter.agent.approvals import sweep
from spotter.aws.secrets import load_secrets
from spotter.aws.snapstart import open_database, reseed, warm_secrets_client
from spotter.config import get_settings
from spotter.db import Database
from spotter.domain.automation_runs import run_due
from spotter.domain.outbox import sweep_outbox
from spotter.observability import log_event
from spotter.providers.email import EmailSender, email_sender_for


class SweepHandler:
    """A Lambda handler: `handler = SweepHandler()` in the entry module."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.db: Database | None = None
        self.sender: EmailSender | None = None

    def __call__(self, event: dict[str, Any], context: Any) -> dict[str, int]:
        if self.loop is None or self.db is None or self.sender is None:
            self._start(restoring=False)
        assert self.loop is not None
        assert self.db is not None
        assert self.sender is not None
        report = self.loop.run_until_complete(sweep(self.db))
        # active automations queue what is due; then mail no request delivered (automations',
        # and a crash after commit) goes out, and interrupted sends become unknown
        automations = self.loop.run_until_complete(run_due(self.db, datetime.now(UTC)))
        delivered = self.loop.run_until_complete(sweep_outbox(self.db, self.sender))
        return {
            "orgs": report.orgs,
            "messagesClosed": report.messages_closed,
            "mcpExpired": report.mcp_expired,
            "holdsCharged": report.holds_charged,
            "automationEmailsQueued": automations.queued,
            "emailsDelivered": delivered,
        }

    def before_snapshot(self) -> None:
        """SnapStart: everything is imported with the entry module; nothing is opened."""
        warm_secrets_client()

    def after_restore(self) -> None:
        """SnapStart: this instance's own `random`, its secrets and pool (or on the first
        event, if the database cannot be reached now)."""
        reseed()
        try:
            self._start(restoring=True)
        except Exception as exc:
            log_event("snapstart.pool_deferred", level="warning", error=type(exc).__name__)

    def _start(self, *, restoring: bool) -> None:
        load_secrets()
        if self.loop is None:
            self.loop = asyncio.new_event_loop()
        settings = get_settings()
        self.db = self.loop.run_until_complete(open_database(settings, restoring=restoring))
        self.sender = email_sender_for(settings)

    def close(self) -> None:
        """Close the pool (Lambda never needs this; a test that built a handler does)."""
        if self.loop is not None and self.db is not None:
            self.loop.run_until_complete(self.db.close())
            self.loop.close()
        self.loop = self.db = None
