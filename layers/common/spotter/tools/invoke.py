"""Entry points that open their own org transaction: one call, or one confirmation preview."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from spotter.auth.caller import Caller
from spotter.db import Database
from spotter.tools.calls import ToolOutcome
from spotter.tools.cards import Confirmation
from spotter.tools.context import ToolContext
from spotter.tools.errors import TOOL_REFUSALS, tool_error
from spotter.tools.previews import build_confirmation
from spotter.tools.registry import registry_for_caller
from spotter.tools.runner import execute, resolve_call


async def invoke_tool(
    db: Database, caller: Caller, router: str, raw_input: Any, *, now: datetime | None = None
) -> ToolOutcome:
    """Resolve and run one call in its own transaction (committed only if it succeeded)."""
    try:
        call = resolve_call(registry_for_caller(caller), router, raw_input)
    except TOOL_REFUSALS as exc:
        return ToolOutcome.failed(tool_error(exc))
    async with db.org_tx(caller.org_id) as conn:
        return await execute(ToolContext(caller, conn, now or datetime.now(UTC)), call)


async def preview_tool(
    db: Database, caller: Caller, router: str, raw_input: Any, *, now: datetime | None = None
) -> Confirmation:
    """The confirmation card for a call; raises a refusal (`tools.errors.Refusal`) when the call
    cannot be shown."""
    call = resolve_call(registry_for_caller(caller), router, raw_input)
    async with db.org_tx(caller.org_id) as conn:
        return await build_confirmation(ToolContext(caller, conn, now or datetime.now(UTC)), call)
