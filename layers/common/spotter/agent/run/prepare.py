"""Before the model: the conversation, the budget pre-check, the user turn, a valid replay."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from spotter.agent.approvals.settle import close_for_new_message
from spotter.agent.cost.budget import UsageSnapshot, usage_snapshot
from spotter.agent.prompting.context import build_turn_context, user_turn
from spotter.agent.state import RunState
from spotter.agent.transcript.history import (
    StoredMessage,
    load_history,
    settled_outcomes,
    start_conversation,
)
from spotter.agent.transcript.message_log import append_message
from spotter.agent.transcript.replay import (
    INTERRUPTED,
    block_types,
    repair_replay,
    replay_messages,
    tool_result_block,
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
    new_conversation: bool
    budget: UsageSnapshot
    stored: list[StoredMessage] = field(default_factory=list)  # the history, new turn included


async def prepare_run(state: RunState, request: SendMessage, ambient: str = "") -> Prepared:
    """One transaction: conversation row (new) or history (existing), budget, user turn (with
    the ambient RAG section, found before, so the row is written once)."""
    caller = state.caller
    async with state.deps.db.org_tx(caller.org_id) as conn:
        if request.conversation_id is None:
            state.conversation_id = await start_conversation(conn, caller)
            stored: list[StoredMessage] = []
        else:
            stored = await load_history(conn, caller, request.conversation_id)
            state.conversation_id = request.conversation_id
        budget = await usage_snapshot(conn, caller.org_id, caller.platform_tier, state.now)
        if budget.exceeded:
            return Prepared(request.conversation_id is None, budget)
        stored += await _answer_orphaned_tail(conn, state, stored)
        content = user_turn(
            request.text,
            build_turn_context(caller, state.now, request.pathname, request.selection, ambient),
        )
        page = {"pathname": request.pathname, "selection": request.selection}
        appended = await append_message(
            conn, caller.org_id, state.conversation_id, run_id=state.run_id, role="user",
            content=content, page_context=page,
        )  # fmt: skip
        stored.append(
            StoredMessage(appended.id, appended.ordinal, "user", content, None, state.run_id, page)
        )
    state.messages = valid_replay(state, stored)
    return Prepared(request.conversation_id is None, budget, stored)


async def _answer_orphaned_tail(
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
    assert state.conversation_id is not None
    await close_for_new_message(conn, state.caller.org_id, stored[-1].id)
    known = await settled_outcomes(conn, state.caller, state.conversation_id, ids)
    content = [
        tool_result_block(tid, *known[tid])
        if tid in known
        else tool_result_block(tid, False, INTERRUPTED)
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


def valid_replay(state: RunState, stored: list[StoredMessage]) -> list[dict[str, Any]]:
    messages = replay_messages(stored, state.call)
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
    return repair_replay(messages, check)


async def prepare_resume(state: RunState) -> None:
    """A resumed run's history: the stored conversation (its tool results just settled) as a
    valid replay. No user turn, no ambient retrieval: nothing new was said."""
    assert state.conversation_id is not None
    async with state.deps.db.org_tx(state.caller.org_id) as conn:
        stored = await load_history(conn, state.caller, state.conversation_id)
    state.messages = valid_replay(state, stored)
