"""MCP execution rows in `ai_tool_executions` (channel `mcp`): no conversation, owned by the
user who made the call. An inline call's row is written in the transaction of its effect; a
call that needs a person is stored `pending` with its card, and claimed like an agent call
(`agent.claims`), so the retry that answers it runs it at most once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from uuid import UUID, uuid4

from psycopg.types.json import Jsonb

from spotter.auth.caller import Caller
from spotter.db import Conn
from spotter.tools.calls import ResolvedCall, ToolOutcome
from spotter.tools.cards import Confirmation

_INSERT = (
    "INSERT INTO ai_tool_executions (organization_id, channel, actor_user_id, position,"
    " tool_use_id, router, action, input, output, error, status, confirm_policy, kind,"
    " audit_log_id, confirmation, external_effects, finished_at)"
    " VALUES (%s, 'mcp', %s, 0, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s,"
    " CASE WHEN %s THEN clock_timestamp() END) RETURNING id"
)


def _values(
    caller: Caller, call: ResolvedCall, status: str, outcome: ToolOutcome | None,
    confirmation: Confirmation | None,
) -> tuple[Any, ...]:  # fmt: skip
    spec = call.spec
    output = outcome.output if outcome is not None and outcome.ok else None
    error = outcome.error if outcome is not None else None
    return (
        caller.org_id,
        caller.user_id,
        f"mcp_{uuid4().hex}",
        spec.router,
        spec.action,
        Jsonb(call.executable_input),
        Jsonb(output) if output is not None else None,
        Jsonb(error) if error is not None else None,
        status,
        spec.confirm,
        spec.kind,
        outcome.audit_log_id if outcome is not None else None,
        Jsonb(confirmation.model_dump(mode="json", by_alias=True)) if confirmation else None,
        spec.external_effects,
        status != "pending",
    )


async def _insert(conn: Conn, values: tuple[Any, ...]) -> UUID:
    cur = await conn.execute(_INSERT, values)
    row = await cur.fetchone()
    assert row is not None
    execution_id: UUID = row["id"]
    return execution_id


async def record_outcome(
    conn: Conn, caller: Caller, call: ResolvedCall, outcome: ToolOutcome
) -> UUID:
    """An inline call's final row, in the same transaction as its effect and audit row."""
    status = "succeeded" if outcome.ok else "failed"
    return await _insert(conn, _values(caller, call, status, outcome, None))


async def store_pending(
    conn: Conn, caller: Caller, call: ResolvedCall, confirmation: Confirmation | None
) -> UUID:
    """A call awaiting the user's answer: its validated input and its server-built card."""
    return await _insert(conn, _values(caller, call, "pending", None, confirmation))


@dataclass(frozen=True)
class PendingMcpCall:
    execution_id: UUID
    router: str
    action: str
    input: dict[str, Any]
    status: str
    kind: str
    confirmation: dict[str, Any] | None


async def load_own(conn: Conn, caller: Caller, execution_id: UUID) -> PendingMcpCall | None:
    """The caller's own MCP call by id; another org's or another user's is None."""
    cur = await conn.execute(
        "SELECT id, router, action, input, status, kind, confirmation FROM ai_tool_executions"
        " WHERE organization_id = %s AND id = %s AND channel = 'mcp' AND actor_user_id = %s",
        (caller.org_id, execution_id, caller.user_id),
    )
    row = await cur.fetchone()
    if row is None:
        return None
    return PendingMcpCall(
        row["id"], row["router"], row["action"], row["input"], row["status"], row["kind"],
        row["confirmation"],
    )  # fmt: skip
