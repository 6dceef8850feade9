"""Reading a conversation's stream from anywhere: replay what a client missed, then follow the
live run until its `done`.

Any instance serves it: the events are in `ai_run_events`, the live run is the conversation's
lease (`agent.run_lease`: `live_run_id`, refreshed by the run's appends, model calls, flushes
and heartbeats).
Short polling rather than LISTEN/NOTIFY: a LISTEN pins its connection (RDS Proxy cannot
multiplex it, and a pooled Lambda connection cannot hold it between polls). A poll is ONE
statement (`spotter_stream_poll`: the org bound for its own implicit transaction, liveness and
the batches after the client's id from one snapshot), no BEGIN/COMMIT, and holds a backend only
for that statement. It polls every `POLL_MIN_SECONDS` while events flow and backs off (doubling
up to `POLL_MAX_SECONDS`) once the run has been silent longer than its log's flush interval (a
long tool, a slow first token), so an idle follower costs one statement every two seconds
(docs/performance.md, "Followers").
The rule: replay every event after `after`; then, while a run is live, keep reading; once no
run is live (its final batch and the end of its liveness commit together, so the poll that
finds it not live also has its `done`), end. A reconnect after `done` therefore replays to
`done` and ends; a live run whose process vanished (its lease older than `LEASE_TTL`) is not
followed forever.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from uuid import UUID

from spotter.agent.run_lease import LEASE_TTL
from spotter.agent.stream.log import FLUSH_SECONDS, Recorded
from spotter.auth.caller import Caller
from spotter.db import Conn, Database
from spotter.errors import NotFoundError

POLL_MIN_SECONDS = 0.25
POLL_MAX_SECONDS = 2.0
_GRACE_POLLS = round(FLUSH_SECONDS / POLL_MIN_SECONDS)
_POLL = "SELECT live, batches FROM spotter_stream_poll(%s, %s, %s, %s)"


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
    rows = await db.one_statement(_POLL, (org_id, conversation_id, after, LEASE_TTL))
    live, batches = bool(rows[0]["live"]), rows[0]["batches"]
    return live, [
        Recorded(int(seq), data) for events in batches for seq, data in events if seq > after
    ]


def next_pause(silent_polls: int) -> float:
    """The wait before the next poll, after `silent_polls` polls in a row found nothing new:
    the shortest while events flow and for a flush interval of silence (a live run's log writes
    its events every `FLUSH_SECONDS`), then doubling up to `POLL_MAX_SECONDS`."""
    doublings = max(0, silent_polls - _GRACE_POLLS)
    return min(POLL_MAX_SECONDS, POLL_MIN_SECONDS * float(2**doublings))


async def follow(
    db: Database, caller: Caller, conversation_id: UUID, after: int = 0
) -> AsyncIterator[Recorded]:
    """Every event after `after`, once each, in order; ends when no run is live."""
    last, silent_polls = after, 0
    while True:
        live, found = await _read(db, caller.org_id, conversation_id, last)
        silent_polls += 1
        for recorded in found:
            assert recorded.seq is not None
            if recorded.seq > last:
                last, silent_polls = recorded.seq, 0
                yield recorded
        if not live:
            return
        await asyncio.sleep(next_pause(silent_polls))
