"""After an outbound call committed: deliver the mail it queued, and say what was delivered.

The same on every channel: the mail is found by the call's execution row (`outbox.CallLink`),
not by a conversation. The call's execution row (and the outbox rows with it) committed first,
so a crash here leaves queued or sending rows that the sweep delivers or marks
`outcome_unknown` — never re-sent. The stored output is updated with the delivery, since the
tool_result turn (or the MCP answer) is built from it after.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from spotter.agent.executions import record_delivery
from spotter.db import Database
from spotter.db.scope import OrgScope
from spotter.domain import outbox
from spotter.providers.email import EmailSender


async def deliver_call(
    db: Database, org_id: UUID, sender: EmailSender, execution_id: UUID, output: Any
) -> Any:
    """Deliver what the call queued; its output with the delivery (stored and returned)."""
    async with db.org_tx(org_id) as conn:
        ids = await outbox.ids_for_execution(OrgScope(conn, org_id), execution_id)
    if not ids:
        return output
    await outbox.deliver(db, org_id, sender, ids)
    async with db.org_tx(org_id) as conn:
        delivered = await outbox.statuses(OrgScope(conn, org_id), ids)
        updated = outbox.with_delivery(output, delivered)
        await record_delivery(conn, org_id, execution_id, updated)
    return updated
