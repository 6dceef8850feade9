"""Resolving a suspended message: confirm, confirm-batch and pick, streamed like a send.

close the message's abandoned claims → validate every decision (reads only; a batch error is an
SSE `error` and nothing runs) → claim them all (lost → `tool_already_resolved`) → apply in the
MESSAGE's tool order (approved: run; rejected: `rejected_by_user`; pick: the choice is the
output) → still waiting for the user? `done` → run held siblings in tool order (each claimed; one
after a declined step fails with `skipped_after_rejection`) → settle ONE tool_result turn →
the model loop once → `done`.

Every outcome is written by `finish_claimed`, fenced on the claim: a database-only write commits
its domain change, audit row and `succeeded` status together, and rolls back if its row was
closed meanwhile (the sweep). The claim is committed before anything runs, so a crash leaves a
`running` row that is closed, never re-run.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from spotter.agent import events as ev
from spotter.agent.claims import Claim, claim_all, finish_claimed
from spotter.agent.decisions import (
    DecisionError,
    DecisionKind,
    PendingCall,
    load_calls,
    message_calls,
    validate_decisions,
    validate_pick,
)
from spotter.agent.error_classifier import classify
from spotter.agent.orchestrator import refresh_search_index, resume_model_loop
from spotter.agent.run_state import AgentDeps, RunState
from spotter.agent.settle import close_and_settle, settle_message
from spotter.agent.turn_preparation import prepare_resume
from spotter.auth.caller import Caller
from spotter.db import Conn
from spotter.errors import ErrorCode, NotFoundError
from spotter.i18n import error_message
from spotter.tools.calls import ToolOutcome
from spotter.tools.context import ToolContext
from spotter.tools.errors import DomainError
from spotter.tools.runner import execute, resolve_call

REJECTED = {"code": "rejected_by_user", "message": "The user declined this call; it did not run."}
SKIPPED = {
    "code": "skipped_after_rejection",
    "message": "Not run: it came after a step the user declined. Ask before doing it anyway.",
}


@dataclass(frozen=True)
class Decision:
    tool_use_id: str
    approved: bool = True
    picked_id: str | None = None  # pick only


@dataclass
class _Outcome:
    resume: bool = False


def confirm(
    deps: AgentDeps, caller: Caller, conversation_id: UUID, tool_use_id: str, approved: bool
) -> AsyncIterator[ev.AgentEvent]:
    return resolve_message(
        deps, caller, conversation_id, [Decision(tool_use_id, approved)], "confirm"
    )


def confirm_batch(
    deps: AgentDeps, caller: Caller, conversation_id: UUID, decisions: Sequence[Decision]
) -> AsyncIterator[ev.AgentEvent]:
    return resolve_message(deps, caller, conversation_id, decisions, "confirm")


def pick(
    deps: AgentDeps, caller: Caller, conversation_id: UUID, tool_use_id: str, picked_id: str
) -> AsyncIterator[ev.AgentEvent]:
    return resolve_message(
        deps, caller, conversation_id, [Decision(tool_use_id, picked_id=picked_id)], "pick"
    )


async def resolve_message(
    deps: AgentDeps,
    caller: Caller,
    conversation_id: UUID,
    decisions: Sequence[Decision],
    kind: DecisionKind,
) -> AsyncIterator[ev.AgentEvent]:
    state = RunState.begin(deps, caller)
    state.conversation_id = conversation_id
    state.resumed = True
    outcome = _Outcome()
    code: ErrorCode | None = None
    try:
        async with aclosing(_resolve(state, decisions, kind, outcome)) as applied:
            async for event in applied:
                yield event
        if outcome.resume:
            await prepare_resume(state)
    except DecisionError as exc:
        code = exc.code
    except Exception as exc:
        code = classify(exc)
        state.telemetry.failure(exc, code, **state.ids)
    if code is not None or not outcome.resume:
        if code is not None:
            message = error_message(code, caller.locale)
            yield ev.Error(code=code, message=message, trace_id=state.trace_id)
        # nothing was asked of the model: zero usage
        yield ev.Done(conversation_id=str(conversation_id))
        await state.telemetry.flush()
        await refresh_search_index(state)
        return
    async with aclosing(resume_model_loop(state)) as loop:
        async for event in loop:
            yield event
    await refresh_search_index(state)


async def _own_conversation(conn: Conn, state: RunState) -> None:
    cur = await conn.execute(
        "SELECT 1 FROM ai_conversations WHERE id = %s AND organization_id = %s AND user_id = %s",
        (state.conversation_id, state.caller.org_id, state.caller.user_id),
    )
    if await cur.fetchone() is None:
        raise NotFoundError("No such conversation.")


async def _resolve(
    state: RunState, decisions: Sequence[Decision], kind: DecisionKind, outcome: _Outcome
) -> AsyncGenerator[ev.AgentEvent, None]:
    org_id, db = state.caller.org_id, state.deps.db
    assert state.conversation_id is not None
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
        raise DecisionError("tool_already_resolved", "That call was already handled.")
    claim_of = {claim.execution_id: claim for claim in claims}
    for call in decided:  # the message's order, not the request's
        claim = claim_of[call.execution_id]
        if kind == "pick":
            yield await _record(state, call, claim, "succeeded", output=picks[call.tool_use_id])
        elif by_id[call.tool_use_id].approved:
            yield _started(call)
            yield await _run_claimed(state, call, claim)
        else:
            yield await _record(state, call, claim, "rejected_by_user", error=REJECTED)
    message_id = decided[0].message_id
    async with aclosing(_run_held(state, message_id)) as held:
        async for event in held:
            yield event
    async with db.org_tx(org_id) as conn:
        # False while a call waits for the user or runs under another stream's live claim, or
        # when another stream settled it first (and resumes the model itself)
        outcome.resume = await settle_message(conn, org_id, message_id)


async def _run_held(state: RunState, message_id: UUID) -> AsyncGenerator[ev.AgentEvent, None]:
    """Held siblings, in tool order, once nothing of the message waits for the user."""
    org_id = state.caller.org_id
    async with state.deps.db.org_tx(org_id) as conn:
        calls = await message_calls(conn, org_id, message_id)
    if any(c.status == "pending" and not c.held for c in calls):
        return
    declined = [c.position for c in calls if c.status == "rejected_by_user"]
    for call in calls:
        if call.status != "pending" or not call.held:
            continue
        claims = await claim_all(state.deps.db, org_id, [call.execution_id])
        if claims is None:
            # another stream won it: it runs this and the ones after it, in order
            return
        if declined and call.position > min(declined):
            yield await _record(state, call, claims[0], "failed", error=SKIPPED)
            continue
        yield _started(call)
        yield await _run_claimed(state, call, claims[0])


class _Fenced(Exception):
    """The row was closed while this executor ran: roll its transaction back."""


async def _run_claimed(state: RunState, call: PendingCall, claim: Claim) -> ev.ToolCompleted:
    """Run a claimed call from its stored input; effect, audit and status in ONE transaction."""
    org_id = state.caller.org_id
    try:
        resolved = resolve_call(state.registry, call.router, call.input)
    except DomainError as exc:
        return await _record(state, call, claim, "failed", error=exc.as_result())
    try:
        async with state.deps.db.org_tx(org_id) as conn:
            result = await execute(ToolContext(state.caller, conn, state.now), resolved)
            finished = await finish_claimed(
                conn, org_id, claim,
                status="succeeded" if result.ok else "failed",
                output=result.output if result.ok else None,
                error=result.error, audit_log_id=result.audit_log_id,
            )  # fmt: skip
            if not finished:
                raise _Fenced
        if result.ok and resolved.spec.side_effects == "write":
            state.wrote_records = True
    except _Fenced:
        return _completed(call, ToolOutcome(ok=False, error=await _stored_error(state, call)))
    state.telemetry.emit(
        "agent.tool.executed",
        router=call.router,
        action=call.action,
        ok=result.ok,
        code=None if result.ok else (result.error or {}).get("code"),
        **state.ids,
    )
    return _completed(call, result, inverse=resolved.spec.inverse is not None)


async def _record(
    state: RunState,
    call: PendingCall,
    claim: Claim,
    status: str,
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
        return _completed(call, ToolOutcome(ok=False, error=await _stored_error(state, call)))
    return _completed(call, ToolOutcome(ok=status == "succeeded", output=output, error=error))


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


def _started(call: PendingCall) -> ev.ToolStarted:
    return ev.ToolStarted(
        tool_use_id=call.tool_use_id, router=call.router, action=call.action, input=call.input
    )


def _completed(
    call: PendingCall, outcome: ToolOutcome, *, inverse: bool = False
) -> ev.ToolCompleted:
    return ev.ToolCompleted(
        tool_use_id=call.tool_use_id,
        router=call.router,
        action=call.action,
        ok=outcome.ok,
        output=outcome.output if outcome.ok else None,
        error=None if outcome.ok else outcome.error,
        inverse_available=outcome.ok and inverse,
    )
