"""The model loop: at most MAX_TURNS round trips, each one model turn that says what happened.

A turn streams one call (`run.model_turn`), stores the reply (`message_done`) with the call's
usage, and returns its step: no tool calls → `NextStepFinalOutput`; a cut-off reply →
`run.truncation`; tool calls → the batch (`run.tool_batch`), which stores their results turn
(`NextStepRunAgain`) or suspends at a call that waits for a person (`NextStepInterruption`).
Every call is reserved against the budget first (`run.metering`).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
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


async def model_turn(state: RunState) -> AsyncGenerator[ev.AgentEvent | TurnStep, None]:
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
            yield NextStepRunAgain()  # the batch stored its results turn


async def _store_reply(state: RunState, reply: ModelReply) -> UUID:
    """Persist the assistant turn; the call's usage is recorded in the same transaction."""
    async with state.transaction() as tx:
        return await state.append(
            tx, "assistant", reply.content, model=reply.model, stop_reason=reply.stop_reason,
            usage=reply.usage.as_json(),
        )  # fmt: skip
