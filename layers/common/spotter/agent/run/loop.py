"""The model loop: at most MAX_TURNS round trips, each one model turn that says what happened.

A turn streams one call (`run.model_turn`), stores the reply (`message_done`), and returns its
step: no tool calls → `NextStepFinalOutput`; a cut-off reply → `run.truncation`; tool calls →
the batch (`run.tool_batch`): its results go back (`NextStepRunAgain`) or a call waits for a
person (`NextStepInterruption`). Every call is reserved against the budget first.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import Any
from uuid import UUID

from spotter.agent import events as ev
from spotter.agent.errors import BudgetExhausted
from spotter.agent.run.model_turn import ModelReply, stream_reply
from spotter.agent.run.steps import (
    BatchStep,
    BatchSuspended,
    NextStepFinalOutput,
    NextStepInterruption,
    NextStepRunAgain,
    NextStepStop,
    RunEnded,
    TurnStep,
)
from spotter.agent.run.tool_batch import plan_calls, run_tool_calls
from spotter.agent.run.truncation import answer_truncated
from spotter.agent.run_lease import refresh_lease
from spotter.agent.state import RunState

MAX_TURNS = 6


async def drive_model_loop(state: RunState) -> AsyncGenerator[ev.AgentEvent | RunEnded, None]:
    """Model turns until one ends the run; the last item is the run's end."""
    for _ in range(MAX_TURNS):
        step: TurnStep | None = None
        async with aclosing(model_turn(state)) as turn:
            async for item in turn:
                if isinstance(item, TurnStep):
                    step = item
                else:
                    yield item
        match step:
            case NextStepRunAgain():
                continue
            case NextStepStop(code=code):
                yield RunEnded(code)
                return
            case NextStepFinalOutput() | NextStepInterruption():
                yield RunEnded()
                return
            case None:
                raise RuntimeError("a model turn ended without a step")
    yield RunEnded("max_turns_reached")


async def _keep_lease(state: RunState) -> None:
    """Before every model call: the run is alive (a long run never looks dead to a send)."""
    async with state.deps.db.org_tx(state.caller.org_id) as conn:
        await refresh_lease(conn, state.caller.org_id, state.conversation_id, state.run_id)


async def model_turn(state: RunState) -> AsyncGenerator[ev.AgentEvent | TurnStep, None]:
    await _keep_lease(state)
    reply: ModelReply | None = None
    try:
        # aclosing: a client that goes away closes the provider stream now, not at GC
        async with aclosing(stream_reply(state)) as replies:
            async for streamed in replies:
                if isinstance(streamed, ModelReply):
                    reply = streamed
                else:
                    yield streamed
    except BudgetExhausted:
        # every call of every run is reserved first (`run.metering`); this one did not fit
        yield NextStepStop("agent_budget_exceeded")
        return
    state.model_turns += 1
    if reply is None:
        raise RuntimeError("the model stream ended without a reply")
    tool_uses = reply.tool_uses
    final = not tool_uses and not reply.truncated
    message_id = await _store_reply(state, reply)
    yield ev.MessageDone(message_id=str(message_id), stop_reason=reply.stop_reason)
    if reply.truncated:
        yield await answer_truncated(state, message_id, tool_uses)
        return
    if final:
        yield NextStepFinalOutput()
        return
    batch: BatchStep | None = None
    async with aclosing(
        run_tool_calls(state, message_id, plan_calls(state, tool_uses, reply.refused))
    ) as calls:
        async for settled in calls:
            if isinstance(settled, BatchStep):
                batch = settled
            else:
                yield settled
    match batch:
        case BatchSuspended():
            yield NextStepInterruption()  # the user decides; resolving the message resumes
        case None:
            raise RuntimeError("a tool batch ended without a step")
        case _:
            await _store_results(state, batch.results)
            yield NextStepRunAgain()


async def _store_reply(state: RunState, reply: ModelReply) -> UUID:
    """Persist the assistant turn (its usage was recorded as the call ended)."""
    async with state.deps.db.org_tx(state.caller.org_id) as conn:
        appended = await state.append(
            conn, "assistant", reply.content, model=reply.model, stop_reason=reply.stop_reason,
            usage=reply.usage.as_json(),
        )  # fmt: skip
    return appended.id


async def _store_results(state: RunState, results: list[dict[str, Any]]) -> None:
    async with state.deps.db.org_tx(state.caller.org_id) as conn:
        await state.append(conn, "tool_result", results)
