"""Before the model: the conversation, the budget pre-check, the user turn, a valid replay."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from spotter.agent.approvals import answer_for_new_message
from spotter.agent.cost import UsageSnapshot
from spotter.agent.cost.budget import queue_usage_snapshot
from spotter.agent.prompting import build_turn_context, user_turn
from spotter.agent.run_lease import acquire_lease
from spotter.agent.state import RunStart, RunState
from spotter.agent.transcript import (
    StoredMessage,
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
    """One pipelined transaction, two round trips: the conversation row (new, its lease taken)
    or its history and its lease, and the budget, together; then the user turn (with the
    ambient RAG section, found before, so the row is written once) and the commit."""
    caller = start.caller
    new = request.conversation_id is None
    sent = time.monotonic()
    async with start.deps.db.pipelined_tx(caller.org_id) as conn:
        budget_of = await queue_usage_snapshot(conn, caller.org_id, caller.platform_tier, start.now)
        stored: list[StoredMessage] = []
        if request.conversation_id is None:
            state = start.in_conversation(await start_conversation(conn, caller, start.run_id))
            last_seq = 0
        else:
            history = await queue_history(conn, caller, request.conversation_id)
            # before anything is written: a run already live in it makes this send a refusal
            last_seq = await acquire_lease(conn, caller, request.conversation_id, start.run_id)
            stored = await read_history(history)
            state = start.in_conversation(request.conversation_id)
        state.stream_events(last_seq)
        budget = await budget_of()
        if budget.exceeded:
            return Prepared(state, new, budget)
        stored += await answer_for_new_message(conn, state, stored)
        content = user_turn(
            request.text,
            build_turn_context(caller, start.now, request.pathname, request.selection, ambient),
        )
        page = {"pathname": request.pathname, "selection": request.selection}
        appended = await queue_append(
            conn, caller.org_id, state.conversation_id, uuid.uuid4(), run_id=start.run_id,
            role="user", content=content, page_context=page,
        )  # fmt: skip
    start.lease.confirm(sent)
    row = await appended.fetchone()
    assert row is not None, "the conversation is this run's: the append wrote its row"
    stored.append(
        StoredMessage(row["id"], row["ordinal"], "user", content, None, start.run_id, page)
    )
    state.messages = valid_replay(state, stored)
    return Prepared(state, new, budget, stored)


def valid_replay(state: RunState, stored: list[StoredMessage]) -> list[dict[str, Any]]:
    """The stored rows as the next call replays them, canonical once here (not per call)."""
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
        shape=block_types(messages),
        **state.ids,
    )
    repaired: list[dict[str, Any]] = canonical(repair_replay(messages, check))
    return repaired


async def prepare_resume(state: RunState) -> None:
    """A resumed run's history: the stored conversation (its tool results just settled) as a
    valid replay. No user turn, no ambient retrieval: nothing new was said."""
    async with state.deps.db.org_tx(state.caller.org_id) as conn:
        stored = await load_history(conn, state.caller, state.conversation_id)
    state.messages = valid_replay(state, stored)
