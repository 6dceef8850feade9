"""Elicitation answers handed over through Postgres (`mcp_elicitations`).

A 2025-11-25 client answers a server→client `elicitation/create` with a POST of its own, which
on Lambda may reach another instance than the one holding the tools/call stream. So the asking
instance records the question, the answering instance stores the answer (only for the session
that was asked, the call's owner, before the question lapses), and the asking instance polls for
it. Nothing lives in process memory; every statement on the table is here.
"""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta
from typing import Any
from uuid import UUID

from psycopg.types.json import Jsonb

from spotter.auth.caller import Caller
from spotter.db import Conn, Database

# The JSON-RPC id of our elicitation request: this prefix and the question's row id.
REQUEST_ID_PREFIX = "spotter-elicit-"
# How often the asking instance looks for the answer: quickly at first (a person answering a
# dialog takes seconds), then once a second.
_FIRST_POLLS, _FAST, _SLOW = 8, 0.25, 1.0


def request_id(elicitation_id: UUID) -> str:
    return f"{REQUEST_ID_PREFIX}{elicitation_id}"


def elicitation_of(request_id_value: Any) -> UUID | None:
    """The question a JSON-RPC response answers, if its id is one of ours."""
    if not isinstance(request_id_value, str) or not request_id_value.startswith(REQUEST_ID_PREFIX):
        return None
    try:
        return UUID(request_id_value.removeprefix(REQUEST_ID_PREFIX))
    except ValueError:
        return None


async def ask(
    conn: Conn, caller: Caller, execution_id: UUID, session: str, expires_in: timedelta
) -> UUID:
    """Record the question about one pending call, asked in one session (its hash)."""
    cur = await conn.execute(
        "INSERT INTO mcp_elicitations"
        " (organization_id, execution_id, actor_user_id, session_hash, expires_at)"
        " VALUES (%s, %s, %s, %s, clock_timestamp() + %s) RETURNING id",
        (caller.org_id, execution_id, caller.user_id, session, expires_in),
    )
    row = await cur.fetchone()
    assert row is not None
    return UUID(str(row["id"]))


async def store_answer(
    db: Database, caller: Caller, session: str, elicitation_id: UUID, answer: dict[str, Any]
) -> bool:
    """Store the answer, once, if the question is the caller's, was asked in this session and is
    still open. False: nothing matched (foreign, forged, late or already answered)."""
    async with db.org_tx(caller.org_id) as conn:
        cur = await conn.execute(
            "UPDATE mcp_elicitations SET answer = %s, answered_at = clock_timestamp()"
            " WHERE id = %s AND organization_id = %s AND actor_user_id = %s"
            " AND session_hash = %s AND answer IS NULL AND expires_at > clock_timestamp()",
            (Jsonb(answer), elicitation_id, caller.org_id, caller.user_id, session),
        )
        return cur.rowcount == 1


async def _answer(db: Database, org_id: UUID, elicitation_id: UUID) -> dict[str, Any] | None:
    async with db.org_tx(org_id) as conn:
        cur = await conn.execute(
            "SELECT answer FROM mcp_elicitations WHERE id = %s AND organization_id = %s",
            (elicitation_id, org_id),
        )
        row = await cur.fetchone()
    answer = row["answer"] if row else None
    return answer if isinstance(answer, dict) else None


async def await_answer(
    db: Database, org_id: UUID, elicitation_id: UUID, wait: timedelta
) -> dict[str, Any] | None:
    """The answer once it arrives (from any instance), or None when `wait` runs out."""
    deadline = time.monotonic() + wait.total_seconds()
    polls = 0
    while True:
        answer = await _answer(db, org_id, elicitation_id)
        if answer is not None:
            return answer
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        polls += 1
        await asyncio.sleep(min(left, _FAST if polls <= _FIRST_POLLS else _SLOW))
