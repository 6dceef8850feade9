"""Applying a suspended message's decisions: confirm, confirm-batch and pick.

close the message's abandoned claims → validate every decision (reads only; a batch error is a
`DecisionError` and nothing runs) → claim them all (lost → `tool_already_resolved`) → apply in
the MESSAGE's tool order (approved: run; rejected: `rejected_by_user`; pick: the choice is the
output) → held siblings (`approvals.held`) → settle ONE tool_result turn. The last item is the
step: `ResumeModel` when this stream's settle appended the merged turn (the model runs once
more, `run.resolve`), else `NothingToResume`.

Every outcome is written fenced on its claim (`approvals.fenced`): a database-only write commits
its domain change, audit row and `succeeded` status together, and rolls back if its row was
closed meanwhile (the sweep). The claim is committed before anything runs, so a crash leaves a
`running` row that is closed, never re-run.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from spotter.agent import events as ev
from spotter.agent.approvals.claims import Claim, claim_all, finish_claimed
from spotter.agent.approvals.decisions import (
    DecisionKind,
    PendingCall,
    load_calls,
    message_calls,
    validate_decisions,
    validate_pick,
)
from spotter.agent.approvals.fenced import execute_fenced
from spotter.agent.approvals.held import SKIPPED, held_ready, skipped_after_rejection
from spotter.agent.approvals.settle import close_and_settle, settle_message
from spotter.agent.call_record import ExecutionStatus, executed, tool_completed, tool_started
from spotter.agent.errors import ToolAlreadyResolved
from spotter.agent.state import RunState
from spotter.db import Conn
from spotter.errors import NotFoundError
from spotter.tools.calls import ToolOutcome
from spotter.tools.errors import DomainError
from spotter.tools.runner import resolve_call

REJECTED = {"code": "rejected_by_user", "message": "The user declined this call; it did not run."}


@dataclass(frozen=True)
class Decision:
    tool_use_id: str
    approved: bool = True
    picked_id: str | None = None  # pick only


@dataclass(frozen=True)
class ResumeModel:
    """This stream settled the message: the model reads the merged results."""


@dataclass(frozen=True)
class NothingToResume:
    """A call still awaits a person or runs under another stream's claim, or another stream
    settled the message first (and resumes the model itself)."""


ResolutionStep = ResumeModel | NothingToResume


async def _own_conversation(conn: Conn, state: RunState) -> None:
    cur = await conn.execute(
        "SELECT 1 FROM ai_conversations WHERE id = %s AND organization_id = %s AND user_id = %s",
        (state.conversation_id, state.caller.org_id, state.caller.user_id),
    )
    if await cur.fetchone() is None:
        raise NotFoundError("No such conversation.")


async def apply_decisions(
    state: RunState, decisions: Sequence[Decision], kind: DecisionKind
) -> AsyncGenerator[ev.AgentEvent | ResolutionStep, None]:
    """Yield each call's events, then the step; raises `NotFoundError` / `DecisionError`."""
    org_id, db = state.caller.org_id, state.deps.db
    ids = [d.tool_use_id for d in decisions]
    async with db.org_tx(org_id) as conn:
        await _own_conversation(conn, state)
        found = await load_calls(conn, org_id, state.conversation_id, ids)
        # a stale claim of this message is closed (never re-run) before anything is decided
        for message_id in {call.message_id for call in found.values()}:
            await close_and_settle(conn, org_id, message_id=message_id)
        calls = await load_calls(conn, org_id, state.conversation_id, ids)
    decided = validate_decisions(calls, ids, kind)
    by_id = {d.tool_use_id: d for d in decisions}
    picks = {
        c.tool_use_id: validate_pick(c, by_id[c.tool_use_id].picked_id or "")
        for c in decided
        if kind == "pick"
    }
    claims = await claim_all(db, org_id, [c.execution_id for c in decided])
    if claims is None:
        raise ToolAlreadyResolved
    claim_of = {claim.execution_id: claim for claim in claims}
    for call in decided:  # the message's order, not the request's
        claim = claim_of[call.execution_id]
        if kind == "pick":
            yield await _record(state, call, claim, "succeeded", output=picks[call.tool_use_id])
        elif by_id[call.tool_use_id].approved:
            yield tool_started(call.ref)
            yield await run_claimed(state, call, claim)
        else:
            yield await _record(state, call, claim, "rejected_by_user", error=REJECTED)
    message_id = decided[0].message_id
    async with aclosing(_run_held(state, message_id)) as held:
        async for event in held:
            yield event
    async with db.org_tx(org_id) as conn:
        settled = await settle_message(conn, org_id, message_id)
    yield ResumeModel() if settled else NothingToResume()


