"""Sending a message: the run's phases in order, as an async generator of SSE events.

conversation_started (new) → ambient RAG → budget pre-check → user turn (title in the
background) → T1 quick lane (answers, acts once, or declines) → compaction gate → T0 page
seeds → model loop (`run.loop`) → the one finish path (`run.finish`) → done → embeddings
refresh after writes. Each phase lives in its own module; this one only sequences them.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import aclosing

from spotter.agent import events as ev
from spotter.agent.rag.ambient import find_ambient, render_ambient
from spotter.agent.run.compaction_gate import compact_if_needed
from spotter.agent.run.finish import RunBody, finish_run
from spotter.agent.run.loop import drive_model_loop
from spotter.agent.run.prepare import SendMessage, prepare_run
from spotter.agent.run.quick_lane import try_quick_lane
from spotter.agent.run.seeding import seed_page_reads
from spotter.agent.run.steps import LaneAnswered, LaneStep, RunEnded
from spotter.agent.run.title_task import finish_title, start_title
from spotter.agent.state import AgentDeps, RunStart
from spotter.auth.caller import Caller
from spotter.i18n import translate

__all__ = ["SendMessage", "send_message"]


def send_message(
    deps: AgentDeps, caller: Caller, request: SendMessage
) -> AsyncIterator[ev.AgentEvent]:
    start = RunStart.begin(deps, caller)
    return finish_run(start, _send(start, request), model_run=True)


async def _send(start: RunStart, request: SendMessage) -> RunBody:
    caller = start.caller
    # before the user row is written, so the stored turn context is written once
    hits = await find_ambient(start.deps.db, caller.org_id, request.text, start.deps.embedder)
    prepared = await prepare_run(start, request, render_ambient(hits))
    state = prepared.state
    yield state
    if prepared.new_conversation:
        yield ev.ConversationStarted(conversation_id=str(state.conversation_id))
    if prepared.budget.exceeded:
        amount = f"{prepared.budget.cap_usd_micros / 1_000_000:.2f}"
        message = translate("agent.budget.exceeded", caller.locale).replace("{amount}", amount)
        state.telemetry.emit("agent.budget_exceeded", **state.ids)
        yield RunEnded("agent_budget_exceeded", message=message, model_run=False)
        return
    title: asyncio.Task[str | None] | None = None
    if prepared.new_conversation:
        title = start_title(state, request.text)  # beside the loop; awaited before done
    try:
        lane: LaneStep | None = None
        async with aclosing(try_quick_lane(state, prepared.stored, request.text)) as quick:
            async for answered in quick:
                if isinstance(answered, LaneStep):
                    lane = answered
                else:
                    yield answered
        end = RunEnded()
        if not isinstance(lane, LaneAnswered):
            async with aclosing(compact_if_needed(state, prepared.stored)) as gate:
                async for event in gate:
                    yield event
            selection = request.selection
            async with aclosing(seed_page_reads(state, request.pathname, selection)) as seeds:
                async for event in seeds:
                    yield event
            async with aclosing(drive_model_loop(state)) as loop:
                async for item in loop:
                    if isinstance(item, RunEnded):
                        end = item
                    else:
                        yield item
        await finish_title(title)
        yield end
    finally:
        if title is not None and not title.done():
            title.cancel()  # a failed or abandoned run does not wait for its title
