"""The MCP undo tool: the agent's undo (`agent.approvals.undo`) for an MCP-made write, named by
its execution id — claimed once in `ai_tool_undos`, the inverse audit-linked to the original."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any
from uuid import UUID

from mcp_types import CallToolResult, TextContent

from spotter.agent.approvals.undo import apply_undo, claim_execution_undo
from spotter.auth.caller import Caller
from spotter.db import Database
from spotter.errors import SpotterError
from spotter.mcp.results import error_result, outcome_error
from spotter.tools.registry import registry_for_caller


async def undo_tool(
    db: Database, caller: Caller, arguments: dict[str, Any], *, now: datetime
) -> CallToolResult:
    try:
        execution_id = UUID(str(arguments.get("executionId")))
    except ValueError:
        return error_result("invalid_args", "executionId must be the id a write's result gave.")
    try:
        claimed = await claim_execution_undo(db, registry_for_caller(caller), caller, execution_id)
    except SpotterError as exc:  # not_found, undo_not_available, undo_already_done
        return error_result(exc.code, exc.message)
    outcome = await apply_undo(db, caller, claimed, now, channel="mcp")
    if outcome is None:
        return error_result("undo_already_done", "This call was already undone.")
    if not outcome.ok:
        return outcome_error(outcome.error)
    body = {"undone": str(execution_id), "output": outcome.output}
    text = json.dumps(body, ensure_ascii=False, default=str)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=body)
