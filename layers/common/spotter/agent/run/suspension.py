"""Suspending a run: from the first call that needs a person, nothing more runs in this stream.

The suspending call (an approval whose card could be built, or a picker) and every later call of
the same assistant turn are stored `pending` in one transaction: calls needing the user are
announced (`confirmation_pending` with the server-built card, `disambiguation_pending`); the
others are held silently and run when the message is resolved (`approvals.held` says which
is which). A later call
that can never run (bad input, a card that cannot be built) is stored failed right away; the
merged tool_result turn carries its error once the message settles.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Literal, Protocol, cast
from uuid import UUID

from spotter.agent import events as ev
from spotter.agent.approvals import call_fingerprint
from spotter.agent.call_record import CallRef
from spotter.agent.executions import NewExecution, insert_turn_calls
from spotter.agent.state import RunState
from spotter.db import Conn
from spotter.tools.asking import awaits_pick, needs_user
from spotter.tools.calls import ResolvedCall, ToolOutcome
from spotter.tools.cards import Confirmation
from spotter.tools.context import ToolContext
from spotter.tools.errors import TOOL_REFUSALS, ToolError, tool_error
from spotter.tools.previews import what_is_asked
from spotter.tools.spec import ToolSpec

CANNOT_RUN = ToolError("invalid_args", "This call cannot run.")


async def asked_of_the_user(
    ctx: ToolContext, call: ResolvedCall
) -> tuple[ResolvedCall, Confirmation | None]:
    """What the user is asked (`tools.previews.what_is_asked`: an approval's card, or a picker
    named by the server), in a savepoint: one that cannot be built (not_found, validation, or
    worse) leaves the surrounding transaction usable."""
    async with ctx.conn.transaction():
        return await what_is_asked(ctx, call)


def announcement(
    tool_use_id: str, call: ResolvedCall, card: Confirmation | None
) -> ev.ConfirmationPending | ev.DisambiguationPending:
    spec, args = call.spec, call.executable_input["args"]
    if awaits_pick(spec.kind):
        return ev.DisambiguationPending(
            tool_use_id=tool_use_id,
            kind=args["kind"],
            prompt=args["prompt"],
            candidates=[ev.PickCandidate.model_validate(c) for c in args["candidates"]],
            router=spec.router,
            action=spec.action,
        )
    return ev.ConfirmationPending(
        tool_use_id=tool_use_id,
        router=spec.router,
        action=spec.action,
        input=call.executable_input,
        confirm=cast(Literal["destructive", "always"], spec.confirm),
        confirmation=card,
        fingerprint=call_fingerprint(spec.router, spec.action, call.executable_input),
    )


class HeldCall(Protocol):
    """What suspension reads of a planned call (structural: tool_batch imports this)."""

    @property
    def position(self) -> int: ...
    @property
    def ref(self) -> CallRef: ...
    @property
    def spec(self) -> ToolSpec | None: ...
    @property
    def call(self) -> ResolvedCall | None: ...
    @property
    def refusal(self) -> ToolError | None: ...


def _failed_row(p: HeldCall, error: ToolError) -> NewExecution:
    """A later call that can never run: final now; its error reaches the model on settling."""
    return NewExecution.settled(p.position, p.ref, p.spec, ToolOutcome.failed(error))


async def store_suspended(
    state: RunState,
    conn: Conn,
    message_id: UUID,
    first: HeldCall,
    first_call: ResolvedCall,
    first_card: Confirmation | None,
    rest: Sequence[HeldCall],
) -> list[ev.AgentEvent]:
    """Store the suspending call (`first_call` as the user is asked it: `asked_of_the_user`)
    and everything after it; return the announcements."""
    ctx = ToolContext(state.caller, conn, state.now)
    first_ref = replace(first.ref, input=first_call.executable_input)
    rows = [NewExecution.pending(first.position, first_ref, first_call.spec, first_card)]
    announced: list[ev.AgentEvent] = [announcement(first.ref.tool_use_id, first_call, first_card)]
    for p in rest:
        if p.call is None or p.refusal is not None:
            rows.append(_failed_row(p, p.refusal or CANNOT_RUN))
            continue
        call, ref, card = p.call, p.ref, None
        if needs_user(call.spec.kind, call.spec.confirm):
            try:
                call, card = await asked_of_the_user(ctx, call)
            except TOOL_REFUSALS as exc:
                rows.append(_failed_row(p, tool_error(exc)))
                continue
            ref = replace(ref, input=call.executable_input)  # a picker as the server named it
            announced.append(announcement(ref.tool_use_id, call, card))
        rows.append(NewExecution.pending(p.position, ref, call.spec, card))
    await insert_turn_calls(conn, state.caller.org_id, state.conversation_id, message_id, rows)
    state.telemetry.emit(
        "agent.run.suspended",
        awaiting=len(announced),
        held=len(rows) - len(announced),
        **state.ids,
    )
    return announced
