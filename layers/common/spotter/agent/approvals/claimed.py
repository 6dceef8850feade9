"""A claimed call, run from its stored input — the same for every channel (a dashboard confirm,
a held sibling, an approval given over MCP).

The stored input is validated again (a call that no longer resolves fails without running);
the effect, its audit row and the row's status commit in ONE transaction fenced on the claim
(`approvals.fenced`); once that committed, the mail the call queued is delivered and the
delivery written into its output (`approvals.outbound`), before the caller answers. Only the
channel recorded on the audit row differs.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Protocol

from spotter.agent.approvals.fenced import execute_fenced
from spotter.agent.approvals.outbound import deliver_call
from spotter.agent.executions import Claim, finish_claimed, finish_decided
from spotter.auth.caller import Caller
from spotter.db import Conn, Database
from spotter.domain.outbox import CallLink
from spotter.providers.email import EmailSender
from spotter.tools.calls import ToolOutcome
from spotter.tools.context import Channel
from spotter.tools.errors import TOOL_REFUSALS, tool_error
from spotter.tools.registry import ToolRegistry
from spotter.tools.runner import resolve_call
from spotter.tools.spec import ToolSpec


class ClaimedCall(Protocol):
    """A stored call as it is run: its tool, stored input and link (its execution row)."""

    @property
    def router(self) -> str: ...
    @property
    def input(self) -> dict[str, Any]: ...
    @property
    def link(self) -> CallLink: ...


@dataclass(frozen=True)
class ClaimedRun:
    spec: ToolSpec | None  # None: the stored input no longer resolves; it failed, nothing ran
    outcome: ToolOutcome


async def run_claimed(
    db: Database,
    caller: Caller,
    now: datetime,
    registry: ToolRegistry,
    call: ClaimedCall,
    claim: Claim,
    *,
    sender: EmailSender,
    channel: Channel = "agent",
) -> ClaimedRun | None:
    """The call's outcome, committed (and delivered); None when its row was closed meanwhile
    (the sweep closed a stale claim: nothing was committed)."""
    org_id = caller.org_id
    try:
        resolved = resolve_call(registry, call.router, call.input)
    except TOOL_REFUSALS as exc:
        failed = ToolOutcome.failed(tool_error(exc))
        return ClaimedRun(None, failed) if await finish_decided(db, org_id, claim, failed) else None

    async def record(conn: Conn, outcome: ToolOutcome) -> bool:
        return await finish_claimed(conn, org_id, claim, outcome)

    outcome = await execute_fenced(
        db, caller, now, resolved, record, call_link=call.link, channel=channel
    )
    if outcome is None:
        return None
    if outcome.ok and resolved.spec.external_effects:
        # committed: now deliver what it queued, and say what was delivered
        delivered = await deliver_call(db, org_id, sender, call.link.execution_id, outcome.output)
        outcome = replace(outcome, output=delivered)
    return ClaimedRun(resolved.spec, outcome)
