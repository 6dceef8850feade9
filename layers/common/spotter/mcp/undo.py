"""Undo an MCP-made write: its declared inverse, once, claimed in `ai_tool_undos` like the
agent's undo (the unique execution id is the claim), audit-linked to the original's row."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any
from uuid import UUID

from mcp_types import CallToolResult, TextContent
from psycopg.types.json import Jsonb

from spotter.agent.claims import CLAIM_TTL
from spotter.auth.caller import Caller
from spotter.db import Database
from spotter.mcp.calls import error_result
from spotter.tools.calls import ResolvedCall
from spotter.tools.context import ToolContext
from spotter.tools.errors import DomainError
from spotter.tools.registry import registry_for_caller
from spotter.tools.runner import execute, resolve_call


class _Fenced(Exception):
    """The undo's claim was taken over (it went stale): roll back."""


_CLAIM_SQL = """
INSERT INTO ai_tool_undos (organization_id, conversation_id, execution_id, router, action, input,
                           status, claimed_at)
VALUES (%(org)s, NULL, %(execution)s, %(router)s, %(action)s, %(input)s, 'running',
        clock_timestamp())
ON CONFLICT (execution_id) DO UPDATE
   SET status = 'running', claimed_at = clock_timestamp(), error = NULL, output = NULL,
       finished_at = NULL
 WHERE ai_tool_undos.status = 'failed'
    OR (ai_tool_undos.status = 'running' AND ai_tool_undos.claimed_at < clock_timestamp() - %(ttl)s)
RETURNING id, claimed_at
"""


async def undo_tool(
    db: Database, caller: Caller, arguments: dict[str, Any], *, now: datetime
) -> CallToolResult:
    try:
        execution_id = UUID(str(arguments.get("executionId")))
    except ValueError:
        return error_result("invalid_args", "executionId must be the id a write's result gave.")
    registry = registry_for_caller(caller)
    async with db.org_tx(caller.org_id) as conn:
        cur = await conn.execute(
            "SELECT id, router, action, status, output, audit_log_id FROM ai_tool_executions"
            " WHERE organization_id = %s AND id = %s AND channel = 'mcp' AND actor_user_id = %s",
            (caller.org_id, execution_id, caller.user_id),
        )
        row = await cur.fetchone()
        if row is None:
            return error_result("not_found", "No such call of yours.")
        spec = registry.get(row["router"], row["action"])
        if row["status"] != "succeeded" or spec is None or spec.inverse is None:
            return error_result(
                "undo_not_available", "Only a succeeded call with an inverse undoes."
            )
        try:
            args = spec.inverse.build_input(row["output"])
            call = resolve_call(
                registry, spec.inverse.router, {"action": spec.inverse.action, "args": args}
            )
        except DomainError:
            return error_result("undo_not_available", "This call's inverse cannot be built.")
        cur = await conn.execute(
            _CLAIM_SQL,
            {"org": caller.org_id, "execution": execution_id, "router": call.spec.router,
             "action": call.spec.action, "input": Jsonb(call.executable_input), "ttl": CLAIM_TTL},
        )  # fmt: skip
        claimed = await cur.fetchone()
    if claimed is None:
        return error_result("undo_already_done", "This call was already undone.")
    try:
        return await _run(db, caller, call, claimed, row["audit_log_id"], execution_id, now)
    except _Fenced:
        return error_result("undo_already_done", "This call was already undone.")


async def _run(
    db: Database, caller: Caller, call: ResolvedCall, claimed: dict[str, Any],
    reverses: UUID | None, execution_id: UUID, now: datetime,
) -> CallToolResult:  # fmt: skip
    """The inverse, its audit row and the undo row's status in ONE transaction."""
    async with db.org_tx(caller.org_id) as conn:
        outcome = await execute(
            ToolContext(caller, conn, now, channel="mcp"), call,
            reverses_audit_log_id=reverses,
        )  # fmt: skip
        cur = await conn.execute(
            "UPDATE ai_tool_undos SET status = %s, output = %s, error = %s, audit_log_id = %s,"
            " finished_at = clock_timestamp()"
            " WHERE id = %s AND organization_id = %s AND status = 'running' AND claimed_at = %s",
            (
                "succeeded" if outcome.ok else "failed",
                Jsonb(outcome.output) if outcome.ok else None,
                Jsonb(outcome.error) if outcome.error else None,
                outcome.audit_log_id,
                claimed["id"],
                caller.org_id,
                claimed["claimed_at"],
            ),
        )
        if cur.rowcount != 1:
            raise _Fenced
    if not outcome.ok:
        error = outcome.error or {}
        return error_result(str(error.get("code")), str(error.get("message")))
    body = {"undone": str(execution_id), "output": outcome.output}
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(body, ensure_ascii=False, default=str))],
        structured_content=body,
    )
