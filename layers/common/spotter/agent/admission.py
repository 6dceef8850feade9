"""Whether the assistant may act for a caller now — checked before anything is written.

Two kill switches (`agent_kill_switches`: a row for one organization, or the row with no
organization for every one) refuse with `agent_disabled`; a send is also counted in the user's
window (`agent_sends`: at most `AGENT_SEND_LIMIT` in any `AGENT_SEND_WINDOW_SECONDS`), and one
over it is refused with `rate_limited` and when to try again. One pipelined transaction, one
round trip: the user's sends are serialized by a transaction lock, so concurrent sends are
counted exactly; the send is recorded only when both checks pass.

Confirmations, picks and undos answer a card the user already has: they meet the switches but
not the window (they are bounded by what is pending). Reading conversations and stopping a run
stay open, so a switch never strands a user mid-run.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from spotter.agent.errors import AgentDisabled, RateLimited
from spotter.auth.caller import Caller
from spotter.config import Settings
from spotter.db import Database

_SWITCHED_OFF = (
    "SELECT EXISTS (SELECT 1 FROM agent_kill_switches"
    " WHERE organization_id IS NULL OR organization_id = %(org)s) AS off"
)
_LOCK_SENDS = "SELECT pg_advisory_xact_lock(hashtextextended('agent-sends:' || %(user)s, 0))"
# The switches, then the window, in one statement: the send is inserted only when no switch is
# on and the window has room, and rows that left the window are deleted with it.
_ADMIT_SEND = (
    """
WITH switched AS ("""
    + _SWITCHED_OFF
    + """),
recent AS (
  SELECT count(*) AS sends, min(sent_at) AS oldest FROM agent_sends
   WHERE organization_id = %(org)s AND user_id = %(user)s AND sent_at > %(since)s),
admitted AS (
  INSERT INTO agent_sends (organization_id, user_id, sent_at)
  SELECT %(org)s, %(user)s, %(now)s FROM recent, switched
   WHERE NOT switched.off AND recent.sends < %(limit)s
  RETURNING 1),
pruned AS (
  DELETE FROM agent_sends
   WHERE organization_id = %(org)s AND user_id = %(user)s AND sent_at <= %(since)s
     AND EXISTS (SELECT 1 FROM admitted))
SELECT switched.off, recent.oldest, EXISTS (SELECT 1 FROM admitted) AS admitted
  FROM recent, switched
"""
)


async def admit_send(db: Database, settings: Settings, caller: Caller, now: datetime) -> None:
    """A new message: the switches, then the caller's send window; raises `AgentDisabled` or
    `RateLimited` (writing nothing), else records the send."""
    window = timedelta(seconds=settings.agent_send_window_seconds)
    params = {
        "org": caller.org_id,
        "user": str(caller.user_id),
        "now": now,
        "since": now - window,
        "limit": settings.agent_send_limit,
    }
    async with db.pipelined_tx(caller.org_id) as conn:
        await conn.execute(_LOCK_SENDS, params)
        cur = await conn.execute(_ADMIT_SEND, params)
        row = await cur.fetchone()
    assert row is not None
    if row["off"]:
        raise AgentDisabled()
    if not row["admitted"]:
        # room again when the oldest send in the window leaves it
        wait = (row["oldest"] + window - now).total_seconds()
        raise RateLimited(
            max(1, math.ceil(wait)), settings.agent_send_limit, settings.agent_send_window_seconds
        )


async def admit_action(db: Database, caller: Caller) -> None:
    """A confirmation, pick or undo: the switches only; raises `AgentDisabled`."""
    async with db.org_tx(caller.org_id) as conn:
        cur = await conn.execute(_SWITCHED_OFF, {"org": caller.org_id})
        row = await cur.fetchone()
    if row is not None and row["off"]:
        raise AgentDisabled()
