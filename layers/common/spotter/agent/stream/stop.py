"""Stopping a conversation's live run, for everyone watching it, from any instance.

The request names the live run (the lease's `live_run_id`) in `stop_requested_run_id`; the
run reads it with its next flush or heartbeat (within about a second) and ends as
`run_stopped`. A run of this process is stopped at once. Idempotent: stopping twice, or after
the run ended, changes nothing.
"""

from __future__ import annotations

from uuid import UUID

from spotter.agent.run_lease import LEASE_TTL
from spotter.agent.stream.follow import own_conversation
from spotter.agent.stream.log import LOCAL_RUNS
from spotter.auth.caller import Caller
from spotter.db import Database


async def request_stop(db: Database, caller: Caller, conversation_id: UUID) -> bool:
    """True when a run was live and is now asked to stop."""
    async with db.org_tx(caller.org_id) as conn:
        await own_conversation(conn, caller, conversation_id)
        cur = await conn.execute(
            "UPDATE ai_conversations SET stop_requested_run_id = live_run_id"
            " WHERE id = %s AND organization_id = %s AND live_run_id IS NOT NULL"
            " AND live_run_claimed_at >= clock_timestamp() - %s RETURNING live_run_id",
            (conversation_id, caller.org_id, LEASE_TTL),
        )
        marked = await cur.fetchone() is not None
    local = LOCAL_RUNS.get(conversation_id)
    stopped_here = local is not None and local.request_stop()
    return marked or stopped_here
