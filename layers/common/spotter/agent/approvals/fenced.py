"""The one fenced executor: a claimed call's effect and the update that records its outcome,
in ONE transaction, the update fenced on the claim.

Resolution fences on `ai_tool_executions (status = running, claimed_at = its claim)`, undo on
its `ai_tool_undos` row the same way. When the fence no longer holds (the sweep closed a stale
claim, or another undo took it over), the transaction rolls back: a database-only effect and
its audit row vanish with it, so an executor that finishes late changes nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from uuid import UUID

from spotter.auth.caller import Caller
from spotter.db import Conn, Database
from spotter.domain.outbox import CallLink
from spotter.tools.calls import ResolvedCall, ToolOutcome
from spotter.tools.context import Channel, ToolContext
from spotter.tools.runner import execute

# Records the outcome if the claim still holds; False means the row was closed meanwhile.
RecordOutcome = Callable[[Conn, ToolOutcome], Awaitable[bool]]


class _Fenced(Exception):
    """The claim no longer holds the row: roll the transaction back."""


async def execute_fenced(
    db: Database,
    caller: Caller,
    now: datetime,
    call: ResolvedCall,
    record: RecordOutcome,
    *,
    reverses_audit_log_id: UUID | None = None,
    call_link: CallLink | None = None,
    channel: Channel = "agent",
) -> ToolOutcome | None:
    """The outcome, committed with its effect; None when fenced out (nothing was committed).
    `call_link` (the call's execution row) links any mail it queues (`ctx.outbox_link`)."""
    try:
        async with db.org_tx(caller.org_id) as conn:
            ctx = ToolContext(caller, conn, now, channel, call_link=call_link)
            outcome = await execute(ctx, call, reverses_audit_log_id=reverses_audit_log_id)
            if not await record(conn, outcome):
                raise _Fenced
    except _Fenced:
        return None
    return outcome
