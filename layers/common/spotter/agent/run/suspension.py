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
from typing import Any, Literal, Protocol, cast
from uuid import UUID

from spotter.agent import events as ev
from spotter.agent.approvals import needs_user
from spotter.agent.call_record import CallRef, ExecutionRow, execution_row, insert_executions
from spotter.agent.state import RunState
from spotter.db import Conn
from spotter.tools.calls import ResolvedCall
from spotter.tools.cards import Confirmation
from spotter.tools.context import ToolContext
from spotter.tools.errors import DomainError
from spotter.tools.previews import build_confirmation
from spotter.tools.spec import ToolSpec

CANNOT_RUN = {"code": "invalid_args", "message": "This call cannot run."}


async def confirmation_card(ctx: ToolContext, call: ResolvedCall) -> Confirmation:
    """The card, in a savepoint: a preview that fails (not_found, validation, or worse) leaves
    the surrounding transaction usable."""
    async with ctx.conn.transaction():
        return await build_confirmation(ctx, call)


def announcement(
    tool_use_id: str, call: ResolvedCall, card: Confirmation | None
) -> ev.ConfirmationPending | ev.DisambiguationPending:
    spec, args = call.spec, call.executable_input["args"]
    if spec.kind == "user_picker":
        return ev.DisambiguationPending(
            tool_use_id=tool_use_id,
            kind=args["kind"],
            prompt=args["prompt"],
            candidates=[ev.PickCandidate.model_validate(c) for c in args["candidates"]],
        )
    return ev.ConfirmationPending(
        tool_use_id=tool_use_id,
        router=spec.router,
        action=spec.action,
        input=call.executable_input,
        confirm=cast(Literal["destructive", "always"], spec.confirm),
        confirmation=card,
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
    def refusal(self) -> dict[str, Any] | None: ...


def _pending_row(
    message_id: UUID, p: HeldCall, call: ResolvedCall, card: Confirmation | None
) -> ExecutionRow:
    confirmation = card.model_dump(mode="json", by_alias=True, exclude_none=True) if card else None
    return execution_row(
        message_id, p.position, p.ref, call.spec, status="pending", confirmation=confirmation
    )


def _failed_row(message_id: UUID, p: HeldCall, error: dict[str, Any]) -> ExecutionRow:
    """A later call that can never run: final now; its error reaches the model on settling."""
    return execution_row(message_id, p.position, p.ref, p.spec, status="failed", error=error)


async def store_suspended(
    state: RunState,
    conn: Conn,
    message_id: UUID,
    first: HeldCall,
    first_call: ResolvedCall,
    first_card: Confirmation | None,
    rest: Sequence[HeldCall],
) -> list[ev.AgentEvent]:
    """Store the suspending call and everything after it; return the announcements."""
    ctx = ToolContext(state.caller, conn, state.now)
    rows = [_pending_row(message_id, first, first_call, first_card)]
    announced: list[ev.AgentEvent] = [announcement(first.ref.tool_use_id, first_call, first_card)]
    for p in rest:
        if p.call is None or p.refusal is not None:
            rows.append(_failed_row(message_id, p, p.refusal or CANNOT_RUN))
            continue
        card = None
        if p.call.spec.needs_confirmation and p.call.spec.kind != "user_picker":
            try:
                card = await confirmation_card(ctx, p.call)
            except DomainError as exc:
                rows.append(_failed_row(message_id, p, exc.as_result()))
                continue
        rows.append(_pending_row(message_id, p, p.call, card))
        if needs_user(p.call.spec):
            announced.append(announcement(p.ref.tool_use_id, p.call, card))
    await insert_executions(conn, state.caller, state.conversation_id, rows)
    state.telemetry.emit(
        "agent.run.suspended",
        awaiting=len(announced),
        held=len(rows) - len(announced),
        **state.ids,
    )
    return announced
