"""Suspending a run: from the first call that needs a person, nothing more runs in this stream.

The suspending call (an approval whose card could be built, or a picker) and every later call of
the same assistant turn are stored `pending` in one transaction: calls needing the user are
announced (`confirmation_pending` with the server-built card, `disambiguation_pending`); the
others are held silently and run when the message is resolved (`agent.resolution`). A later call
that can never run (bad input, a card that cannot be built) is stored failed right away; the
merged tool_result turn carries its error once the message settles.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, Protocol, cast
from uuid import UUID

from spotter.agent import events as ev
from spotter.agent.history import ExecutionRow, insert_executions
from spotter.agent.run_state import RunState
from spotter.db import Conn
from spotter.tools.calls import ResolvedCall
from spotter.tools.cards import Confirmation
from spotter.tools.context import ToolContext
from spotter.tools.errors import DomainError
from spotter.tools.previews import build_confirmation
from spotter.tools.spec import ToolSpec


def needs_user(spec: ToolSpec) -> bool:
    return spec.kind == "user_picker" or spec.needs_confirmation


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


def pending_row(
    message_id: UUID, position: int, tool_use_id: str, call: ResolvedCall, card: Any
) -> ExecutionRow:
    spec = call.spec
    return ExecutionRow(
        message_id=message_id,
        position=position,
        tool_use_id=tool_use_id,
        router=spec.router,
        action=spec.action,
        input=call.executable_input,
        status="pending",
        confirm_policy=spec.confirm,
        kind=spec.kind,
        confirmation=card.model_dump(mode="json", by_alias=True, exclude_none=True)
        if card
        else None,
        external_effects=spec.external_effects,
    )


class HeldCall(Protocol):
    """What suspension reads of a planned call (structural: tool_execution imports this)."""

    @property
    def position(self) -> int: ...
    @property
    def tool_use_id(self) -> str: ...
    @property
    def router(self) -> str: ...
    @property
    def action(self) -> str: ...
    @property
    def raw_input(self) -> Any: ...
    @property
    def call(self) -> ResolvedCall | None: ...
    @property
    def refusal(self) -> dict[str, Any] | None: ...


def failed_row(message_id: UUID, p: HeldCall, error: dict[str, Any]) -> ExecutionRow:
    """A later call that can never run: final now; its error reaches the model on settling."""
    spec = p.call.spec if p.call else None
    shown = p.call.executable_input if p.call else p.raw_input
    return ExecutionRow(
        message_id=message_id,
        position=p.position,
        tool_use_id=p.tool_use_id,
        router=p.router,
        action=p.action,
        input=shown if isinstance(shown, dict) else {},
        status="failed",
        error=error,
        confirm_policy=spec.confirm if spec else "never",
        kind=spec.kind if spec else "normal",
        external_effects=spec.external_effects if spec else False,
    )


async def store_suspended(
    state: RunState,
    conn: Conn,
    message_id: UUID,
    first: HeldCall,
    first_card: Confirmation | None,
    rest: Sequence[HeldCall],
) -> list[ev.AgentEvent]:
    """Store the suspending call and everything after it; return the announcements."""
    assert first.call is not None
    assert state.conversation_id is not None
    ctx = ToolContext(state.caller, conn, state.now)
    rows = [pending_row(message_id, first.position, first.tool_use_id, first.call, first_card)]
    announced: list[ev.AgentEvent] = [announcement(first.tool_use_id, first.call, first_card)]
    for p in rest:
        if p.call is None or p.refusal is not None:
            error = p.refusal or {"code": "invalid_args", "message": "This call cannot run."}
            rows.append(failed_row(message_id, p, error))
            continue
        card = None
        if p.call.spec.needs_confirmation and p.call.spec.kind != "user_picker":
            try:
                card = await confirmation_card(ctx, p.call)
            except DomainError as exc:
                rows.append(failed_row(message_id, p, exc.as_result()))
                continue
        rows.append(pending_row(message_id, p.position, p.tool_use_id, p.call, card))
        if needs_user(p.call.spec):
            announced.append(announcement(p.tool_use_id, p.call, card))
    await insert_executions(conn, state.caller, state.conversation_id, rows)
    state.telemetry.emit(
        "agent.run.suspended",
        awaiting=len(announced),
        held=len(rows) - len(announced),
        **state.ids,
    )
    return announced
