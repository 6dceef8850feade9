"""One tool call as the client and the logs see it: the `tool_started` / `tool_completed`
events and the `agent.tool.executed` telemetry, built here and nowhere else. (Its row in
`ai_tool_executions` is `agent.executions`'.)

Inline runs, seeds and quick actions (`run.tool_batch`), resolution and held siblings
(`approvals`) and undo all go through it, so an event and a log line say the same thing about a
call wherever it ran.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from uuid import UUID

from spotter.agent import events as ev

if TYPE_CHECKING:
    # types only: the dashboard's reads and the sweep import this module's vocabulary
    from spotter.agent.state import RunState
    from spotter.tools.calls import ToolOutcome
    from spotter.tools.spec import ToolSpec


@dataclass(frozen=True)
class CallRef:
    """What every record of a call names: its id, tool, action and the input shown for it (the
    validated, executable input when it parsed; what the model sent otherwise)."""

    tool_use_id: str
    router: str
    action: str
    input: dict[str, Any]
    # the call's row in `ai_tool_executions`, chosen before it is written (None: a call that has
    # no row of its own, such as an undo); `tool_completed` names it, as the loader does
    execution_id: UUID | None = None


def tool_started(ref: CallRef) -> ev.ToolStarted:
    return ev.ToolStarted(
        tool_use_id=ref.tool_use_id, router=ref.router, action=ref.action, input=ref.input
    )


def tool_completed(
    ref: CallRef, outcome: ToolOutcome, *, inverse_available: bool = False
) -> ev.ToolCompleted:
    return ev.ToolCompleted(
        tool_use_id=ref.tool_use_id,
        router=ref.router,
        action=ref.action,
        ok=outcome.ok,
        output=outcome.output if outcome.ok else None,
        error=outcome.error_json,
        inverse_available=outcome.ok and inverse_available,
        execution_id=str(ref.execution_id) if ref.execution_id is not None else None,
    )


def report_executed(
    state: RunState, ref: CallRef, outcome: ToolOutcome, *, duration_ms: float | None = None
) -> None:
    """`agent.tool.executed`: ids, the outcome's code and the duration; never input or output."""
    fields: dict[str, Any] = {
        "router": ref.router,
        "action": ref.action,
        "ok": outcome.ok,
        "code": None if outcome.ok or outcome.error is None else outcome.error.code,
    }
    if duration_ms is not None:
        fields["duration_ms"] = round(duration_ms, 2)
    state.telemetry.emit("agent.tool.executed", **fields, **state.ids)


def executed(
    state: RunState,
    ref: CallRef,
    spec: ToolSpec | None,
    outcome: ToolOutcome,
    *,
    duration_ms: float | None = None,
) -> ev.ToolCompleted:
    """A call that ran: telemetry, the run's write flag, and its `tool_completed`."""
    if outcome.ok and spec is not None and spec.side_effects == "write":
        state.wrote_records = True
    report_executed(state, ref, outcome, duration_ms=duration_ms)
    inverse = spec is not None and spec.inverse is not None
    return tool_completed(ref, outcome, inverse_available=inverse)