async def _run_held(state: RunState, message_id: UUID) -> AsyncGenerator[ev.AgentEvent, None]:
    """Held siblings, in tool order, once nothing of the message waits for the user."""
    org_id = state.caller.org_id
    async with state.deps.db.org_tx(org_id) as conn:
        calls = await message_calls(conn, org_id, message_id)
    if not held_ready(calls):
        return
    for call in calls:
        if call.status != "pending" or not call.held:
            continue
        claims = await claim_all(state.deps.db, org_id, [call.execution_id])
        if claims is None:
            # another stream won it: it runs this and the ones after it, in order
            return
        if skipped_after_rejection(call, calls):
            yield await _record(state, call, claims[0], "failed", error=SKIPPED)
            continue
        yield tool_started(call.ref)
        yield await run_claimed(state, call, claims[0])


async def run_claimed(state: RunState, call: PendingCall, claim: Claim) -> ev.ToolCompleted:
    """Run a claimed call from its stored input; effect, audit and status in ONE transaction."""
    org_id = state.caller.org_id
    try:
        resolved = resolve_call(state.registry, call.router, call.input)
    except DomainError as exc:
        return await _record(state, call, claim, "failed", error=exc.as_result())

    async def record(conn: Conn, result: ToolOutcome) -> bool:
        return await finish_claimed(
            conn, org_id, claim,
            status="succeeded" if result.ok else "failed",
            output=result.output if result.ok else None,
            error=result.error, audit_log_id=result.audit_log_id,
        )  # fmt: skip

    outcome = await execute_fenced(state.deps.db, state.caller, state.now, resolved, record)
    if outcome is None:
        return await _closed_meanwhile(state, call)
    return executed(state, call.ref, resolved.spec, outcome)


async def _record(
    state: RunState,
    call: PendingCall,
    claim: Claim,
    status: ExecutionStatus,
    *,
    output: Any = None,
    error: dict[str, Any] | None = None,
) -> ev.ToolCompleted:
    """An outcome decided without running anything (a pick, a rejection, a skip)."""
    async with state.deps.db.org_tx(state.caller.org_id) as conn:
        finished = await finish_claimed(
            conn, state.caller.org_id, claim, status=status, output=output, error=error
        )
    if not finished:
        return await _closed_meanwhile(state, call)
    return tool_completed(
        call.ref, ToolOutcome(ok=status == "succeeded", output=output, error=error)
    )


async def _closed_meanwhile(state: RunState, call: PendingCall) -> ev.ToolCompleted:
    """The row was closed under us (the sweep): report the code it was closed with."""
    return tool_completed(call.ref, ToolOutcome(ok=False, error=await _stored_error(state, call)))


async def _stored_error(state: RunState, call: PendingCall) -> dict[str, Any] | None:
    """What closed the row under us (the sweep's interruption code)."""
    async with state.deps.db.org_tx(state.caller.org_id) as conn:
        cur = await conn.execute(
            "SELECT error FROM ai_tool_executions WHERE id = %s AND organization_id = %s",
            (call.execution_id, state.caller.org_id),
        )
        row = await cur.fetchone()
    error: dict[str, Any] | None = row["error"] if row else None
    return error
