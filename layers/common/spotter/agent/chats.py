"""An AI SDK chat: the id a dashboard gives `useChat`, the conversation it names, and where the
chat's newest assistant message starts in the conversation's stream; and what is live in a
conversation (`live_now`: the one read behind the loader's `liveRun` and the chat's resume).

A chat id is the client's (`useChat({ id })`, any 1–128 of `[A-Za-z0-9_-]`). The first message
sent with it creates the conversation and binds the id to it (`ai_conversations.chat_id`, unique
across every org), so the id names that conversation of that org and that user only: another
user's, or another org's, is `not_found`. A conversation made elsewhere (the native API, the dev
console) is reached with its own id as the chat id.

One chat message of the assistant is a turn: everything from a user message to the next one —
the run that answered it and every resolution run that continued it (an approval, a pick). Its
id is the id of the run that answered the user message (`ai_messages.run_id` of the user row):
the live stream's `start`, the resumed stream's and the history's all name it, so the SDK
updates the message in place instead of adding another.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from uuid import UUID

from spotter.agent.errors import ConversationBusy
from spotter.agent.run_lease import LEASE_TTL
from spotter.auth.caller import Caller
from spotter.db import Conn, Database
from spotter.errors import NotFoundError, SpotterError

# what a chat id may be (the migration's CHECK says the same): it travels in URL paths
CHAT_ID = re.compile(r"^[A-Za-z0-9_-]{1,128}$")


def _as_uuid(chat_id: str) -> UUID | None:
    try:
        return UUID(chat_id)
    except ValueError:
        return None


async def find_chat(conn: Conn, caller: Caller, chat_id: str) -> UUID | None:
    """The caller's conversation `chat_id` names (bound to it, or its own id); None when it names
    none the caller can see, so its first message will bind it. Another user's is `not_found`."""
    own_id = _as_uuid(chat_id)
    cur = await conn.execute(
        "SELECT id, user_id = %s AS mine FROM ai_conversations"
        " WHERE organization_id = %s AND (chat_id = %s OR id = %s)",
        (caller.user_id, caller.org_id, chat_id, own_id),
    )
    rows = await cur.fetchall()
    if any(not row["mine"] for row in rows):
        raise NotFoundError("No such conversation.")
    # its own id first: an id bound as a chat id elsewhere never hides the caller's conversation
    rows.sort(key=lambda row: row["id"] != own_id)
    return rows[0]["id"] if rows else None


async def chat_taken(db: Database, caller: Caller, chat_id: str) -> SpotterError:
    """Why binding `chat_id` to a new conversation failed: the caller's own first message bound
    it a moment ago (a double submit: `conversation_busy`), or it is another org's (`not_found`)."""
    async with db.org_tx(caller.org_id) as conn:
        try:
            mine = await find_chat(conn, caller, chat_id)
        except NotFoundError as exc:
            return exc
    return ConversationBusy(None) if mine is not None else NotFoundError("No such conversation.")


@dataclass(frozen=True)
class Live:
    """The run a conversation's lease names while it is fresh, as both readers follow it: the
    native loader's `liveRun` (the run, from its first event) and the AI SDK chat's resume (the
    turn: every run since the newest user message — the one that answered it, then the
    resolutions that continued it —, from the first run's first event). A run that has not
    flushed its first events yet starts after everything stored."""

    run_id: UUID
    after: int  # the last event before the live run's first
    turn_run_id: UUID | None  # the run that answered the newest user message: the message's id
    turn_after: int  # the last event before that run's first


@dataclass(frozen=True)
class Turn:
    """The chat's newest assistant message while a run is live: the run that answered the newest
    user message (the message's id) and the last event before that run's first."""

    run_id: UUID
    after: int


# The one read of what is live in a conversation (the loader's `liveRun` and the chat's resume).
_LIVE_SQL = """
SELECT c.live_run_id, u.run_id AS turn_run_id,
       coalesce(e.live_first - 1, e.last_seq, 0) AS after,
       coalesce(e.turn_first - 1, e.last_seq, 0) AS turn_after
  FROM ai_conversations c
  LEFT JOIN LATERAL (
        SELECT m.run_id FROM ai_messages m
         WHERE m.conversation_id = c.id AND m.organization_id = c.organization_id
           AND m.role = 'user'
         ORDER BY m.ordinal DESC LIMIT 1) u ON true
  LEFT JOIN LATERAL (
        SELECT min(r.first_seq) FILTER (WHERE r.run_id = c.live_run_id) AS live_first,
               min(r.first_seq) FILTER (WHERE r.run_id = u.run_id) AS turn_first,
               max(r.last_seq) AS last_seq
          FROM ai_run_events r
         WHERE r.conversation_id = c.id AND r.organization_id = c.organization_id) e ON true
 WHERE c.id = %(id)s AND c.organization_id = %(org)s AND c.user_id = %(user)s
   AND c.live_run_id IS NOT NULL AND c.live_run_claimed_at >= clock_timestamp() - %(ttl)s
"""


async def live_now(conn: Conn, org_id: UUID, user_id: UUID, conversation_id: UUID) -> Live | None:
    """What is live in the user's conversation, or None when no run holds a fresh lease."""
    cur = await conn.execute(
        _LIVE_SQL, {"ttl": LEASE_TTL, "id": conversation_id, "org": org_id, "user": user_id}
    )
    row = await cur.fetchone()
    if row is None:
        return None
    return Live(row["live_run_id"], int(row["after"]), row["turn_run_id"], int(row["turn_after"]))


async def live_turn(conn: Conn, caller: Caller, conversation_id: UUID) -> Turn | None:
    """The turn a live run is writing (the chat's resume), or None when no run is live."""
    live = await live_now(conn, caller.org_id, caller.user_id, conversation_id)
    if live is None or live.turn_run_id is None:
        return None
    return Turn(live.turn_run_id, live.turn_after)


async def newest_turn_run(conn: Conn, caller: Caller, conversation_id: UUID) -> UUID | None:
    """The run that answered the newest user message: the id of the assistant message a
    resolution continues."""
    cur = await conn.execute(
        "SELECT run_id FROM ai_messages WHERE conversation_id = %s AND organization_id = %s"
        " AND role = 'user' ORDER BY ordinal DESC LIMIT 1",
        (conversation_id, caller.org_id),
    )
    row = await cur.fetchone()
    return row["run_id"] if row else None
