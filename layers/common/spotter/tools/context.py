"""What every tool handler and preview receives first: who, where, when, and the transaction."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from typing import Literal
from zoneinfo import ZoneInfo

from spotter.auth.caller import Caller
from spotter.db import Conn
from spotter.db.scope import OrgScope
from spotter.domain.outbox import CallLink

# Who asked: the dashboard's agent, or an MCP client. Audit rows and execution rows record it,
# and a few arguments are accepted from one channel only (workouts' source text and scores).
Channel = Literal["agent", "mcp"]


@dataclass(frozen=True)
class ToolContext:
    caller: Caller
    conn: Conn
    now: datetime  # timezone-aware UTC: the run's one clock
    channel: Channel = "agent"
    # the claimed call being run, when there is one: outbound mail is linked to it (outbox)
    call_link: CallLink | None = None

    @cached_property
    def scope(self) -> OrgScope:
        """The org-scoped connection domain functions take first."""
        return OrgScope(self.conn, self.caller.org_id)

    @property
    def outbox_link(self) -> CallLink | None:
        """What `outbox.enqueue(..., link=)` takes: the call's delivery finds its mail by it."""
        return self.call_link

    @cached_property
    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.caller.org_timezone)

    @property
    def local_now(self) -> datetime:
        return self.now.astimezone(self.tz)
