"""Undo: run the declared inverse of a succeeded call, without confirmation, at most once.

An undo is recorded in `ai_tool_undos` (one row per undone execution), not as an execution row:
it is the user's act on a finished call, never part of what the model said or is told, so the
replayed history and the message's settled tool_result turn stay as they were. The row's unique
`execution_id` is the claim — one `INSERT … ON CONFLICT` — so a double tap or a retry runs the
inverse once; a failed undo, or one whose claim went stale, may be claimed again. The inverse's
audit row points at the original's (`reverses_audit_log_id`). Undo rows have no undo: the
inverse's `tool_completed` says `inverseAvailable: false`.

Like every entry point it takes `AgentDeps` (its clock is the run's clock). The inverse runs
through the fenced executor (`approvals.fenced`), fenced on the undo row's claim. Refusals come
before the stream, as JSON: 404 `not_found` (no such call in the caller's
conversation), 422 `undo_not_available` (not succeeded, or no inverse), 422 `undo_already_done`.

An MCP-made write (channel `mcp`: no conversation, owned by the user who made it) is undone the
same way, named by its execution id: from the agent's undo endpoint for executions, or through
the MCP server's undo tool (`claim_execution_undo` + `apply_undo`, which need no `AgentDeps`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from psycopg.types.json import Jsonb

from spotter.agent import events as ev
from spotter.agent.approvals.fenced import execute_fenced
from spotter.agent.call_record import CallRef, tool_completed, tool_started
from spotter.agent.errors import UndoAlreadyDone, UndoNotAvailable, classify, is_refusal
from spotter.agent.executions import (
    CLAIM_TTL,
    FinishedCall,
    own_agent_call,
    own_mcp_call,
    status_of,
)
from spotter.agent.state import AgentDeps
from spotter.auth.caller import Caller
from spotter.db import Conn, Database
from spotter.domain.mentions import ColumnType, Mentions, redact_columns
from spotter.errors import ErrorCode, NotFoundError
from spotter.i18n import error_message
from spotter.observability import current_trace_id, log_event
from spotter.tools.calls import ResolvedCall, ToolOutcome
from spotter.tools.context import Channel
from spotter.tools.errors import CallRefused, DomainError, ToolArgsError
from spotter.tools.registry import ToolRegistry
from spotter.tools.runner import resolve_call


@dataclass(frozen=True)
class ClaimedUndo:
    undo_id: UUID
    claimed_at: datetime
    conversation_id: UUID | None  # None: an MCP call's undo
    tool_use_id: str
    call: ResolvedCall
    reverses_audit_log_id: UUID | None

    @property
    def ref(self) -> CallRef:
        """The undo's own id on the stream, so the client never mistakes it for the original."""
        spec = self.call.spec
        return CallRef(
            f"undo:{self.tool_use_id}", spec.router, spec.action, self.call.executable_input
        )


_CLAIM_SQL = """
INSERT INTO ai_tool_undos (organization_id, conversation_id, execution_id, router, action, input,
                           status, claimed_at)
VALUES (%(org)s, %(conversation)s, %(execution)s, %(router)s, %(action)s, %(input)s, 'running',
        clock_timestamp())
ON CONFLICT (execution_id) DO UPDATE
   SET status = 'running', claimed_at = clock_timestamp(), error = NULL, output = NULL,
       finished_at = NULL
 WHERE ai_tool_undos.status = 'failed'
    OR (ai_tool_undos.status = 'running' AND ai_tool_undos.claimed_at < clock_timestamp() - %(ttl)s)
RETURNING id, claimed_at
"""


def _inverse_call(registry: ToolRegistry, row: FinishedCall) -> ResolvedCall:
    spec = registry.get(row.router, row.action)
    if row.status != "succeeded" or spec is None or spec.inverse is None:
        raise UndoNotAvailable
    inverse = spec.inverse
    try:
        args = inverse.build_input(row.output)
        return resolve_call(registry, inverse.router, {"action": inverse.action, "args": args})
    except (ToolArgsError, CallRefused, DomainError, KeyError, TypeError) as exc:
        raise UndoNotAvailable("This call's inverse cannot be built.") from exc


async def claim_undo(
    deps: AgentDeps, caller: Caller, conversation_id: UUID, tool_use_id: str
) -> ClaimedUndo:
    """Validate and claim before the stream starts; raises the refusals (404 / 422)."""
    async with deps.db.org_tx(caller.org_id) as conn:
        row = await own_agent_call(conn, caller, conversation_id, tool_use_id)
        if row is None:
            raise NotFoundError("No such tool call in your conversations.")
        return await _claim(conn, caller, deps.registry_for(caller), row, conversation_id)


