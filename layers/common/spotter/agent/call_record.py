"""One tool call's record, built here and nowhere else: its `ai_tool_executions` row, the
`tool_started` / `tool_completed` events, and the `agent.tool.executed` telemetry.

Inline runs, seeds and quick actions (`run.tool_batch`), suspension (`run.suspension`), the cut-off
batch (`run.truncation`), resolution and held siblings (`approvals`) all go through it, so a
row, an event and a log line say the same thing about a call wherever it ran.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal
from uuid import UUID

from psycopg.types.json import Jsonb

from spotter.agent import events as ev
from spotter.auth.caller import Caller
from spotter.db import Conn

if TYPE_CHECKING:
    # types only: the dashboard's reads and the sweep import this module's vocabulary
    from spotter.agent.state import RunState
    from spotter.tools.calls import ToolOutcome
    from spotter.tools.spec import ToolSpec

ExecutionStatus = Literal["pending", "running", "succeeded", "failed", "rejected_by_user"]
FINAL_STATUSES: frozenset[ExecutionStatus] = frozenset({"succeeded", "failed", "rejected_by_user"})


@dataclass(frozen=True)
class CallRef:
    """What every record of a call names: its id, tool, action and the input shown for it (the
    validated, executable input when it parsed; what the model sent otherwise)."""

    tool_use_id: str
    router: str
    action: str
    input: dict[str, Any]


@dataclass(frozen=True)
class ExecutionRow:
    """One `ai_tool_executions` row as a run stores it: settled, or `pending` (awaiting the
    user, or held behind a call that does) with no finish time."""

    message_id: UUID
    position: int
    tool_use_id: str
    router: str
    action: str
    input: Any
    status: ExecutionStatus
    output: Any = None
    error: dict[str, Any] | None = None
    confirm_policy: str = "never"
    kind: str = "normal"
    discarded: bool = False
    audit_log_id: UUID | None = None
    confirmation: dict[str, Any] | None = None  # the server-built card of a pending approval
    external_effects: bool = False


def execution_row(
    message_id: UUID,
    position: int,
    ref: CallRef,
    spec: ToolSpec | None,
    *,
    status: ExecutionStatus,
    output: Any = None,
    error: dict[str, Any] | None = None,
    audit_log_id: UUID | None = None,
    confirmation: dict[str, Any] | None = None,
    discarded: bool = False,
) -> ExecutionRow:
    """The row of `ref`; its policy columns come from the spec (none: a call that never parsed)."""
    return ExecutionRow(
        message_id=message_id,
        position=position,
        tool_use_id=ref.tool_use_id,
        router=ref.router,
        action=ref.action,
        input=ref.input,
        status=status,
        output=output,
        error=error,
        confirm_policy=spec.confirm if spec else "never",
        kind=spec.kind if spec else "normal",
        discarded=discarded,
        audit_log_id=audit_log_id,
        confirmation=confirmation,
        external_effects=spec.external_effects if spec else False,
    )


def outcome_row(
    message_id: UUID, position: int, ref: CallRef, spec: ToolSpec | None, outcome: ToolOutcome
) -> ExecutionRow:
    """The settled row of a call that ran (or was refused) inline."""
    return execution_row(
        message_id, position, ref, spec,
        status="succeeded" if outcome.ok else "failed",
        output=outcome.output if outcome.ok else None,
        error=outcome.error, audit_log_id=outcome.audit_log_id,
    )  # fmt: skip


_EXECUTION_COLUMNS = (
    "organization_id, conversation_id, message_id, position, tool_use_id, router, action, input,"
    " output, error, status, confirm_policy, kind, discarded, audit_log_id, confirmation,"
    " external_effects, finished_at"
)


def _execution_values(caller: Caller, conversation_id: UUID, row: ExecutionRow) -> list[Any]:
    return [
        caller.org_id,
        conversation_id,
        row.message_id,
        row.position,
        row.tool_use_id,
        row.router,
        row.action,
        Jsonb(row.input),
        Jsonb(row.output) if row.output is not None else None,
        Jsonb(row.error) if row.error is not None else None,
        row.status,
        row.confirm_policy,
        row.kind,
        row.discarded,
        row.audit_log_id,
        Jsonb(row.confirmation) if row.confirmation is not None else None,
        row.external_effects,
        row.status != "pending",
    ]


async def insert_executions(
    conn: Conn, caller: Caller, conversation_id: UUID, rows: list[ExecutionRow]
) -> None:
    """Insert execution rows in one statement (settled ones finished now, pending ones not)."""
    if not rows:
        return
    one = "(" + ", ".join(["%s"] * 17) + ", CASE WHEN %s THEN now() END)"
    params = [v for row in rows for v in _execution_values(caller, conversation_id, row)]
    await conn.execute(
        f"INSERT INTO ai_tool_executions ({_EXECUTION_COLUMNS}) VALUES "
        + ", ".join([one] * len(rows)),
        params,
    )


async def settled_outcomes(
    conn: Conn, caller: Caller, conversation_id: UUID, tool_use_ids: list[str]
) -> dict[str, tuple[bool, Any]]:
    """What the execution rows say about these calls: (ok, output or error), if they ran."""
    cur = await conn.execute(
        "SELECT tool_use_id, status, output, error FROM ai_tool_executions"
        " WHERE organization_id = %s AND conversation_id = %s AND tool_use_id = ANY(%s)"
        " AND status IN ('succeeded', 'failed', 'rejected_by_user')",
        (caller.org_id, conversation_id, tool_use_ids),
    )
    return {
        r["tool_use_id"]: (
            r["status"] == "succeeded",
            r["output"] if r["status"] == "succeeded" else r["error"],
        )
        for r in await cur.fetchall()
    }


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
        error=None if outcome.ok else outcome.error,
        inverse_available=outcome.ok and inverse_available,
    )


def report_executed(
    state: RunState, ref: CallRef, outcome: ToolOutcome, *, duration_ms: float | None = None
) -> None:
    """`agent.tool.executed`: ids, the outcome's code and the duration; never input or output."""
    fields: dict[str, Any] = {
        "router": ref.router,
        "action": ref.action,
        "ok": outcome.ok,
        "code": None if outcome.ok else (outcome.error or {}).get("code"),
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
