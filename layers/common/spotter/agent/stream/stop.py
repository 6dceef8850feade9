"""Stopping a conversation's live run, for everyone watching it, from any instance.

The request is written on the live run's row (`ai_live_runs.stop_requested_at`); the run reads
it with its next flush or heartbeat (within about a second) and ends as `run_stopped`. A run of
this process is stopped at once. Idempotent: stopping twice, or after the run ended, changes
nothing.
"""

from __future__ import annotations

from uuid import UUID

from spotter.agent.stream.follow import own_conversation
from spotter.agent.stream.log import LOCAL_RUNS
from spotter.auth.caller import Caller
from spotter.db import Database


async def request_stop(db: Database, caller: Caller, conversation_id: UUID) -> bool:
    """True when a run was live and is now asked to stop."""
    async with db.org_tx(caller.org_id) as conn:
        await own_conversation(conn, caller, conversation_id)
        cur = await conn.execute(
            "UPDATE ai_live_runs SET stop_requested_at = coalesce(stop_requested_at, now())"
            " WHERE conversation_id = %s AND organization_id = %s RETURNING run_id",
            (conversation_id, caller.org_id),
        )
        marked = await cur.fetchone() is not None
    local = LOCAL_RUNS.get(conversation_id)
    stopped_here = local is not None and local.request_stop()
    return marked or stopped_here
