"""Reading a conversation's stream from anywhere: replay what a client missed, then follow the
live run until its `done`.

Any instance serves it: the events are in `ai_run_events`, the live run is the conversation's
lease (`agent.run_lease`: `live_run_id`, refreshed by the run's appends, model calls, flushes
and heartbeats).
Short polling (`POLL_SECONDS`) rather than LISTEN/NOTIFY: a LISTEN pins its connection (RDS
Proxy cannot multiplex it, and a pooled Lambda connection cannot hold it between polls), while a
poll is one indexed read of the batches after the client's id. The rule: replay every event
after `after`; then, while a run is live, keep reading; once no run is live (its final batch and
the end of its liveness commit together), read once more and end. A reconnect after `done`
therefore replays to `done` and ends; a live run whose process vanished (its lease older than
`LEASE_TTL`) is not followed forever.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from uuid import UUID

from spotter.agent.run_lease import LEASE_TTL
from spotter.agent.stream.log import Recorded
from spotter.auth.caller import Caller
from spotter.db import Conn, Database
from spotter.errors import NotFoundError

POLL_SECONDS = 0.25


async def own_conversation(conn: Conn, caller: Caller, conversation_id: UUID) -> None:
    cur = await conn.execute(
        "SELECT 1 FROM ai_conversations WHERE id = %s AND organization_id = %s AND user_id = %s",
        (conversation_id, caller.org_id, caller.user_id),
    )
    if await cur.fetchone() is None:
        raise NotFoundError("No such conversation.")


async def check_can_follow(db: Database, caller: Caller, conversation_id: UUID) -> None:
    """Before the stream starts, so a foreign or missing conversation is a plain 404."""
    async with db.org_tx(caller.org_id) as conn:
        await own_conversation(conn, caller, conversation_id)


async def _read(
    db: Database, org_id: UUID, conversation_id: UUID, after: int
) -> tuple[bool, list[Recorded]]:
    async with db.org_tx(org_id) as conn:
        # liveness first: a run found not live has already committed its final batch
        cur = await conn.execute(
            "SELECT 1 FROM ai_conversations WHERE id = %s AND organization_id = %s"
            " AND live_run_claimed_at >= clock_timestamp() - %s",
            (conversation_id, org_id, LEASE_TTL),
        )
        live = await cur.fetchone() is not None
        cur = await conn.execute(
            "SELECT events FROM ai_run_events WHERE conversation_id = %s"
            " AND organization_id = %s AND last_seq > %s ORDER BY first_seq",
            (conversation_id, org_id, after),
        )
        rows = await cur.fetchall()
    return live, [
        Recorded(int(seq), data) for row in rows for seq, data in row["events"] if seq > after
    ]


async def follow(
    db: Database, caller: Caller, conversation_id: UUID, after: int = 0
) -> AsyncIterator[Recorded]:
    """Every event after `after`, once each, in order; ends when no run is live."""
    last = after
    while True:
        live, found = await _read(db, caller.org_id, conversation_id, last)
        for recorded in found:
            assert recorded.seq is not None
            if recorded.seq > last:
                last = recorded.seq
                yield recorded
        if not live:
            return
        await asyncio.sleep(POLL_SECONDS)
