"""Running one assistant turn's tool calls: plan, execute (reads side by side), settle in order.

A batch of parallel reads runs each handler in its own pipelined transaction (≤ 4 in flight;
they write nothing, so none commits anything), then settles them together — their
`ai_tool_executions` rows and the results turn, in tool_use order — before any
`tool_completed`: owed to the run's next write (`RunState.owe_settle`: the next call's hold,
the reply that answers them, or the last batch), or in a transaction of their own when the
lease is not trusted. Durability: what depends on the reads' results is the model's answer to
them, which commits with them or not at all; a crash before that loses reads that changed
nothing outside, and the next send answers their calls `interrupted`, so the model reads
again. Any other batch runs call by call, each in its own org transaction that also writes its
execution row (a database-only write and its row commit together or not at all), and stores the
results turn after the last. The batch returns its
step: `BatchResults` (in tool_use order, stored) or `BatchSuspended`.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field, replace
from typing import Any
from uuid import UUID, uuid4

from spotter.agent import events as ev
from spotter.agent.call_record import CallRef, executed, tool_started
from spotter.agent.executions import NewExecution, insert_turn_calls
from spotter.agent.run.steps import BatchResults, BatchStep, BatchSuspended
from spotter.agent.run.suspension import CANNOT_RUN, asked_of_the_user, store_suspended
from spotter.agent.state import RunState
from spotter.agent.stream import Emitter
from spotter.agent.transcript import tool_result_block
from spotter.db import Conn
from spotter.db.errors import is_unavailable
from spotter.tools.asking import needs_user
from spotter.tools.calls import ResolvedCall, ToolOutcome
from spotter.tools.context import ToolContext
from spotter.tools.errors import TOOL_REFUSALS, ToolError, tool_error
from spotter.tools.runner import execute, resolve_call
from spotter.tools.spec import ToolSpec

MAX_PARALLEL_READS = 4


@dataclass(frozen=True)
class PlannedCall:
    position: int
    tool_use_id: str
    router: str
    raw_input: Any
    call: ResolvedCall | None = None
    refusal: ToolError | None = None  # the is_error result when the call may not run
    execution_id: UUID = field(default_factory=uuid4)  # its row's id, named by its events

    @property
    def spec(self) -> ToolSpec | None:
        return self.call.spec if self.call else None

    @property
    def action(self) -> str:
        if self.call:
            return self.call.spec.action
        action = self.raw_input.get("action") if isinstance(self.raw_input, dict) else None
        return action if isinstance(action, str) else ""

    @property
    def needs_user(self) -> bool:
        """An approval or a pick: the run suspends here (unless the card cannot be built)."""
        if self.call is None or self.refusal is not None:
            return False
        return needs_user(self.call.spec.kind, self.call.spec.confirm)

    @property
    def shown_input(self) -> dict[str, Any]:
        if self.call:
            return self.call.executable_input
        return self.raw_input if isinstance(self.raw_input, dict) else {}

    @property
    def ref(self) -> CallRef:
        return CallRef(
            self.tool_use_id, self.router, self.action, self.shown_input, self.execution_id
        )


def plan_calls(
    state: RunState,
    tool_uses: list[dict[str, Any]],
    refused: dict[str, ToolError] | None = None,
) -> list[PlannedCall]:
    """Each call resolved, or refused: by the runner (unknown tool, invalid args) or because its
    input could not be stored as sent (`refused`, from `transcript.storable`)."""
    planned = []
    for position, block in enumerate(tool_uses):
        base = PlannedCall(position, block["id"], block["name"], block["input"])
        if refused and block["id"] in refused:
            planned.append(replace(base, refusal=refused[block["id"]]))
            continue
        try:
            call = resolve_call(state.registry, block["name"], block["input"])
        except TOOL_REFUSALS as exc:
            planned.append(replace(base, refusal=tool_error(exc)))
            continue
        planned.append(replace(base, call=call))
    return planned


def runs_concurrently(planned: list[PlannedCall]) -> bool:
    """≥ 2 calls, every one a registered read that never confirms and never asks the user."""
    return len(planned) >= 2 and all(
        p.spec is not None and p.refusal is None and p.spec.parallel_safe for p in planned
    )


@dataclass(frozen=True)
class Settled:
    planned: PlannedCall
    outcome: ToolOutcome
    duration_ms: float


async def _read(state: RunState, p: PlannedCall) -> Settled:
    """A parallel read's handler, in a transaction of its own (no savepoint: nothing else is in
    it); its execution row is written when the batch settles."""
    assert p.call is not None
    started = time.perf_counter()
    outcome: ToolOutcome | None = None
    try:
        async with state.deps.db.pipelined_tx(state.caller.org_id) as conn:
            ctx = ToolContext(state.caller, conn, state.now)
            outcome = await execute(ctx, p.call, savepoint=False)
    except Exception as exc:
        # a handler's own database error ends its transaction: its outcome already says so
        if outcome is None or outcome.ok or is_unavailable(exc):
            raise
    return Settled(p, outcome, (time.perf_counter() - started) * 1000)


async def _run_one(state: RunState, message_id: UUID, p: PlannedCall) -> Settled:
    started = time.perf_counter()
    async with state.deps.db.org_tx(state.caller.org_id) as conn:
        if p.call is None or p.refusal is not None:
            outcome = ToolOutcome.failed(p.refusal or CANNOT_RUN)
        else:
            outcome = await execute(ToolContext(state.caller, conn, state.now), p.call)
        row = NewExecution.settled(p.position, p.ref, p.spec, outcome)
        await insert_turn_calls(conn, state.caller.org_id, state.conversation_id, message_id, [row])
    return Settled(p, outcome, (time.perf_counter() - started) * 1000)


def _result(settled: Settled) -> dict[str, Any]:
    outcome = settled.outcome
    return tool_result_block(settled.planned.tool_use_id, outcome.ok, outcome.payload)


def _completed(state: RunState, settled: Settled) -> ev.ToolCompleted:
    p, outcome = settled.planned, settled.outcome
    return executed(state, p.ref, p.spec, outcome, duration_ms=settled.duration_ms)


async def run_tool_calls(
    state: RunState,
    events: Emitter,
    message_id: UUID,
    planned: list[PlannedCall],
    *,
    note: list[dict[str, Any]] | None = None,
) -> BatchStep:
    """Run the batch, emitting tool_started / tool_completed; return its step: the results in
    tool_use order, stored as the results turn (`note`'s blocks after them), or suspended at
    the first call that needs the user."""
    results: list[dict[str, Any]] = []
    turn_tail = note or []
    if runs_concurrently(planned):
        return await _run_reads_concurrently(state, events, message_id, planned, turn_tail)
    for index, p in enumerate(planned):
        if p.needs_user and p.call is not None:
            rest = planned[index + 1 :]
            match await _suspend_at(state, events, message_id, p, p.call, rest):
                case BatchSuspended() as suspended:
                    return suspended
                case refusal:
                    # its card could not be built: a failed call the model reads, and on we go
                    p = replace(p, refusal=refusal)
        events.emit(tool_started(p.ref))
        settled = await _run_one(state, message_id, p)
        results.append(_result(settled))
        events.emit(_completed(state, settled))
    async with state.transaction() as tx:
        await state.append(tx, "tool_result", [*results, *turn_tail])
    return BatchResults(results)


async def _suspend_at(
    state: RunState, events: Emitter, message_id: UUID, first: PlannedCall, call: ResolvedCall,
    rest: list[PlannedCall],
) -> BatchSuspended | ToolError:  # fmt: skip
    """Suspend at `first`: what the user is asked (an approval's card, a picker's candidates
    named by the server) and the pending rows in one transaction, then the announcements; the
    error, storing nothing, when it cannot be built (nobody is asked about a call that cannot
    succeed)."""
    async with state.deps.db.org_tx(state.caller.org_id) as conn:
        try:
            ctx = ToolContext(state.caller, conn, state.now)
            call, card = await asked_of_the_user(ctx, call)
        except TOOL_REFUSALS as exc:
            return tool_error(exc)
        announced = await store_suspended(state, conn, message_id, first, call, card, rest)
    for event in announced:
        events.emit(event)
    return BatchSuspended()


async def _run_reads_concurrently(
    state: RunState,
    events: Emitter,
    message_id: UUID,
    planned: list[PlannedCall],
    turn_tail: list[dict[str, Any]],
) -> BatchResults:
    gate = asyncio.Semaphore(MAX_PARALLEL_READS)

    async def guarded(p: PlannedCall) -> Settled:
        async with gate:
            events.emit(tool_started(p.ref))  # as its handler starts
            return await _read(state, p)

    tasks = [asyncio.create_task(guarded(p)) for p in planned]
    try:
        await asyncio.gather(*tasks, return_exceptions=True)
        # a runner failure surfaces here, after every read in flight has finished
        settled = [task.result() for task in tasks]
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    rows = [
        NewExecution.settled(s.planned.position, s.planned.ref, s.planned.spec, s.outcome)
        for s in settled
    ]
    results = [_result(s) for s in settled]
    if state.start.lease.trusted:
        # reads only: their rows and results ride with the run's next write (`RunState.
        # owe_settle`); a crash before it loses reads that changed nothing, and what the
        # model answers from them commits with them or not at all
        org_id, conversation_id = state.caller.org_id, state.conversation_id

        async def write_rows(conn: Conn) -> None:
            await insert_turn_calls(conn, org_id, conversation_id, message_id, rows)

        state.owe_settle(write_rows, [*results, *turn_tail])
    else:
        async with state.transaction() as tx:
            await insert_turn_calls(
                tx.conn, state.caller.org_id, state.conversation_id, message_id, rows
            )
            await state.append(tx, "tool_result", [*results, *turn_tail])
    for s in settled:
        events.emit(_completed(state, s))
    return BatchResults(results)
