"""After an outbound call committed: deliver the mail it queued, and say what was delivered.

The call's execution row (and the outbox rows with it) committed first, so a crash here leaves
queued or sending rows that the sweep delivers or marks `outcome_unknown` — never re-sent. The
result the model reads is updated with the delivery, since the tool_result turn is settled after.
"""

from __future__ import annotations

from typing import Any

from psycopg.types.json import Jsonb

from spotter.agent.state import RunState
from spotter.db.scope import OrgScope
from spotter.domain import outbox


async def deliver_call(state: RunState, tool_use_id: str, output: Any) -> Any:
    """Deliver what `tool_use_id` queued; its output with the delivery (stored and returned)."""
    db, org_id = state.deps.db, state.caller.org_id
    assert state.conversation_id is not None
    link = outbox.CallLink(state.conversation_id, tool_use_id)
    async with db.org_tx(org_id) as conn:
        ids = await outbox.ids_for_call(OrgScope(conn, org_id), link)
    if not ids:
        return output
    await outbox.deliver(db, org_id, state.deps.email_sender, ids)
    async with db.org_tx(org_id) as conn:
        delivered = await outbox.statuses(OrgScope(conn, org_id), ids)
        updated = outbox.with_delivery(output, delivered)
        await conn.execute(
            "UPDATE ai_tool_executions SET output = %s WHERE organization_id = %s"
            " AND conversation_id = %s AND tool_use_id = %s AND status = 'succeeded'",
            (Jsonb(updated), org_id, state.conversation_id, tool_use_id),
        )
    return updated
