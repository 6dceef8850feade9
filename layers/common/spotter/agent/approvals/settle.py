"""Settling a message: once every call of an assistant message has a final status, its results
go back to the model as ONE tool_result turn, in the message's tool order.

A new user message answers the tail message first (`answer_for_new_message`): what may not run
any more is closed, and the results its rows recorded are appended. Also the abandoned-claim
sweep: close stale running rows (never re-run them) and settle the messages that thereby became
complete, so the conversation replays validly afterwards.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any
from uuid import UUID

from psycopg.types.json import Jsonb

from spotter.agent.cost.abandoned import charge_abandoned_holds, orgs_with_abandoned_holds
from spotter.agent.executions import (
    StoredResult,
    close_abandoned,
    close_expired_mcp,
    close_superseded,
    message_results,
    orgs_with_abandoned_claims,
    orgs_with_expired_mcp_calls,
    settled_results,
)
from spotter.agent.transcript import INTERRUPTED, StoredMessage, append_message, tool_result_block
from spotter.db import Conn, Database
from spotter.db.scope import OrgScope
from spotter.domain import outbox
from spotter.observability import log_event

if TYPE_CHECKING:
    # a type only: the sweep function imports this module without a run
    from spotter.agent.state import RunState
EDITED_NOTE = (
    "The user edited this call's arguments before approving it; it ran with these arguments,"
    " not the ones you proposed."
)


async def settle_message(conn: Conn, org_id: UUID, message_id: UUID) -> bool:
    """Append the merged tool_result turn if the message is complete and has none yet."""
    # Lock the message first, then read its calls in a NEW statement: under READ COMMITTED a
    # statement that waited for the lock would still read the calls as of before the wait, and
    # two settlers (a resolution and the sweep) could each see the other's call unfinished.
    cur = await conn.execute(
        "SELECT conversation_id, run_id FROM ai_messages"
        " WHERE id = %s AND organization_id = %s FOR UPDATE",
        (message_id, org_id),
    )
    message = await cur.fetchone()
    if message is None:
        return False
    results = await message_results(conn, org_id, message_id)
    if results is None:
        return False
    conversation_id, run_id = message["conversation_id"], message["run_id"]
    first_id = results[0].tool_use_id
    cur = await conn.execute(
        "SELECT 1 FROM ai_messages WHERE organization_id = %s AND conversation_id = %s"
        " AND role = 'tool_result' AND content @> %s",
        (org_id, conversation_id, Jsonb([{"tool_use_id": first_id}])),
    )
    if await cur.fetchone() is not None:
        return False
    results = await with_delivery_now(conn, org_id, results)
    blocks = [tool_result_block(r.tool_use_id, r.ok, _told(r)) for r in results]
    await append_message(
        conn, org_id, conversation_id, run_id=run_id, role="tool_result", content=blocks
    )
    return True


async def with_delivery_now(
    conn: Conn, org_id: UUID, results: Sequence[StoredResult]
) -> list[StoredResult]:
    """Outbound calls' results with their mail's delivery as its rows say now: a call whose
    delivery was cut off (the process died during the provider call) stored `queued`, and its
    rows have since ended `outcome_unknown` (or been delivered by the sweep). What the model
    reads is the rows' final state, never what the output said before delivery."""
    outbound = [
        r for r in results
        if r.ok and r.execution_id is not None and isinstance(r.payload, dict)
        and "delivery" in r.payload
    ]  # fmt: skip
    if not outbound:
        return list(results)
    ids = [r.execution_id for r in outbound if r.execution_id is not None]
    rows = await outbox.deliveries_by_execution(OrgScope(conn, org_id), ids)
    return [
        replace(r, payload=outbox.with_delivery(r.payload, rows[r.execution_id]))
        if r.execution_id in rows and r in outbound
        else r
        for r in results
    ]