async def claim_execution_undo(
    db: Database, registry: ToolRegistry, caller: Caller, execution_id: UUID
) -> ClaimedUndo:
    """The same for one of the caller's MCP-made calls, named by its execution id."""
    async with db.org_tx(caller.org_id) as conn:
        row = await own_mcp_call(conn, caller, execution_id)
        if row is None:
            raise NotFoundError("No such tool call of yours.")
        return await _claim(conn, caller, registry, row, None)


async def _claim(
    conn: Conn,
    caller: Caller,
    registry: ToolRegistry,
    row: FinishedCall,
    conversation_id: UUID | None,
) -> ClaimedUndo:
    call = _inverse_call(registry, row)
    cur = await conn.execute(
        _CLAIM_SQL,
        {
            "org": caller.org_id,
            "conversation": conversation_id,
            "execution": row.execution_id,
            "router": call.spec.router,
            "action": call.spec.action,
            "input": Jsonb(call.executable_input),
            "ttl": CLAIM_TTL,
        },
    )
    claimed = await cur.fetchone()
    if claimed is None:
        raise UndoAlreadyDone
    return ClaimedUndo(
        claimed["id"], claimed["claimed_at"], conversation_id, row.tool_use_id, call,
        row.audit_log_id,
    )  # fmt: skip


async def apply_undo(
    db: Database, caller: Caller, undo: ClaimedUndo, now: datetime, *, channel: Channel = "agent"
) -> ToolOutcome | None:
    """The inverse, its audit row and the undo row's status in ONE transaction, fenced on the
    undo's claim; None when fenced out (a stale claim taken over: nothing committed)."""

    async def record(conn: Conn, outcome: ToolOutcome) -> bool:
        cur = await conn.execute(
            "UPDATE ai_tool_undos SET status = %s, output = %s, error = %s, audit_log_id = %s,"
            " finished_at = clock_timestamp()"
            " WHERE id = %s AND organization_id = %s AND status = 'running'"
            " AND claimed_at = %s",
            (
                status_of(outcome),  # an inverse is never declined: succeeded or failed
                Jsonb(outcome.output) if outcome.ok else None,
                Jsonb(outcome.error_json) if outcome.error_json else None,
                outcome.audit_log_id,
                undo.undo_id,
                caller.org_id,
                undo.claimed_at,
            ),
        )
        return cur.rowcount == 1

    return await execute_fenced(
        db, caller, now, undo.call, record,
        reverses_audit_log_id=undo.reverses_audit_log_id, channel=channel,
    )  # fmt: skip


async def run_undo(
    deps: AgentDeps, caller: Caller, undo: ClaimedUndo
) -> AsyncIterator[ev.AgentEvent]:
    """tool_started → the inverse (effect, audit, undo row in ONE transaction) → tool_completed
    → done (no model call: zero usage)."""
    conversation_id = str(undo.conversation_id) if undo.conversation_id else None
    yield tool_started(undo.ref)
    code: ErrorCode = UndoAlreadyDone.code  # fenced out: its stale claim was taken over
    failure = "Fenced"
    telemetry = None
    try:
        outcome = await apply_undo(deps.db, caller, undo, deps.clock())
    except Exception as exc:
        outcome, code, failure = None, classify(exc), type(exc).__name__
        if not is_refusal(exc):  # a fault: Sentry sees it, tagged like a run's
            telemetry = deps.telemetry_for(caller, "undo")
            telemetry.failure(exc, code, org_id=str(caller.org_id), conversation_id=conversation_id)
    if outcome is None:
        log_event("agent.undo.failed", level="warning", code=code, error=failure)
        message = error_message(code, caller.locale)
        yield ev.Error(code=code, message=message, trace_id=current_trace_id())
        yield ev.Done(conversation_id=conversation_id)
        if telemetry is not None:
            await telemetry.flush()
        return
    yield tool_completed(undo.ref, outcome)  # an undo is not undone: no inverse offered
    yield ev.Done(conversation_id=conversation_id)


async def erase_mentions(conn: Conn, org_id: UUID, mentions: Mentions) -> None:
    """Member erasure: an undo's input, output and error keep their shape, mentions `[erased]`."""
    columns: dict[str, ColumnType] = {"input": "jsonb", "output": "jsonb", "error": "jsonb"}
    await redact_columns(conn, org_id, "ai_tool_undos", columns, mentions)
