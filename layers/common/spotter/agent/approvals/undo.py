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
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from psycopg.types.json import Jsonb

from spotter.agent import events as ev
from spotter.agent.approvals.claims import CLAIM_TTL
from spotter.agent.approvals.fenced import execute_fenced
from spotter.agent.call_record import CallRef, tool_completed, tool_started
from spotter.agent.errors import UndoAlreadyDone, UndoNotAvailable, classify
from spotter.agent.state import AgentDeps
from spotter.auth.caller import Caller
from spotter.db import Conn
from spotter.errors import ErrorCode, NotFoundError
from spotter.i18n import error_message
from spotter.observability import current_trace_id, log_event
from spotter.tools.calls import ResolvedCall, ToolOutcome
from spotter.tools.errors import DomainError
from spotter.tools.registry import ToolRegistry
from spotter.tools.runner import resolve_call


@dataclass(frozen=True)
class ClaimedUndo:
    undo_id: UUID
    claimed_at: datetime
    conversation_id: UUID
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


async def _execution(
    conn: Conn, caller: Caller, conversation_id: UUID, tool_use_id: str
) -> dict[str, Any]:
    cur = await conn.execute(
        "SELECT e.id, e.router, e.action, e.status, e.output, e.audit_log_id"
        " FROM ai_tool_executions e JOIN ai_conversations c"
        " ON c.id = e.conversation_id AND c.organization_id = e.organization_id"
        " WHERE e.organization_id = %s AND e.conversation_id = %s AND e.tool_use_id = %s"
        " AND c.user_id = %s",
        (caller.org_id, conversation_id, tool_use_id, caller.user_id),
    )
    row = await cur.fetchone()
    if row is None:
        raise NotFoundError("No such tool call in your conversations.")
    return row


def _inverse_call(registry: ToolRegistry, row: dict[str, Any]) -> ResolvedCall:
    spec = registry.get(row["router"], row["action"])
    if row["status"] != "succeeded" or spec is None or spec.inverse is None:
        raise UndoNotAvailable
    inverse = spec.inverse
    try:
        args = inverse.build_input(row["output"])
        return resolve_call(registry, inverse.router, {"action": inverse.action, "args": args})
    except (DomainError, KeyError, TypeError) as exc:
        raise UndoNotAvailable("This call's inverse cannot be built.") from exc


async def claim_undo(
    deps: AgentDeps, caller: Caller, conversation_id: UUID, tool_use_id: str
) -> ClaimedUndo:
    """Validate and claim before the stream starts; raises the refusals (404 / 422)."""
    registry = deps.registry_for(caller)
    async with deps.db.org_tx(caller.org_id) as conn:
        row = await _execution(conn, caller, conversation_id, tool_use_id)
        call = _inverse_call(registry, row)
        cur = await conn.execute(
            _CLAIM_SQL,
            {
                "org": caller.org_id,
                "conversation": conversation_id,
                "execution": row["id"],
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
        claimed["id"], claimed["claimed_at"], conversation_id, tool_use_id, call,
        row["audit_log_id"],
    )  # fmt: skip


async def run_undo(
    deps: AgentDeps, caller: Caller, undo: ClaimedUndo
) -> AsyncIterator[ev.AgentEvent]:
    """tool_started → the inverse (effect, audit, undo row in ONE transaction) → tool_completed
    → done (no model call: zero usage)."""

    async def record(conn: Conn, outcome: ToolOutcome) -> bool:
        cur = await conn.execute(
            "UPDATE ai_tool_undos SET status = %s, output = %s, error = %s, audit_log_id = %s,"
            " finished_at = clock_timestamp()"
            " WHERE id = %s AND organization_id = %s AND status = 'running'"
            " AND claimed_at = %s",
            (
                "succeeded" if outcome.ok else "failed",
                Jsonb(outcome.output) if outcome.ok else None,
                Jsonb(outcome.error) if outcome.error else None,
                outcome.audit_log_id,
                undo.undo_id,
                caller.org_id,
                undo.claimed_at,
            ),
        )
        return cur.rowcount == 1

    yield tool_started(undo.ref)
    code: ErrorCode = UndoAlreadyDone.code  # fenced out: its stale claim was taken over
    failure = "Fenced"
    try:
        outcome = await execute_fenced(
            deps.db, caller, deps.clock(), undo.call, record,
            reverses_audit_log_id=undo.reverses_audit_log_id,
        )  # fmt: skip
    except Exception as exc:
        outcome, code, failure = None, classify(exc), type(exc).__name__
    if outcome is None:
        log_event("agent.undo.failed", level="warning", code=code, error=failure)
        message = error_message(code, caller.locale)
        yield ev.Error(code=code, message=message, trace_id=current_trace_id())
        yield ev.Done(conversation_id=str(undo.conversation_id))
        return
    yield tool_completed(undo.ref, outcome)  # an undo is not undone: no inverse offered
    yield ev.Done(conversation_id=str(undo.conversation_id))
