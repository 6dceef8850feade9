"""`audit_logs` rows for successful tool writes (and for their undos, linked to the original),
saying which channel (agent or MCP) wrote them."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from psycopg.types.json import Jsonb

from spotter.tools.context import ToolContext
from spotter.tools.spec import ToolSpec


def resource_id_of(output: Any) -> str | None:
    if isinstance(output, dict) and output.get("id") is not None:
        return str(output["id"])
    return None


async def write_audit(
    ctx: ToolContext,
    spec: ToolSpec,
    output: Any,
    *,
    reverses_audit_log_id: UUID | None = None,
) -> UUID | None:
    if spec.audit is None or spec.side_effects != "write":
        return None
    if isinstance(output, dict) and output.get("saved") is False:
        # A write tool that answered without writing (workouts.parse before it may save).
        return None
    cur = await ctx.conn.execute(
        "INSERT INTO audit_logs (organization_id, actor_clerk_id, action, resource, resource_id,"
        " metadata, reverses_audit_log_id, channel) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
        " RETURNING id",
        (
            ctx.caller.org_id,
            ctx.caller.clerk_user_id,
            spec.audit.action_label,
            spec.audit.resource,
            resource_id_of(output),
            Jsonb({"agent": True, "tool": spec.name}),
            reverses_audit_log_id,
            ctx.channel,
        ),
    )
    row = await cur.fetchone()
    return row["id"] if row else None
