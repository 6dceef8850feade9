"""Resolving a suspended message, streamed like a send: confirm, confirm-batch and pick.

The decisions are applied (`approvals.resolution`); when this stream settled the message, the
model loop runs once more over the settled history (`run.loop`, checking the spend cap before
every call); either way the run ends through the one finish path (`run.finish`). A refused
batch (a `DecisionError`, a conversation that is not the caller's) is an SSE `error` and `done`.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Sequence
from functools import partial
from typing import Any
from uuid import UUID

from spotter.agent import erasure as _erasure  # noqa: F401  (a resolution may erase a member)
from spotter.agent import events as ev
from spotter.agent.approvals import DecisionKind
from spotter.agent.approvals.resolution import (
    Decision,
    NothingToResume,
    ResumeModel,
    apply_decisions,
)
from spotter.agent.run.finish import run_events
from spotter.agent.run.loop import drive_model_loop
from spotter.agent.run.loop_call import queue_org_loop_model
from spotter.agent.run.prepare import prepare_resume
from spotter.agent.run.steps import ModelRun, RunEnded
from spotter.agent.run_lease import acquire_lease
from spotter.agent.state import AgentDeps, RunStart, RunState
from spotter.agent.stream import Emitter, RunLog, release_ended
from spotter.agent.telemetry import AgentEndpoint
from spotter.auth.caller import Caller

__all__ = ["Decision", "confirm", "confirm_batch", "pick", "resolve_message"]


def confirm(
    deps: AgentDeps,
    caller: Caller,
    conversation_id: UUID,
    tool_use_id: str,
    approved: bool,
    *,
    args: dict[str, Any] | None = None,
    reason: str | None = None,
    fingerprint: str | None = None,
    log: RunLog | None = None,
) -> AsyncIterator[ev.AgentEvent]:
    decision = Decision(tool_use_id, approved, args=args, reason=reason, fingerprint=fingerprint)
    return resolve_message(
        deps, caller, conversation_id, [decision], "confirm", log=log, endpoint="confirm"
    )


def confirm_batch(
    deps: AgentDeps,
    caller: Caller,
    conversation_id: UUID,
    decisions: Sequence[Decision],
    *,
    log: RunLog | None = None,
) -> AsyncIterator[ev.AgentEvent]:
    return resolve_message(
        deps, caller, conversation_id, decisions, "confirm", log=log, endpoint="confirm_batch"
    )


def pick(
    deps: AgentDeps,
    caller: Caller,
    conversation_id: UUID,
    tool_use_id: str,
    picked_id: str,
    *,
    log: RunLog | None = None,
) -> AsyncIterator[ev.AgentEvent]:
    decision = Decision(tool_use_id, picked_id=picked_id)
    return resolve_message(
        deps, caller, conversation_id, [decision], "pick", log=log, endpoint="pick"
    )


def resolve_message(
    deps: AgentDeps,
    caller: Caller,
    conversation_id: UUID,
    decisions: Sequence[Decision],
    kind: DecisionKind | None,
    *,
    log: RunLog | None = None,
    endpoint: AgentEndpoint,
) -> AsyncIterator[ev.AgentEvent]:
    """`kind`: what every decision must be; None: each its own (an AI SDK request answers a
    message's approvals and pickers together)."""
    start = RunStart.begin(deps, caller, log, endpoint=endpoint)
    state = start.in_conversation(conversation_id, resumed=True)
    first = partial(_resolve, state, decisions, kind)
    return run_events(start, first, model_run=False, state=state)


async def _resolve(
    state: RunState, decisions: Sequence[Decision], kind: DecisionKind | None, events: Emitter
) -> RunEnded | ModelRun:
    await release_ended(state.conversation_id)  # a run of it here ended in a blip
    sent = time.monotonic()
    async with state.deps.db.pipelined_tx(state.caller.org_id) as conn:
        org_model = await queue_org_loop_model(conn, state.caller.org_id)
        # one run per conversation: a live run makes this resolution a refusal, nothing claimed
        last_seq = await acquire_lease(conn, state.caller, state.conversation_id, state.run_id)
    state.start.lease.confirm(sent)
    state.stream_events(last_seq)
    match await apply_decisions(state, events, decisions, kind):
        case NothingToResume():
            return RunEnded()  # nothing was asked of the model: zero usage
        case ResumeModel():
            await prepare_resume(state, org_model)
            return ModelRun(partial(drive_model_loop, state))
