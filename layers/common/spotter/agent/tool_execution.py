"""Running one assistant turn's tool calls: plan, execute (reads side by side), settle in order.

Each call runs in its own org transaction that also writes its `ai_tool_executions` row, so a
database-only write and its execution row commit together or not at all. Results are settled —
row, `tool_completed`, tool_result block — strictly in tool_use order.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import dataclass, field, replace
from typing import Any
from uuid import UUID

from spotter.agent import events as ev
from spotter.agent.history import ExecutionRow, insert_executions
from spotter.agent.replay import tool_result_block
from spotter.agent.run_state import RunState
from spotter.agent.suspension import confirmation_card, needs_user, store_suspended
from spotter.tools.calls import ResolvedCall, ToolOutcome
from spotter.tools.context import ToolContext
from spotter.tools.errors import DomainError
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
    refusal: dict[str, Any] | None = None  # the is_error result when the call may not run

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
        return self.call is not None and self.refusal is None and needs_user(self.call.spec)

    @property
    def shown_input(self) -> dict[str, Any]:
        if self.call:
            return self.call.executable_input
        return self.raw_input if isinstance(self.raw_input, dict) else {}


def plan_calls(state: RunState, tool_uses: list[dict[str, Any]]) -> list[PlannedCall]:
    planned = []
    for position, block in enumerate(tool_uses):
        base = PlannedCall(position, block["id"], block["name"], block["input"])
        try:
            call = resolve_call(state.registry, block["name"], block["input"])
        except DomainError as exc:
            planned.append(replace(base, refusal=exc.as_result()))
            continue
        planned.append(replace(base, call=call))
    return planned


def runs_concurrently(planned: list[PlannedCall]) -> bool:
    """≥ 2 calls, every one a registered read that never confirms and never asks the user."""
    return len(planned) >= 2 and all(
        p.spec is not None and p.refusal is None and p.spec.parallel_safe for p in planned
    )


@dataclass
class ToolBatch:
    """What a batch hands back: results in tool_use order, or suspended (results go back to the
    model only when the message is resolved and settled)."""

    results: list[dict[str, Any]] = field(default_factory=list)
    suspended: bool = False


@dataclass(frozen=True)
class Settled:
    planned: PlannedCall
    outcome: ToolOutcome
    duration_ms: float


async def _run_one(state: RunState, message_id: UUID, p: PlannedCall) -> Settled:
    started = time.perf_counter()
    caller = state.caller
    assert state.conversation_id is not None
    async with state.deps.db.org_tx(caller.org_id) as conn:
        if p.call is None or p.refusal is not None:
            outcome = ToolOutcome(ok=False, error=p.refusal)
        else:
            outcome = await execute(ToolContext(caller, conn, state.now), p.call)
        spec = p.spec
        row = ExecutionRow(
            message_id=message_id,
            position=p.position,
            tool_use_id=p.tool_use_id,
            router=p.router,
            action=p.action,
            input=p.shown_input,
            status="succeeded" if outcome.ok else "failed",
            output=outcome.output if outcome.ok else None,
            error=outcome.error,
            confirm_policy=spec.confirm if spec else "never",
            kind=spec.kind if spec else "normal",
            audit_log_id=outcome.audit_log_id,
        )
        await insert_executions(conn, caller, state.conversation_id, [row])
    return Settled(p, outcome, (time.perf_counter() - started) * 1000)


def _started(p: PlannedCall) -> ev.ToolStarted:
    return ev.ToolStarted(
        tool_use_id=p.tool_use_id, router=p.router, action=p.action, input=p.shown_input
    )


def _settle(state: RunState, settled: Settled, results: list[dict[str, Any]]) -> ev.ToolCompleted:
    p, outcome = settled.planned, settled.outcome
    if outcome.ok and p.spec is not None and p.spec.side_effects == "write":
        state.wrote_records = True
    results.append(
        tool_result_block(
            p.tool_use_id, outcome.ok, outcome.output if outcome.ok else outcome.error
        )
    )
    state.telemetry.emit(
        "agent.tool.executed",
        router=p.router,
        action=p.action,
        ok=outcome.ok,
        code=None if outcome.ok else (outcome.error or {}).get("code"),
        duration_ms=round(settled.duration_ms, 2),
        **state.ids,
    )
    return ev.ToolCompleted(
        tool_use_id=p.tool_use_id,
        router=p.router,
        action=p.action,
        ok=outcome.ok,
        output=outcome.output if outcome.ok else None,
        error=None if outcome.ok else outcome.error,
        inverse_available=outcome.ok and p.spec is not None and p.spec.inverse is not None,
    )


async def run_tool_calls(
    state: RunState, message_id: UUID, planned: list[PlannedCall], batch: ToolBatch
) -> AsyncGenerator[ev.AgentEvent, None]:
    """Run the batch, yielding tool_started / tool_completed; fill `batch.results` in tool_use
    order, or stop at the first call that needs the user (`batch.suspended`)."""
    results = batch.results
    if not runs_concurrently(planned):
        for index, p in enumerate(planned):
            if p.needs_user:
                suspension = await _suspend_at(state, message_id, planned, index)
                if isinstance(suspension, list):
                    batch.suspended = True
                    for event in suspension:
                        yield event
                    return
                # its card could not be built: a failed call the model reads, and on we go
                p = replace(p, refusal=suspension)
            yield _started(p)
            yield _settle(state, await _run_one(state, message_id, p), results)
        return
    async with aclosing(_run_reads_concurrently(state, message_id, planned, results)) as events:
        async for event in events:
            yield event


async def _suspend_at(
    state: RunState, message_id: UUID, planned: list[PlannedCall], index: int
) -> list[ev.AgentEvent] | dict[str, Any]:
    """Suspend at `planned[index]`: its card (a picker has none) and the pending rows in one
    transaction, returning the announcements; the card's error, storing nothing, when it cannot
    be built (nobody is asked to approve a call that cannot succeed)."""
    first = planned[index]
    assert first.call is not None
    async with state.deps.db.org_tx(state.caller.org_id) as conn:
        card = None
        if first.call.spec.kind != "user_picker":
            try:
                card = await confirmation_card(
                    ToolContext(state.caller, conn, state.now), first.call
                )
            except DomainError as exc:
                return exc.as_result()
        return await store_suspended(state, conn, message_id, first, card, planned[index + 1 :])


async def _run_reads_concurrently(
    state: RunState, message_id: UUID, planned: list[PlannedCall], results: list[dict[str, Any]]
) -> AsyncGenerator[ev.AgentEvent, None]:
    gate = asyncio.Semaphore(MAX_PARALLEL_READS)
    notices: asyncio.Queue[int] = asyncio.Queue()  # positions whose handler just started

    async def guarded(p: PlannedCall) -> Settled:
        async with gate:
            notices.put_nowait(p.position)
            return await _run_one(state, message_id, p)

    tasks = [asyncio.create_task(guarded(p)) for p in planned]
    try:
        for task in tasks:
            # announce every call that has started, then settle this one once it is done
            while not task.done() or not notices.empty():
                if notices.empty():
                    waiter = asyncio.create_task(notices.get())
                    await asyncio.wait({waiter, task}, return_when=asyncio.FIRST_COMPLETED)
                    if not waiter.done():
                        waiter.cancel()
                        continue
                    yield _started(planned[waiter.result()])
                else:
                    yield _started(planned[notices.get_nowait()])
            if task.exception() is not None:
                # a runner failure surfaces after the reads still in flight have finished
                await asyncio.wait(tasks)
            yield _settle(state, task.result(), results)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
