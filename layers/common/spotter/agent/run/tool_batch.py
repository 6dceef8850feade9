"""Running one assistant turn's tool calls: plan, execute (reads side by side), settle in order.

Each call runs in its own org transaction that also writes its `ai_tool_executions` row, so a
database-only write and its execution row commit together or not at all. Results are settled —
row, `tool_completed`, tool_result block — strictly in tool_use order. The batch's last item is
its step: `BatchResults` (in tool_use order) or `BatchSuspended`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import dataclass, replace
from typing import Any
from uuid import UUID

from spotter.agent import events as ev
from spotter.agent.approvals import needs_user
from spotter.agent.call_record import (
    CallRef,
    executed,
    insert_executions,
    outcome_row,
    tool_started,
)
from spotter.agent.run.steps import BatchResults, BatchStep, BatchSuspended
from spotter.agent.run.suspension import confirmation_card, store_suspended
from spotter.agent.state import RunState
from spotter.agent.transcript import tool_result_block
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

    @property
    def ref(self) -> CallRef:
        return CallRef(self.tool_use_id, self.router, self.action, self.shown_input)


def plan_calls(
    state: RunState,
    tool_uses: list[dict[str, Any]],
    refused: dict[str, dict[str, Any]] | None = None,
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


@dataclass(frozen=True)
class Settled:
    planned: PlannedCall
    outcome: ToolOutcome
    duration_ms: float


async def _run_one(state: RunState, message_id: UUID, p: PlannedCall) -> Settled:
    started = time.perf_counter()
    async with state.deps.db.org_tx(state.caller.org_id) as conn:
        if p.call is None or p.refusal is not None:
            outcome = ToolOutcome(ok=False, error=p.refusal)
        else:
            outcome = await execute(ToolContext(state.caller, conn, state.now), p.call)
        row = outcome_row(message_id, p.position, p.ref, p.spec, outcome)
        await insert_executions(conn, state.caller, state.conversation_id, [row])
    return Settled(p, outcome, (time.perf_counter() - started) * 1000)


def _settle(state: RunState, settled: Settled, results: list[dict[str, Any]]) -> ev.ToolCompleted:
    p, outcome = settled.planned, settled.outcome
    results.append(
        tool_result_block(
            p.tool_use_id, outcome.ok, outcome.output if outcome.ok else outcome.error
        )
    )
    return executed(state, p.ref, p.spec, outcome, duration_ms=settled.duration_ms)


async def run_tool_calls(
    state: RunState, message_id: UUID, planned: list[PlannedCall]
) -> AsyncGenerator[ev.AgentEvent | BatchStep, None]:
    """Run the batch, yielding tool_started / tool_completed, then its step: the results in
    tool_use order, or suspended at the first call that needs the user."""
    results: list[dict[str, Any]] = []
    if not runs_concurrently(planned):
        for index, p in enumerate(planned):
            if p.needs_user and p.call is not None:
                rest = planned[index + 1 :]
                suspension = await _suspend_at(state, message_id, p, p.call, rest)
                if isinstance(suspension, list):
                    for event in suspension:
                        yield event
                    yield BatchSuspended()
                    return
                # its card could not be built: a failed call the model reads, and on we go
                p = replace(p, refusal=suspension)
            yield tool_started(p.ref)
            yield _settle(state, await _run_one(state, message_id, p), results)
        yield BatchResults(results)
        return
    async with aclosing(_run_reads_concurrently(state, message_id, planned, results)) as events:
        async for event in events:
            yield event
    yield BatchResults(results)


async def _suspend_at(
    state: RunState, message_id: UUID, first: PlannedCall, call: ResolvedCall,
    rest: list[PlannedCall],
) -> list[ev.AgentEvent] | dict[str, Any]:  # fmt: skip
    """Suspend at `first`: its card (a picker has none) and the pending rows in one
    transaction, returning the announcements; the card's error, storing nothing, when it cannot
    be built (nobody is asked to approve a call that cannot succeed)."""
    async with state.deps.db.org_tx(state.caller.org_id) as conn:
        card = None
        if call.spec.kind != "user_picker":
            try:
                card = await confirmation_card(ToolContext(state.caller, conn, state.now), call)
            except DomainError as exc:
                return exc.as_result()
        return await store_suspended(state, conn, message_id, first, call, card, rest)


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
                    yield tool_started(planned[waiter.result()].ref)
                else:
                    yield tool_started(planned[notices.get_nowait()].ref)
            if task.exception() is not None:
                # a runner failure surfaces after the reads still in flight have finished
                await asyncio.wait(tasks)
            yield _settle(state, task.result(), results)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
