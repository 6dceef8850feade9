"""Sending a message: the run's phases in order, as an async iterator of SSE events.

(a conversation its last run is compacting: wait for it, bounded) → conversation_started (new)
→ budget pre-check → user turn with its turn context (title in the
background) → T1 quick lane (answers, acts once, or declines) → compaction gate → ambient RAG
folded into the stored turn (`run.ambient_turn`; before the turn is written when the lane
cannot take the message at all) → T0 page seeds → model loop (`run.loop`) → the one finish
path (`run.finish`) → done → embeddings refresh after writes. Each phase lives in its own
module; this one only sequences them.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from functools import partial

from spotter.agent import events as ev
from spotter.agent.errors import ConversationBusy
from spotter.agent.run.ambient_turn import ambient_before_the_turn, fold_ambient
from spotter.agent.run.compaction_gate import compact_if_needed, wait_for_compaction
from spotter.agent.run.finish import run_events
from spotter.agent.run.loop import drive_model_loop
from spotter.agent.run.prepare import Prepared, SendMessage, prepare_run
from spotter.agent.run.quick_lane import route_bound, try_quick_lane
from spotter.agent.run.seeding import seed_page_reads
from spotter.agent.run.steps import InConversation, LaneAnswered, LaneDeclined, RunEnded
from spotter.agent.run.title_task import finish_title, start_title
from spotter.agent.state import AgentDeps, RunStart
from spotter.agent.stream import Emitter, RunLog
from spotter.auth.caller import Caller
from spotter.i18n import translate

__all__ = ["SendMessage", "send_message"]


def send_message(
    deps: AgentDeps, caller: Caller, request: SendMessage, *, log: RunLog | None = None
) -> AsyncIterator[ev.AgentEvent]:
    """`log`: the run's event log, when someone (the HTTP driver) listens to it."""
    start = RunStart.begin(deps, caller, log, endpoint="send")
    return run_events(start, partial(_prepare, start, request), model_run=True)


async def _prepare(start: RunStart, request: SendMessage, events: Emitter) -> InConversation:
    # a message the quick lane cannot take: its ambient section is in the turn as first written
    ambient = await ambient_before_the_turn(start, request)
    # the quick route holds its bound in prepare's transaction (a metered tier's budget)
    route = partial(route_bound, start, request.text, request.selection)
    try:
        prepared = await prepare_run(start, request, ambient or "", route)
    except ConversationBusy:
        # the conversation's last run may be compacting it after its turn: wait, then again
        if request.conversation_id is None or not await wait_for_compaction(
            start, request.conversation_id, events
        ):
            raise
        prepared = await prepare_run(start, request, ambient or "", route)
    return InConversation(
        prepared.state, partial(_converse, prepared, request, fold=ambient is None)
    )


async def _converse(
    prepared: Prepared, request: SendMessage, events: Emitter, *, fold: bool
) -> RunEnded:
    state = prepared.state
    if prepared.new_conversation:
        events.emit(ev.ConversationStarted(conversation_id=str(state.conversation_id)))
    if prepared.budget.exceeded:
        amount = f"{prepared.budget.cap_usd_micros / 1_000_000:.2f}"
        said = translate("agent.budget.exceeded", state.caller.locale)
        message = said.replace("{amount}", amount)
        state.telemetry.emit("agent.budget_exceeded", **state.ids)
        return RunEnded("agent_budget_exceeded", message=message, model_run=False)
    title: asyncio.Task[str | None] | None = None
    if prepared.new_conversation:
        title = start_title(state, request.text)  # beside the loop; awaited before done
    try:
        match await try_quick_lane(
            state, events, prepared.stored, request.text, request.selection, prepared.first_hold
        ):
            case LaneAnswered():
                end = RunEnded()
            case LaneDeclined():
                await compact_if_needed(state, events, prepared.stored)
                if fold:  # the lane declined: RAG now, before any loop call reads the turn
                    await fold_ambient(prepared, request)
                await seed_page_reads(state, events, request.pathname, request.selection)
                end = await drive_model_loop(state, events)
        await finish_title(title)
        return end
    finally:
        if prepared.first_hold is not None:
            prepared.first_hold.drop_untaken(state)  # (the route never ran: its hold goes)
        if title is not None and not title.done():
            title.cancel()  # a failed or abandoned run does not wait for its title
