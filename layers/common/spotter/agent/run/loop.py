"""The model loop: at most MAX_TURNS round trips, each one model turn that says what happened.

A turn streams one call (`run.model_turn`), stores the reply (`message_done`) with the call's
usage, and returns its step: no tool calls → `NextStepFinalOutput`; a cut-off reply →
`run.truncation`; tool calls → the batch (`run.tool_batch`), which stores their results turn
(`NextStepRunAgain`) or suspends at a call that waits for a person (`NextStepInterruption`).
Every call is reserved against the budget first (`run.metering`).
"""

from __future__ import annotations

from uuid import UUID

from spotter.agent import events as ev
from spotter.agent.errors import BudgetExhausted
from spotter.agent.run.model_turn import ModelReply, stream_reply
from spotter.agent.run.steps import (
    BatchResults,
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
from spotter.agent.stream import Emitter

MAX_TURNS = 6


async def drive_model_loop(state: RunState, events: Emitter) -> RunEnded:
    """Model turns until one ends the run."""
    for _ in range(MAX_TURNS):
        match await model_turn(state, events):
            case NextStepRunAgain():
                continue
            case NextStepStop(code=code):
                return RunEnded(code)
            case NextStepFinalOutput():
                return RunEnded()
            case NextStepInterruption():
                state.suspended = True  # the turn waits for a person: not a settled turn
                return RunEnded()
    return RunEnded("max_turns_reached")


async def model_turn(state: RunState, events: Emitter) -> TurnStep:
    try:
        reply = await stream_reply(state, events)
    except BudgetExhausted:
        # every call of every run is reserved first (`run.metering`); this one did not fit
        return NextStepStop("agent_budget_exceeded")
    state.model_turns += 1
    tool_uses = reply.tool_uses
    message_id = await _store_reply(state, reply)
    events.emit(ev.MessageDone(message_id=str(message_id), stop_reason=reply.stop_reason))
    if reply.truncated:
        return await answer_truncated(state, message_id, tool_uses)
    if not tool_uses:
        return NextStepFinalOutput()
    planned = plan_calls(state, tool_uses, reply.refused)
    match await run_tool_calls(state, events, message_id, planned):
        case BatchSuspended():
            return NextStepInterruption()  # the user decides; resolving the message resumes
        case BatchResults():
            return NextStepRunAgain()  # the batch stored its results turn


async def _store_reply(state: RunState, reply: ModelReply) -> UUID:
    """Persist the assistant turn; the call's usage is recorded in the same transaction."""
    async with state.transaction() as tx:
        return await state.append(
            tx, "assistant", reply.content, model=reply.model, stop_reason=reply.stop_reason,
            usage=reply.usage.as_json(),
        )  # fmt: skip
