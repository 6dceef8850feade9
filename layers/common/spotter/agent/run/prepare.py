"""Before the model: the conversation, the budget pre-check, the user turn, the run's loop call
and its valid replay."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any
from uuid import UUID

from psycopg import AsyncCursor
from psycopg.errors import UniqueViolation

from spotter.agent.approvals import answer_for_new_message
from spotter.agent.chats import chat_taken
from spotter.agent.cost import UsageSnapshot
from spotter.agent.cost.budget import CallBound, daily_cap, queue_usage_snapshot
from spotter.agent.cost.holds import queue_reserve, read_hold
from spotter.agent.prompting import build_turn_context, user_turn
from spotter.agent.run.loop_call import OrgLoopModel, loop_history, queue_org_loop_model
from spotter.agent.run.metering import PrepaidHold
from spotter.agent.run_lease import queue_acquire, read_acquired, refusal
from spotter.agent.state import RunStart, RunState
from spotter.agent.stream import release_ended
from spotter.agent.transcript import (
    StoredMessage,
    UserTurnGuard,
    has_turn_context,
    load_history,
    queue_append,
    queue_history,
    read_history,
    start_conversation,
)
from spotter.db import Conn


@dataclass(frozen=True)
class SendMessage:
    text: str
    pathname: str
    selection: dict[str, Any] | None = None
    conversation_id: UUID | None = None
    # an AI SDK chat's id: a new conversation is bound to it (`agent.chats`)
    chat_id: str | None = None


@dataclass(frozen=True)
class Prepared:
    state: RunState
    new_conversation: bool
    budget: UsageSnapshot
    stored: list[StoredMessage] = field(default_factory=list)  # the history, new turn included
    # the first call's hold, taken with the user turn (`first_call`); None: none was taken
    first_hold: PrepaidHold | None = None

    @property
    def user_turn(self) -> StoredMessage:
        """The turn this send stored (there is one unless the budget refused the send)."""
        return self.stored[-1]


FirstCall = Callable[[str], CallBound | None]


def no_first_call(turn_context: str) -> CallBound | None:
    return None


async def prepare_run(
    start: RunStart, request: SendMessage, ambient: str = "", first_call: FirstCall = no_first_call
) -> Prepared:
    """Usually ONE round trip: in one pipelined transaction the budget, the conversation row
    (new, its lease taken) or its history and its lease, and the user turn (with the ambient
    RAG section, found before, so the row is written once) — the turn guarded in SQL, so it is
    written only if the lease was taken, the tail needs no results and the cap allows — and,
    when `first_call` bounds the run's first model call from the turn context (the quick
    route), that call's hold, taken only if the turn was written: the call then needs no
    transaction of its own before it starts, nor its usage one before the next call
    (`run.metering`; on an unmetered tier the hold is only the bound's durable record). When
    the tail's calls still need their results, a second transaction appends them, then the
    turn (and the first call holds for itself)."""
    caller = start.caller
    new = request.conversation_id is None
    context = build_turn_context(caller, start.now, request.pathname, request.selection, ambient)
    content = user_turn(request.text, context)
    first_bound = first_call(context)
    turn_id = uuid.uuid4()
    page = {"pathname": request.pathname, "selection": request.selection}
    guard = UserTurnGuard(daily_cap(caller.platform_tier, start.now))
    history = lease = None
    if request.conversation_id is not None:
        await release_ended(request.conversation_id)  # a run of it here ended in a blip
    sent = time.monotonic()
    try:
        async with start.deps.db.pipelined_tx(caller.org_id) as conn:
            budget_of = await queue_usage_snapshot(
                conn, caller.org_id, caller.platform_tier, start.now
            )
            org_model = await queue_org_loop_model(conn, caller.org_id)
            if request.conversation_id is None:
                conversation_id = await start_conversation(
                    conn, caller, start.run_id, request.chat_id
                )
            else:
                conversation_id = request.conversation_id
                history = await queue_history(conn, caller, conversation_id)
                # a run already live in it makes this send a refusal, its turn unwritten
                lease = await queue_acquire(conn, caller, conversation_id, start.run_id)
            appended = await _queue_user_turn(
                start, conn, conversation_id, turn_id, content, page, guard
            )
            held = None
            if first_bound is not None:
                held = await queue_reserve(
                    conn, caller.org_id, caller.platform_tier, start.now, start.run_id,
                    caller.user_id, first_bound.full_micros, first_bound.least_micros,
                    after_turn=turn_id,
                )  # fmt: skip
    except UniqueViolation as exc:
        if request.chat_id is None:
            raise
        raise await chat_taken(start.deps.db, caller, request.chat_id) from exc
    state = start.in_conversation(conversation_id)
    last_seq = (
        0 if lease is None else await read_acquired(start.deps.db, lease, caller, conversation_id)
    )
    start.lease.confirm(sent)
    state.stream_events(last_seq)
    stored = [] if history is None else await read_history(history)
    budget = await budget_of()
    row = await appended.fetchone()
    first_hold = None if row is None or held is None else PrepaidHold(await read_hold(held))
    if row is None:
        if budget.exceeded:
            return Prepared(state, new, budget)
        # the tail's calls need their results before a new user turn may follow them
        async with state.transaction() as tx:
            stored += await answer_for_new_message(tx.conn, state, stored)
            appended = await _queue_user_turn(
                start, tx.conn, conversation_id, uuid.uuid4(), content, page
            )
        row = await appended.fetchone()
        if row is None:  # the lease was taken over in between
            raise await refusal(start.deps.db, caller, conversation_id, start.run_id)
    stored.append(
        StoredMessage(row["id"], row["ordinal"], "user", content, None, start.run_id, page)
    )
    try:
        loop_history(state, stored, await org_model(), resumed=False)
    except BaseException:
        if first_hold is not None:  # (a replay beyond repair): the run's last write drops it
            first_hold.drop_untaken(state)
        raise
    return Prepared(state, new, budget, stored, first_hold)


async def _queue_user_turn(
    start: RunStart,
    conn: Conn,
    conversation_id: UUID,
    message_id: UUID,
    content: list[dict[str, Any]],
    page: dict[str, Any],
    guard: UserTurnGuard | None = None,
) -> AsyncCursor[dict[str, Any]]:
    return await queue_append(
        conn, start.caller.org_id, conversation_id, message_id, run_id=start.run_id,
        role="user", content=content, page_context=page, fenced=True, guarded=guard,
    )  # fmt: skip


async def prepare_resume(state: RunState, org_model: OrgLoopModel) -> None:
    """A resumed run's loop call and history: the stored conversation (its tool results just
    settled) as a valid replay, on the model that wrote the turn it resumes. No new user turn,
    no ambient retrieval: nothing new was said, and the turn context stored with the run's user
    turn is the one it replays — built now only for a turn written before turn contexts
    existed (`with_turn_context`)."""
    async with state.deps.db.org_tx(state.caller.org_id) as conn:
        stored = await load_history(conn, state.caller, state.conversation_id)
    loop_history(state, with_turn_context(state, stored), await org_model(), resumed=True)


def with_turn_context(state: RunState, stored: list[StoredMessage]) -> list[StoredMessage]:
    """A run resumed from a user turn stored without `<turn_context>` (written before it
    existed) gets one, built once with the resume's clock and the page the turn was sent from,
    and stored onto that turn by the run's next transaction (before its first call): every
    call of this run, and every later resume, replays that one (spec: "backfilled onto its user
    message on resume, once, so it does not resume without a clock")."""
    index = next((i for i in reversed(range(len(stored))) if stored[i].role == "user"), None)
    if index is None or has_turn_context(stored[index].content):
        return stored
    turn = stored[index]
    page = turn.page_context or {}
    selection = page.get("selection")
    context = build_turn_context(
        state.caller,
        state.now,
        str(page.get("pathname") or "/"),
        selection if isinstance(selection, dict) else None,
    )
    content = [*turn.content, {"type": "text", "text": context}]
    state.complete_user_turn(turn, content)
    return [*stored[:index], replace(turn, content=content), *stored[index + 1 :]]