def _told(result: StoredResult) -> Any:
    """What the model reads of a call: its output or error, and when the user edited the
    arguments, that they did and the arguments that really ran."""
    if not result.edited_by_user:
        return result.payload
    edited = {"note": EDITED_NOTE, "arguments": result.input.get("args", {})}
    return {"editedByUser": edited, "result": result.payload}


async def close_and_settle(conn: Conn, org_id: UUID, *, message_id: UUID | None = None) -> int:
    """Close abandoned claims (of one message, or the org's) and settle what they completed."""
    closed = await close_abandoned(conn, org_id, message_id=message_id)
    for closed_message in closed:
        await settle_message(conn, org_id, closed_message)
    return len(closed)


async def close_for_new_message(conn: Conn, org_id: UUID, message_id: UUID) -> None:
    """Before a new user turn answers the tail message: its stale claims are closed, and every
    call still pending (an approval or pick the user typed past, a held sibling) is closed as
    `superseded`, so it can never run later. A call running under a live claim is left alone
    (its result is recorded on its row; the turn appended now says it has none)."""
    await close_abandoned(conn, org_id, message_id=message_id)
    await close_superseded(conn, org_id, message_id)


async def answer_for_new_message(
    conn: Conn, state: RunState, stored: list[StoredMessage]
) -> list[StoredMessage]:
    """The last assistant turn has no results — a suspended run the user typed past, or a run
    cut off between its calls and their results: close what may not run any more
    (`close_for_new_message`), then append the results its execution rows recorded (or an
    `interrupted` error), so the stored history is valid from here on — appended, never
    rewritten. The one way a message is answered before a new user turn."""
    if not stored or stored[-1].role != "assistant":
        return []
    ids = [b["id"] for b in stored[-1].content if b.get("type") == "tool_use"]
    if not ids:
        return []
    await close_for_new_message(conn, state.caller.org_id, stored[-1].id)
    known = await settled_results(conn, state.caller.org_id, state.conversation_id, ids)
    refreshed = await with_delivery_now(conn, state.caller.org_id, list(known.values()))
    known = {r.tool_use_id: r for r in refreshed}
    content = [
        tool_result_block(tid, known[tid].ok, known[tid].payload)
        if tid in known
        else tool_result_block(tid, False, INTERRUPTED.as_json())
        for tid in ids
    ]
    state.telemetry.emit(
        "agent.replay.repaired_tail", orphans=len(ids), recovered=len(known), **state.ids
    )
    appended = await append_message(
        conn, state.caller.org_id, state.conversation_id, run_id=state.run_id,
        role="tool_result", content=content,
    )  # fmt: skip
    return [
        StoredMessage(appended.id, appended.ordinal, "tool_result", content, None, state.run_id)
    ]


@dataclass(frozen=True)
class SweepReport:
    orgs: int
    messages_closed: int
    mcp_expired: int = 0  # MCP calls whose question lapsed, closed `expired`
    holds_charged: int = 0  # holds of runs that are gone, charged as estimates (`cost.abandoned`)


async def sweep(db: Database) -> SweepReport:
    """Idempotent, and safe beside itself and live resolutions: every close is a conditional
    update on a stale claim (or on a still-pending lapsed MCP question), every settle locks the
    message row first, every charge deletes the hold it charges (a live run's never)."""
    orgs = await orgs_with_abandoned_claims(db)
    closed = 0
    for org_id in orgs:
        async with db.org_tx(org_id) as conn:
            closed += await close_and_settle(conn, org_id)
    expired = 0
    for org_id in await orgs_with_expired_mcp_calls(db):
        async with db.org_tx(org_id) as conn:
            expired += await close_expired_mcp(conn, org_id)
    charged = 0
    for org_id in await orgs_with_abandoned_holds(db):
        async with db.org_tx(org_id) as conn:
            charged += await charge_abandoned_holds(conn, org_id)
    log_event(
        "sweep.done", orgs=len(orgs), messages_closed=closed, mcp_expired=expired,
        holds_charged=charged,
    )  # fmt: skip
    return SweepReport(len(orgs), closed, expired, charged)
