"""Applying a suspended message's decisions: confirm, confirm-batch and pick.

close the message's abandoned claims → validate every decision (reads only; a batch error is a
`DecisionError` and nothing runs) → claim them all (lost → `tool_already_resolved`) → apply in
the MESSAGE's tool order (approved: run; rejected: `rejected_by_user`; pick: the choice is the
output) → held siblings (`approvals.held`) → settle ONE tool_result turn. The events go on the
run's emitter; the step is returned: `ResumeModel` when this stream's settle appended the merged
turn (the model runs once more, `run.resolve`), else `NothingToResume`.

Every outcome is written fenced on its claim (`approvals.fenced`): a database-only write commits
its domain change, audit row and `succeeded` status together, and rolls back if its row was
closed meanwhile (the sweep). The claim is committed before anything runs, so a crash leaves a
`running` row that is closed, never re-run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, cast
from uuid import UUID

from spotter.agent import events as ev
from spotter.agent.approvals.claimed import run_claimed as run_claimed_call
from spotter.agent.approvals.decisions import DecisionKind, validate_decisions, validate_pick
from spotter.agent.approvals.fingerprint import call_fingerprint
from spotter.agent.approvals.held import SKIPPED, held_ready, skipped_after_rejection
from spotter.agent.approvals.settle import close_and_settle, settle_message
from spotter.agent.call_record import executed, tool_completed, tool_started
from spotter.agent.errors import ConfirmationStale, InvalidEditedArgs, ToolAlreadyResolved
from spotter.agent.executions import (
    Claim,
    PendingCall,
    adopt_edited_input,
    claim_all,
    finish_decided,
    load_calls,
    message_calls,
    propose_again,
    stored_error,
)
from spotter.agent.state import RunState
from spotter.agent.stream import Emitter
from spotter.db import Conn
from spotter.errors import NotFoundError
from spotter.tools.calls import ResolvedCall, ToolOutcome
from spotter.tools.cards import Confirmation
from spotter.tools.context import ToolContext
from spotter.tools.errors import TOOL_REFUSALS, ToolError
from spotter.tools.previews import build_confirmation
from spotter.tools.runner import resolve_call

REJECTED = ToolError("rejected_by_user", "The user declined this call; it did not run.")


@dataclass(frozen=True)
class Decision:
    tool_use_id: str
    approved: bool = True
    picked_id: str | None = None  # pick only
    args: dict[str, Any] | None = None  # approved with these arguments instead of the model's
    reason: str | None = None  # why it was declined: the model reads it, logs never do
    fingerprint: str | None = None  # the card the decision was made on

    @property
    def kind(self) -> DecisionKind:
        return "pick" if self.picked_id is not None else "confirm"


@dataclass(frozen=True)
class Edit:
    """An approval with edited arguments, validated and previewed again."""

    input: dict[str, Any]
    card: Confirmation
    same_effect: bool  # the target and effect are the card's: it runs; else it is asked again


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
    state: RunState, events: Emitter, decisions: Sequence[Decision], kind: DecisionKind | None
) -> ResolutionStep:
    """Emit each call's events; return the step. Raises `NotFoundError` / `DecisionError`.
    `kind`: what every decision must be; None: each its own (a pick names its choice)."""
    org_id, db = state.caller.org_id, state.deps.db
    ids = [d.tool_use_id for d in decisions]
    async with db.org_tx(org_id) as conn:
        await _own_conversation(conn, state)
        found = await load_calls(conn, org_id, state.conversation_id, ids)
        # a stale claim of this message is closed (never re-run) before anything is decided
        for message_id in {call.message_id for call in found.values()}:
            await close_and_settle(conn, org_id, message_id=message_id)
        calls = await load_calls(conn, org_id, state.conversation_id, ids)
    by_id = {d.tool_use_id: d for d in decisions}
    kind_of = {tid: kind or by_id[tid].kind for tid in ids}
    decided = validate_decisions(calls, ids, kind_of)
    for call in decided:
        shown = by_id[call.tool_use_id].fingerprint
        if shown is not None and shown != call_fingerprint(call.router, call.action, call.input):
            raise ConfirmationStale
    picks = {
        c.tool_use_id: validate_pick(c, by_id[c.tool_use_id].picked_id or "")
        for c in decided
        if kind_of[c.tool_use_id] == "pick"
    }
    edits = {
        c.tool_use_id: await _edit(state, c, edited)
        for c in decided
        if by_id[c.tool_use_id].approved and (edited := by_id[c.tool_use_id].args) is not None
    }
    for call in decided:  # a changed target or effect is asked again, never run
        edit = edits.get(call.tool_use_id)
        if edit is not None and not edit.same_effect:
            events.emit(await _ask_again(state, call, edit))
    decided = [c for c in decided if c.tool_use_id not in edits or edits[c.tool_use_id].same_effect]
    if not decided:
        return NothingToResume()
    claims = await claim_all(db, org_id, [c.execution_id for c in decided])
    if claims is None:
        raise ToolAlreadyResolved
    claim_of = {claim.execution_id: claim for claim in claims}
    for call in decided:  # the message's order, not the request's
        claim = claim_of[call.execution_id]
        decision = by_id[call.tool_use_id]
        if kind_of[call.tool_use_id] == "pick":
            events.emit(
                await _record(state, call, claim, ToolOutcome.succeeded(picks[call.tool_use_id]))
            )
        elif decision.approved:
            edit = edits.get(call.tool_use_id)
            if edit is not None:
                adopted = await _adopt_edit(state, call, claim, edit)
                if adopted is None:
                    events.emit(await _closed_meanwhile(state, call))
                    continue
                call = adopted
            events.emit(tool_started(call.ref))
            events.emit(await run_claimed(state, call, claim))
        else:
            rejected = replace(REJECTED, reason=decision.reason)
            events.emit(await _record(state, call, claim, ToolOutcome.failed(rejected)))
    message_id = decided[0].message_id
    await _run_held(state, events, message_id)
    async with db.org_tx(org_id) as conn:
        settled = await settle_message(conn, org_id, message_id)
    return ResumeModel() if settled else NothingToResume()


def _effect(card: Confirmation) -> dict[str, Any]:
    """What an approval is about: everything on the card but the exact-arguments review."""
    return card.model_dump(mode="json", exclude={"arguments"})


async def _card(ctx: ToolContext, call: ResolvedCall) -> Confirmation:
    async with ctx.conn.transaction():  # a savepoint: a failing preview leaves the tx usable
        return await build_confirmation(ctx, call)


async def _edit(state: RunState, call: PendingCall, args: dict[str, Any]) -> Edit:
    """Validate edited arguments with the action's own args model and preview both versions;
    an edit that cannot be validated or shown refuses the batch (`invalid_edited_args`)."""
    try:
        edited = resolve_call(state.registry, call.router, {"action": call.action, "args": args})
        original = resolve_call(state.registry, call.router, call.input)
    except TOOL_REFUSALS as exc:
        raise InvalidEditedArgs from exc
    async with state.deps.db.org_tx(state.caller.org_id) as conn:
        ctx = ToolContext(state.caller, conn, state.now)
        try:
            after = await _card(ctx, edited)
        except TOOL_REFUSALS as exc:
            raise InvalidEditedArgs from exc
        try:
            before: Confirmation | None = await _card(ctx, original)
        except TOOL_REFUSALS:
            before = None  # what was shown cannot be built any more: the edit is a new card
    same = before is not None and _effect(before) == _effect(after)
    return Edit(edited.executable_input, after, same)


async def _ask_again(state: RunState, call: PendingCall, edit: Edit) -> ev.ConfirmationPending:
    """The edited call, still pending, with its fresh card (and fingerprint) in place of the
    old one: the next decision is about what will really run."""
    org_id = state.caller.org_id
    async with state.deps.db.org_tx(org_id) as conn:
        if not await propose_again(conn, org_id, call.execution_id, edit.input, edit.card):
            raise ToolAlreadyResolved
    return ev.ConfirmationPending(
        tool_use_id=call.tool_use_id,
        router=call.router,
        action=call.action,
        input=edit.input,
        confirm=cast(Literal["destructive", "always"], call.confirm_policy),
        confirmation=edit.card,
        fingerprint=call_fingerprint(call.router, call.action, edit.input),
    )


async def _adopt_edit(
    state: RunState, call: PendingCall, claim: Claim, edit: Edit
) -> PendingCall | None:
    """Store the edited input as what runs, fenced on the claim (None: closed meanwhile)."""
    async with state.deps.db.org_tx(state.caller.org_id) as conn:
        if not await adopt_edited_input(conn, state.caller.org_id, claim, edit.input):
            return None
    return replace(call, input=edit.input)


async def _run_held(state: RunState, events: Emitter, message_id: UUID) -> None:
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
            events.emit(await _record(state, call, claims[0], ToolOutcome.failed(SKIPPED)))
            continue
        events.emit(tool_started(call.ref))
        events.emit(await run_claimed(state, call, claims[0]))


async def run_claimed(state: RunState, call: PendingCall, claim: Claim) -> ev.ToolCompleted:
    """Run a claimed call from its stored input (`approvals.claimed`: effect, audit and status
    in ONE transaction, then its mail delivered)."""
    ran = await run_claimed_call(
        state.deps.db, state.caller, state.now, state.registry, call, claim,
        sender=state.deps.email_sender,
    )  # fmt: skip
    if ran is None:
        return await _closed_meanwhile(state, call)
    if ran.spec is None:  # its stored input no longer resolves: failed, nothing ran
        return tool_completed(call.ref, ran.outcome)
    return executed(state, call.ref, ran.spec, ran.outcome)


async def _record(
    state: RunState, call: PendingCall, claim: Claim, outcome: ToolOutcome
) -> ev.ToolCompleted:
    """An outcome decided without running anything (a pick, a rejection, a skip)."""
    if not await finish_decided(state.deps.db, state.caller.org_id, claim, outcome):
        return await _closed_meanwhile(state, call)
    return tool_completed(call.ref, outcome)


async def _closed_meanwhile(state: RunState, call: PendingCall) -> ev.ToolCompleted:
    """The row was closed under us (the sweep): report the code it was closed with."""
    org_id = state.caller.org_id
    async with state.deps.db.org_tx(org_id) as conn:
        error = await stored_error(conn, org_id, call.execution_id)
    return tool_completed(call.ref, ToolOutcome(ok=False, error=error))
