"""Before the model: the conversation, the budget pre-check, the user turn, a valid replay."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from psycopg import AsyncCursor

from spotter.agent.approvals import answer_for_new_message
from spotter.agent.cost import UsageSnapshot
from spotter.agent.cost.budget import daily_cap, queue_usage_snapshot
from spotter.agent.errors import ReplayIntegrityViolation
from spotter.agent.prompting import build_turn_context, user_turn
from spotter.agent.run_lease import queue_acquire, read_acquired, refusal
from spotter.agent.state import RunStart, RunState
from spotter.agent.stream import release_ended
from spotter.agent.transcript import (
    StoredMessage,
    UserTurnGuard,
    block_types,
    canonical,
    load_history,
    queue_append,
    queue_history,
    read_history,
    repair_replay,
    replay_messages,
    start_conversation,
    validate_replay,
)
from spotter.db import Conn


@dataclass(frozen=True)
class SendMessage:
    text: str
    pathname: str
    selection: dict[str, Any] | None = None
    conversation_id: UUID | None = None


@dataclass(frozen=True)
class Prepared:
    state: RunState
    new_conversation: bool
    budget: UsageSnapshot
    stored: list[StoredMessage] = field(default_factory=list)  # the history, new turn included


async def prepare_run(start: RunStart, request: SendMessage, ambient: str = "") -> Prepared:
    """Usually ONE round trip: in one pipelined transaction the budget, the conversation row
    (new, its lease taken) or its history and its lease, and the user turn (with the ambient
    RAG section, found before, so the row is written once) — the turn guarded in SQL, so it is
    written only if the lease was taken, the tail needs no results and the cap allows. When the
    tail's calls still need their results, a second transaction appends them, then the turn."""
    caller = start.caller
    new = request.conversation_id is None
    content = user_turn(
        request.text,
        build_turn_context(caller, start.now, request.pathname, request.selection, ambient),
    )
    page = {"pathname": request.pathname, "selection": request.selection}
    guard = UserTurnGuard(daily_cap(caller.platform_tier, start.now))
    history = lease = None
    if request.conversation_id is not None:
        await release_ended(request.conversation_id)  # a run of it here ended in a blip
    sent = time.monotonic()
    async with start.deps.db.pipelined_tx(caller.org_id) as conn:
        budget_of = await queue_usage_snapshot(conn, caller.org_id, caller.platform_tier, start.now)
        if request.conversation_id is None:
            conversation_id = await start_conversation(conn, caller, start.run_id)
        else:
            conversation_id = request.conversation_id
            history = await queue_history(conn, caller, conversation_id)
            # a run already live in it makes this send a refusal, its turn unwritten
            lease = await queue_acquire(conn, caller, conversation_id, start.run_id)
        appended = await _queue_user_turn(start, conn, conversation_id, content, page, guard)
    state = start.in_conversation(conversation_id)
    last_seq = (
        0 if lease is None else await read_acquired(start.deps.db, lease, caller, conversation_id)
    )
    start.lease.confirm(sent)
    state.stream_events(last_seq)
    stored = [] if history is None else await read_history(history)
    budget = await budget_of()
    row = await appended.fetchone()
    if row is None:
        if budget.exceeded:
            return Prepared(state, new, budget)
        # the tail's calls need their results before a new user turn may follow them
        async with state.transaction() as tx:
            stored += await answer_for_new_message(tx.conn, state, stored)
            appended = await _queue_user_turn(start, tx.conn, conversation_id, content, page)
        row = await appended.fetchone()
        if row is None:  # the lease was taken over in between
            raise await refusal(start.deps.db, caller, conversation_id, start.run_id)
    stored.append(
        StoredMessage(row["id"], row["ordinal"], "user", content, None, start.run_id, page)
    )
    state.messages = valid_replay(state, stored)
    return Prepared(state, new, budget, stored)


async def _queue_user_turn(
    start: RunStart,
    conn: Conn,
    conversation_id: UUID,
    content: list[dict[str, Any]],
    page: dict[str, Any],
    guard: UserTurnGuard | None = None,
) -> AsyncCursor[dict[str, Any]]:
    return await queue_append(
        conn, start.caller.org_id, conversation_id, uuid.uuid4(), run_id=start.run_id,
        role="user", content=content, page_context=page, fenced=True, guarded=guard,
    )  # fmt: skip


def valid_replay(state: RunState, stored: list[StoredMessage]) -> list[dict[str, Any]]:
    """The stored rows as the next call replays them, canonical once here (not per call)."""
    state.compacted = any(row.role == "system_note" for row in stored)
    messages: list[dict[str, Any]] = canonical(replay_messages(stored, state.call))
    check = validate_replay(messages)
    if check.ok:
        return messages
    # Older damage cannot be fixed by appending; the repair is a pure function of the stored
    # rows, so it replays byte-identically every run (the cached prefix survives).
    state.telemetry.emit(
        "agent.replay.violation",
        level="warning",
        orphans=sum(len(v.orphaned_tool_use_ids) for v in check.violations),
        stray_results=sum(len(v.orphaned_tool_use_ids) for v in check.stray_results),
        problems=check.problems,
        shape=block_types(messages),
        **state.ids,
    )
    repaired: list[dict[str, Any]] = canonical(repair_replay(messages, check))
    if not validate_replay(repaired).ok:
        # what synthesized results cannot fix would be refused by the model's API: say so
        raise ReplayIntegrityViolation()
    return repaired


async def prepare_resume(state: RunState) -> None:
    """A resumed run's history: the stored conversation (its tool results just settled) as a
    valid replay. No user turn, no ambient retrieval: nothing new was said."""
    async with state.deps.db.org_tx(state.caller.org_id) as conn:
        stored = await load_history(conn, state.caller, state.conversation_id)
    state.messages = valid_replay(state, stored)
