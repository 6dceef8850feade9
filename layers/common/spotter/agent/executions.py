"""Tool calls' execution rows (`ai_tool_executions`): every statement that reads or writes the
table lives here, so a column is added in one module.

A row is one tool call on one channel: `agent` (a call of a conversation's assistant turn:
`conversation_id`, `message_id`, the model's tool_use id) or `mcp` (a tools/call: no
conversation, owned by `actor_user_id`, tool_use id `mcp_<hex>`). Its life:

- **inserted** final (an inline run, a refused call, a cut-off batch) or `pending` (awaiting a
  person, or held behind one) with its validated input, policy columns and card;
- **claimed** before it runs: one conditional update, pending → running with the claim time,
  for a whole batch in one short transaction. Rows are locked in id order (overlapping batches
  queue instead of deadlocking); if any claim is lost the transaction rolls back, releasing the
  ones won;
- **finished** from its outcome (`status_of`, the one outcome → status mapping), fenced on the
  claim (still running, same claim time): an executor that finishes after its row was closed
  changes nothing, and its database-only effect rolls back with it;
- or **closed**: a claim older than `CLAIM_TTL` has no live stream behind it and is closed as
  failed, never re-run (`interrupted_not_applied` for database-only tools, which provably did
  not apply; `interrupted_outcome_unknown` for tools with external effects); calls still
  pending when a new user message goes past them are closed `superseded`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal
from uuid import UUID, uuid4

from psycopg.types.json import Jsonb

from spotter.agent.call_record import CallRef
from spotter.auth.caller import Caller
from spotter.db import Conn, Database
from spotter.domain.mentions import ColumnType, Mentions, redact_columns
from spotter.domain.outbox import CallLink
from spotter.tools.asking import ConfirmPolicy, ToolKind, awaits_approval, awaits_pick
from spotter.tools.calls import ResolvedCall, ToolOutcome
from spotter.tools.cards import Confirmation
from spotter.tools.context import Channel
from spotter.tools.errors import ToolError
from spotter.tools.spec import ToolSpec

ExecutionStatus = Literal["pending", "running", "succeeded", "failed", "rejected_by_user"]
FINAL_STATUSES: frozenset[ExecutionStatus] = frozenset({"succeeded", "failed", "rejected_by_user"})

CLAIM_TTL = timedelta(minutes=2)
# A database-only write commits with its `succeeded` status, so a stale claim never applied it.
NOT_APPLIED = "interrupted_not_applied"
OUTCOME_UNKNOWN = "interrupted_outcome_unknown"
_NOT_APPLIED = ToolError(
    "interrupted_not_applied", "The call was interrupted before it took effect; nothing changed."
)
_OUTCOME_UNKNOWN = ToolError(
    "interrupted_outcome_unknown",
    "The call was interrupted; it may or may not have taken effect. Check first.",
)
SUPERSEDED = ToolError(
    "superseded",
    "The user sent a new message instead of answering; this call did not run and"
    " never will. Ask again if it is still wanted.",
)


def interrupted_error(external_effects: bool) -> ToolError:
    """The error an abandoned claim is closed with (what readers show before the sweep ran)."""
    return _OUTCOME_UNKNOWN if external_effects else _NOT_APPLIED


def status_of(outcome: ToolOutcome) -> ExecutionStatus:
    """The one mapping from what a call gave to its row's status."""
    if outcome.ok:
        return "succeeded"
    if outcome.error is not None and outcome.error.code == "rejected_by_user":
        return "rejected_by_user"
    return "failed"


def card_json(card: Confirmation) -> dict[str, Any]:
    """A confirmation card as a pending row stores it (and every reader shows it)."""
    return card.model_dump(mode="json", by_alias=True, exclude_none=True)


# ---- inserting ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class NewExecution:
    """One row to insert: final (finished now) or `pending` (no finish time). Its policy columns
    come from the tool's spec; a call that never parsed has none and gets the defaults."""

    position: int
    ref: CallRef
    status: ExecutionStatus
    output: Any = None
    error: ToolError | None = None
    audit_log_id: UUID | None = None
    confirmation: dict[str, Any] | None = None
    confirm_policy: ConfirmPolicy = "never"
    kind: ToolKind = "normal"
    external_effects: bool = False
    discarded: bool = False
    id: UUID = field(default_factory=uuid4)  # chosen here: an insert never waits for RETURNING

    @classmethod
    def settled(
        cls,
        position: int,
        ref: CallRef,
        spec: ToolSpec | None,
        outcome: ToolOutcome,
        *,
        discarded: bool = False,
    ) -> NewExecution:
        """The final row of a call that ran, or was refused, before anyone could be asked."""
        return cls._of(
            position, ref, spec,
            status=status_of(outcome), output=outcome.output if outcome.ok else None,
            error=outcome.error, audit_log_id=outcome.audit_log_id, discarded=discarded,
        )  # fmt: skip

    @classmethod
    def pending(
        cls, position: int, ref: CallRef, spec: ToolSpec, card: Confirmation | None
    ) -> NewExecution:
        """A call that awaits a person (with its card, unless a picker) or is held behind one."""
        confirmation = card_json(card) if card is not None else None
        return cls._of(position, ref, spec, status="pending", confirmation=confirmation)

    @classmethod
    def _of(
        cls, position: int, ref: CallRef, spec: ToolSpec | None, *, status: ExecutionStatus,
        **columns: Any,
    ) -> NewExecution:  # fmt: skip
        if ref.execution_id is not None:  # the id the call's events already name
            columns["id"] = ref.execution_id
        if spec is None:
            return cls(position, ref, status, **columns)
        return cls(
            position, ref, status, confirm_policy=spec.confirm, kind=spec.kind,
            external_effects=spec.external_effects, **columns,
        )  # fmt: skip


_INSERT_COLUMNS = (
    "id, organization_id, channel, conversation_id, message_id, actor_user_id, position,"
    " tool_use_id, router, action, input, output, error, status, confirm_policy, kind, discarded,"
    " audit_log_id, confirmation, external_effects, finished_at"
)
_INSERT_ROW = "(" + ", ".join(["%s"] * 20) + ", CASE WHEN %s THEN clock_timestamp() END)"


@dataclass(frozen=True)
class _Owner:
    channel: Channel
    conversation_id: UUID | None = None
    message_id: UUID | None = None
    actor_user_id: UUID | None = None


def _values(org_id: UUID, owner: _Owner, row: NewExecution) -> list[Any]:
    return [
        row.id,
        org_id,
        owner.channel,
        owner.conversation_id,
        owner.message_id,
        owner.actor_user_id,
        row.position,
        row.ref.tool_use_id,
        row.ref.router,
        row.ref.action,
        Jsonb(row.ref.input),
        Jsonb(row.output) if row.output is not None else None,
        Jsonb(row.error.as_json()) if row.error is not None else None,
        row.status,
        row.confirm_policy,
        row.kind,
        row.discarded,
        row.audit_log_id,
        Jsonb(row.confirmation) if row.confirmation is not None else None,
        row.external_effects,
        row.status != "pending",
    ]


async def _insert(conn: Conn, org_id: UUID, owner: _Owner, rows: Sequence[NewExecution]) -> None:
    """One statement for every row; nothing is read back (in a pipelined transaction it costs
    no round trip of its own)."""
    if not rows:
        return
    await conn.execute(
        f"INSERT INTO ai_tool_executions ({_INSERT_COLUMNS}) VALUES "
        + ", ".join([_INSERT_ROW] * len(rows)),
        [v for row in rows for v in _values(org_id, owner, row)],
    )


async def insert_turn_calls(
    conn: Conn,
    org_id: UUID,
    conversation_id: UUID,
    message_id: UUID,
    rows: Sequence[NewExecution],
) -> None:
    """The rows of calls an agent's assistant turn made (channel `agent`)."""
    await _insert(conn, org_id, _Owner("agent", conversation_id, message_id), rows)


async def insert_mcp_call(
    conn: Conn,
    caller: Caller,
    call: ResolvedCall,
    *,
    outcome: ToolOutcome | None = None,
    card: Confirmation | None = None,
    expires_in: timedelta | None = None,
) -> UUID:
    """An MCP call's row (channel `mcp`, owned by the caller): final with its `outcome` (in the
    transaction of its effect and audit row), or pending with its card when there is none, its
    question lapsing after `expires_in` (then the sweep closes it `expired`)."""
    row_id = uuid4()
    spec = call.spec
    ref = CallRef(f"mcp_{row_id.hex}", spec.router, spec.action, call.executable_input, row_id)
    if outcome is None:
        row = NewExecution.pending(0, ref, call.spec, card)
    else:
        row = NewExecution.settled(0, ref, call.spec, outcome)
    await _insert(conn, caller.org_id, _Owner("mcp", actor_user_id=caller.user_id), [row])
    if outcome is None and expires_in is not None:
        await conn.execute(
            "UPDATE ai_tool_executions SET expires_at = clock_timestamp() + %s"
            " WHERE id = %s AND organization_id = %s",
            (expires_in, row_id, caller.org_id),
        )
    return row_id


# ---- claiming, finishing, closing --------------------------------------------------------------


@dataclass(frozen=True)
class Claim:
    execution_id: UUID
    claimed_at: datetime


class _ClaimLost(Exception):
    pass


_CLAIM_SQL = """
UPDATE ai_tool_executions e SET status = 'running', claimed_at = clock_timestamp()
 WHERE e.id IN (SELECT id FROM ai_tool_executions
                 WHERE organization_id = %(org)s AND id = ANY(%(ids)s) AND status = 'pending'
                 ORDER BY id FOR UPDATE)
   AND e.status = 'pending'
RETURNING e.id, e.claimed_at
"""


async def claim_all(db: Database, org_id: UUID, execution_ids: list[UUID]) -> list[Claim] | None:
    """Claim every id or none: None means another request got (at least) one of them first."""
    wanted = set(execution_ids)
    try:
        async with db.org_tx(org_id) as conn:
            cur = await conn.execute(_CLAIM_SQL, {"org": org_id, "ids": list(wanted)})
            won = [Claim(r["id"], r["claimed_at"]) for r in await cur.fetchall()]
            if {c.execution_id for c in won} != wanted:
                raise _ClaimLost
    except _ClaimLost:
        return None
    return won


async def finish_claimed(conn: Conn, org_id: UUID, claim: Claim, outcome: ToolOutcome) -> bool:
    """Record the outcome if this claim still holds the row; False means it was closed meanwhile
    (the caller must then roll back whatever it did in this transaction)."""
    cur = await conn.execute(
        "UPDATE ai_tool_executions SET status = %s, output = %s, error = %s, audit_log_id = %s,"
        " finished_at = clock_timestamp()"
        " WHERE id = %s AND organization_id = %s AND status = 'running' AND claimed_at = %s",
        (
            status_of(outcome),
            Jsonb(outcome.output) if outcome.ok and outcome.output is not None else None,
            Jsonb(outcome.error_json) if outcome.error_json is not None else None,
            outcome.audit_log_id,
            claim.execution_id,
            org_id,
            claim.claimed_at,
        ),
    )
    return cur.rowcount == 1


async def finish_decided(db: Database, org_id: UUID, claim: Claim, outcome: ToolOutcome) -> bool:
    """`finish_claimed` in a transaction of its own, for an outcome decided without running
    anything: a pick, a rejection, a skipped sibling, stored input that no longer validates."""
    async with db.org_tx(org_id) as conn:
        return await finish_claimed(conn, org_id, claim, outcome)


async def adopt_edited_input(
    conn: Conn, org_id: UUID, claim: Claim, edited_input: dict[str, Any]
) -> bool:
    """An approval with edited arguments: they become what runs, fenced on the claim."""
    cur = await conn.execute(
        "UPDATE ai_tool_executions SET input = %s, edited_by_user = true"
        " WHERE id = %s AND organization_id = %s AND status = 'running' AND claimed_at = %s",
        (Jsonb(edited_input), claim.execution_id, org_id, claim.claimed_at),
    )
    return cur.rowcount == 1


async def propose_again(
    conn: Conn, org_id: UUID, execution_id: UUID, edited_input: dict[str, Any], card: Confirmation
) -> bool:
    """A pending call asked again with edited arguments and their card; False: not pending."""
    cur = await conn.execute(
        "UPDATE ai_tool_executions SET input = %s, confirmation = %s"
        " WHERE id = %s AND organization_id = %s AND status = 'pending'",
        (Jsonb(edited_input), Jsonb(card_json(card)), execution_id, org_id),
    )
    return cur.rowcount == 1


async def record_delivery(conn: Conn, org_id: UUID, execution_id: UUID, output: Any) -> None:
    """A succeeded outbound call's output, once its mail was delivered (what the model reads)."""
    await conn.execute(
        "UPDATE ai_tool_executions SET output = %s"
        " WHERE id = %s AND organization_id = %s AND status = 'succeeded'",
        (Jsonb(output), execution_id, org_id),
    )


async def close_abandoned(
    conn: Conn, org_id: UUID, *, message_id: UUID | None = None, ttl: timedelta = CLAIM_TTL
) -> list[UUID]:
    """Close running rows whose claim is older than `ttl` (of one message, or all of the org's,
    MCP calls included); returns the ids of the messages they belong to."""
    cur = await conn.execute(
        "UPDATE ai_tool_executions SET status = 'failed', finished_at = clock_timestamp(),"
        " error = CASE WHEN external_effects THEN %(unknown)s ELSE %(not_applied)s END"
        " WHERE organization_id = %(org)s AND status = 'running'"
        " AND claimed_at < clock_timestamp() - %(ttl)s"
        " AND (%(message)s::uuid IS NULL OR message_id = %(message)s)"
        " RETURNING message_id",
        {
            "unknown": Jsonb(_OUTCOME_UNKNOWN.as_json()),
            "not_applied": Jsonb(_NOT_APPLIED.as_json()),
            "org": org_id,
            "ttl": ttl,
            "message": message_id,
        },
    )
    # MCP calls (channel `mcp`) belong to no message: closed, with nothing to settle.
    rows = await cur.fetchall()
    return list(dict.fromkeys(r["message_id"] for r in rows if r["message_id"] is not None))


async def close_superseded(conn: Conn, org_id: UUID, message_id: UUID) -> None:
    """Every call of the message still pending can never run: failed `superseded`."""
    await conn.execute(
        "UPDATE ai_tool_executions SET status = 'failed', error = %s,"
        " finished_at = clock_timestamp()"
        " WHERE organization_id = %s AND message_id = %s AND status = 'pending'",
        (Jsonb(SUPERSEDED.as_json()), org_id, message_id),
    )


async def orgs_with_abandoned_claims(db: Database, ttl: timedelta = CLAIM_TTL) -> list[UUID]:
    async with db.system_tx() as conn:
        cur = await conn.execute("SELECT spotter_orgs_with_abandoned_claims(%s) AS org_id", (ttl,))
        return [r["org_id"] for r in await cur.fetchall()]


# ---- reading -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PendingCall:
    """An agent call as a decision reads it: the row's ids, call, status and policy."""

    execution_id: UUID
    message_id: UUID
    conversation_id: UUID
    position: int
    tool_use_id: str
    router: str
    action: str
    input: dict[str, Any]
    status: ExecutionStatus
    confirm_policy: ConfirmPolicy
    kind: ToolKind

    @property
    def ref(self) -> CallRef:
        return CallRef(self.tool_use_id, self.router, self.action, self.input, self.execution_id)

    @property
    def link(self) -> CallLink:
        return CallLink(self.execution_id, self.conversation_id, self.tool_use_id)

    @property
    def awaits_approval(self) -> bool:
        return awaits_approval(self.kind, self.confirm_policy)

    @property
    def awaits_pick(self) -> bool:
        return awaits_pick(self.kind)

    @property
    def held(self) -> bool:
        """Stored pending behind a suspending call; it needs no decision of its own."""
        return not (self.awaits_approval or self.awaits_pick)


_PENDING_COLUMNS = (
    "id, message_id, conversation_id, position, tool_use_id, router, action, input, status,"
    " confirm_policy, kind"
)


def _pending(row: dict[str, Any]) -> PendingCall:
    return PendingCall(
        execution_id=row["id"],
        message_id=row["message_id"],
        conversation_id=row["conversation_id"],
        position=row["position"],
        tool_use_id=row["tool_use_id"],
        router=row["router"],
        action=row["action"],
        input=row["input"],
        status=row["status"],
        confirm_policy=row["confirm_policy"],
        kind=row["kind"],
    )


async def load_calls(
    conn: Conn, org_id: UUID, conversation_id: UUID, tool_use_ids: Sequence[str]
) -> dict[str, PendingCall]:
    cur = await conn.execute(
        f"SELECT {_PENDING_COLUMNS} FROM ai_tool_executions"
        " WHERE organization_id = %s AND conversation_id = %s AND tool_use_id = ANY(%s)",
        (org_id, conversation_id, list(tool_use_ids)),
    )
    return {row["tool_use_id"]: _pending(row) for row in await cur.fetchall()}


async def used_tool_use_ids(
    db: Database, org_id: UUID, conversation_id: UUID, tool_use_ids: Sequence[str]
) -> set[str]:
    """Which of these ids the conversation's calls already have (ids are unique in it)."""
    async with db.org_tx(org_id) as conn:
        cur = await conn.execute(
            "SELECT tool_use_id FROM ai_tool_executions"
            " WHERE organization_id = %s AND conversation_id = %s AND tool_use_id = ANY(%s)",
            (org_id, conversation_id, list(tool_use_ids)),
        )
        return {row["tool_use_id"] for row in await cur.fetchall()}


async def message_calls(conn: Conn, org_id: UUID, message_id: UUID) -> list[PendingCall]:
    """Every call of one assistant message, in the message's tool order."""
    cur = await conn.execute(
        f"SELECT {_PENDING_COLUMNS} FROM ai_tool_executions"
        " WHERE organization_id = %s AND message_id = %s ORDER BY position",
        (org_id, message_id),
    )
    return [_pending(row) for row in await cur.fetchall()]


@dataclass(frozen=True)
class McpPendingCall:
    """The caller's own MCP call, as the retry that answers it (or its approval page) reads it."""

    execution_id: UUID
    tool_use_id: str
    router: str
    action: str
    input: dict[str, Any]
    status: ExecutionStatus
    kind: ToolKind
    confirmation: dict[str, Any] | None
    confirm_policy: ConfirmPolicy = "never"
    output: Any = None
    error: dict[str, Any] | None = None
    expires_at: datetime | None = None
    approved_at: datetime | None = None
    reported_at: datetime | None = None
    expired: bool = False  # pending past its `expires_at` (the sweep has not closed it yet)

    @property
    def link(self) -> CallLink:
        return CallLink(self.execution_id)


_MCP_COLUMNS = (
    "id, tool_use_id, router, action, input, status, kind, confirmation, confirm_policy, output,"
    " error, expires_at, approved_at, reported_at,"
    " (status = 'pending' AND expires_at < clock_timestamp()) AS expired"
)


def _mcp_call(row: dict[str, Any] | None) -> McpPendingCall | None:
    if row is None:
        return None
    return McpPendingCall(
        row["id"], row["tool_use_id"], row["router"], row["action"], row["input"], row["status"],
        row["kind"], row["confirmation"], row["confirm_policy"], row["output"], row["error"],
        row["expires_at"], row["approved_at"], row["reported_at"], bool(row["expired"]),
    )  # fmt: skip


async def load_mcp_call(conn: Conn, caller: Caller, execution_id: UUID) -> McpPendingCall | None:
    """The caller's own MCP call by id; another org's or another user's is None."""
    cur = await conn.execute(
        f"SELECT {_MCP_COLUMNS} FROM ai_tool_executions"
        " WHERE organization_id = %s AND id = %s AND channel = 'mcp' AND actor_user_id = %s",
        (caller.org_id, execution_id, caller.user_id),
    )
    return _mcp_call(await cur.fetchone())


async def unreported_mcp_call(
    conn: Conn, caller: Caller, router: str, action: str, call_input: dict[str, Any]
) -> McpPendingCall | None:
    """The caller's latest call of this tool with exactly this input that awaited a person and
    whose end the client was not told yet: what a retry without request state answers from."""
    cur = await conn.execute(
        f"SELECT {_MCP_COLUMNS} FROM ai_tool_executions"
        " WHERE organization_id = %s AND channel = 'mcp' AND actor_user_id = %s"
        " AND router = %s AND action = %s AND input = %s AND expires_at IS NOT NULL"
        " AND reported_at IS NULL ORDER BY created_at DESC, id DESC LIMIT 1",
        (caller.org_id, caller.user_id, router, action, Jsonb(call_input)),
    )
    return _mcp_call(await cur.fetchone())


async def mark_reported(conn: Conn, org_id: UUID, execution_id: UUID) -> None:
    """The client was told how this call ended: a later identical call is a new one."""
    await conn.execute(
        "UPDATE ai_tool_executions SET reported_at = clock_timestamp()"
        " WHERE id = %s AND organization_id = %s AND reported_at IS NULL",
        (execution_id, org_id),
    )


async def approve_mcp_call(conn: Conn, caller: Caller, execution_id: UUID) -> bool:
    """A person approved their own pending MCP call on the approval page: the client's retry
    runs it. False: not theirs, not pending, or its question lapsed."""
    cur = await conn.execute(
        "UPDATE ai_tool_executions SET approved_at = clock_timestamp(), approved_by = %s"
        " WHERE id = %s AND organization_id = %s AND channel = 'mcp' AND actor_user_id = %s"
        " AND status = 'pending' AND expires_at > clock_timestamp()",
        (caller.user_id, execution_id, caller.org_id, caller.user_id),
    )
    return cur.rowcount == 1


EXPIRED = ToolError(
    "expired",
    "Nobody answered this confirmation in time; the call did not run and never will."
    " Call the tool again to ask again.",
)


async def close_expired_mcp(conn: Conn, org_id: UUID, execution_id: UUID | None = None) -> int:
    """Close pending MCP calls whose question lapsed (all of the org's, or one): failed
    `expired`, never run. A claim taken meanwhile wins (the row is no longer pending)."""
    cur = await conn.execute(
        "UPDATE ai_tool_executions SET status = 'failed', error = %s,"
        " finished_at = clock_timestamp()"
        " WHERE organization_id = %s AND channel = 'mcp' AND status = 'pending'"
        " AND expires_at < clock_timestamp() AND (%s::uuid IS NULL OR id = %s)",
        (Jsonb(EXPIRED.as_json()), org_id, execution_id, execution_id),
    )
    return cur.rowcount


async def expire_mcp_call(conn: Conn, org_id: UUID, execution_id: UUID) -> bool:
    """Close one pending MCP call `expired` now: its question was given up (a tools/call stream
    that waited for an answer in vain). False: it was claimed or closed meanwhile."""
    cur = await conn.execute(
        "UPDATE ai_tool_executions SET status = 'failed', error = %s,"
        " finished_at = clock_timestamp()"
        " WHERE id = %s AND organization_id = %s AND channel = 'mcp' AND status = 'pending'",
        (Jsonb(EXPIRED.as_json()), execution_id, org_id),
    )
    return cur.rowcount == 1


async def orgs_with_expired_mcp_calls(db: Database) -> list[UUID]:
    async with db.system_tx() as conn:
        cur = await conn.execute("SELECT spotter_orgs_with_expired_mcp_calls() AS org_id")
        return [r["org_id"] for r in await cur.fetchall()]


@dataclass(frozen=True)
class StoredResult:
    """A final row as the model is told it: ok, and the output (or the error) as stored."""

    tool_use_id: str
    ok: bool
    payload: Any
    input: dict[str, Any]
    edited_by_user: bool
    execution_id: UUID | None = None


def _result(row: dict[str, Any]) -> StoredResult:
    ok = row["status"] == "succeeded"
    return StoredResult(
        row["tool_use_id"], ok, row["output"] if ok else row["error"], row["input"],
        row["edited_by_user"], row["id"],
    )  # fmt: skip


_RESULT_COLUMNS = "id, tool_use_id, status, input, output, error, edited_by_user"


async def message_results(conn: Conn, org_id: UUID, message_id: UUID) -> list[StoredResult] | None:
    """Every call of the message in tool order, once all are final; None while any is not."""
    cur = await conn.execute(
        f"SELECT {_RESULT_COLUMNS} FROM ai_tool_executions"
        " WHERE organization_id = %s AND message_id = %s ORDER BY position",
        (org_id, message_id),
    )
    rows = await cur.fetchall()
    if not rows or any(r["status"] not in FINAL_STATUSES for r in rows):
        return None
    return [_result(r) for r in rows]


async def settled_results(
    conn: Conn, org_id: UUID, conversation_id: UUID, tool_use_ids: list[str]
) -> dict[str, StoredResult]:
    """What the rows say about these calls, for those that are final."""
    cur = await conn.execute(
        f"SELECT {_RESULT_COLUMNS} FROM ai_tool_executions"
        " WHERE organization_id = %s AND conversation_id = %s AND tool_use_id = ANY(%s)"
        " AND status IN ('succeeded', 'failed', 'rejected_by_user')",
        (org_id, conversation_id, tool_use_ids),
    )
    return {r["tool_use_id"]: _result(r) for r in await cur.fetchall()}


async def stored_error(conn: Conn, org_id: UUID, execution_id: UUID) -> ToolError | None:
    """What closed a row under its executor (the sweep's interruption code)."""
    cur = await conn.execute(
        "SELECT error FROM ai_tool_executions WHERE id = %s AND organization_id = %s",
        (execution_id, org_id),
    )
    row = await cur.fetchone()
    return ToolError.from_json(row["error"]) if row and row["error"] else None


@dataclass(frozen=True)
class FinishedCall:
    """A call an undo starts from: its row, what it returned, and its audit row."""

    execution_id: UUID
    tool_use_id: str
    router: str
    action: str
    status: ExecutionStatus
    output: Any
    audit_log_id: UUID | None


_FINISHED_COLUMNS = "e.id, e.tool_use_id, e.router, e.action, e.status, e.output, e.audit_log_id"


def _finished(row: dict[str, Any] | None) -> FinishedCall | None:
    if row is None:
        return None
    return FinishedCall(
        row["id"], row["tool_use_id"], row["router"], row["action"], row["status"], row["output"],
        row["audit_log_id"],
    )  # fmt: skip


async def own_agent_call(
    conn: Conn, caller: Caller, conversation_id: UUID, tool_use_id: str
) -> FinishedCall | None:
    """A call of one of the caller's own conversations; another user's or org's is None."""
    cur = await conn.execute(
        f"SELECT {_FINISHED_COLUMNS}"
        " FROM ai_tool_executions e JOIN ai_conversations c"
        " ON c.id = e.conversation_id AND c.organization_id = e.organization_id"
        " WHERE e.organization_id = %s AND e.conversation_id = %s AND e.tool_use_id = %s"
        " AND c.user_id = %s",
        (caller.org_id, conversation_id, tool_use_id, caller.user_id),
    )
    return _finished(await cur.fetchone())


async def own_mcp_call(conn: Conn, caller: Caller, execution_id: UUID) -> FinishedCall | None:
    """One of the caller's own MCP calls by id; another user's or org's is None."""
    cur = await conn.execute(
        f"SELECT {_FINISHED_COLUMNS} FROM ai_tool_executions e"
        " WHERE e.organization_id = %s AND e.id = %s AND e.channel = 'mcp'"
        " AND e.actor_user_id = %s",
        (caller.org_id, execution_id, caller.user_id),
    )
    return _finished(await cur.fetchone())


async def conversation_calls(
    conn: Conn, org_id: UUID, conversation_id: UUID
) -> list[dict[str, Any]]:
    """Every call of a conversation as the dashboard's loader shows it, in the conversation's
    order (concurrent reads commit in any order, positions do not): `abandoned` when a running
    row's claim is older than `CLAIM_TTL`, `undone` when its undo succeeded."""
    cur = await conn.execute(
        "SELECT e.id, e.message_id, e.tool_use_id, e.router, e.action, e.status, e.input,"
        " e.output, e.error, e.confirmation, e.confirm_policy, e.kind, e.discarded,"
        " e.external_effects,"
        " e.status = 'running' AND e.claimed_at < clock_timestamp() - %s AS abandoned,"
        " u.status = 'succeeded' AS undone"
        " FROM ai_tool_executions e JOIN ai_messages m"
        " ON m.id = e.message_id AND m.organization_id = e.organization_id"
        " LEFT JOIN ai_tool_undos u"
        " ON u.execution_id = e.id AND u.organization_id = e.organization_id"
        " WHERE e.conversation_id = %s AND e.organization_id = %s ORDER BY m.ordinal, e.position",
        (CLAIM_TTL, conversation_id, org_id),
    )
    return list(await cur.fetchall())


async def erase_mentions(conn: Conn, org_id: UUID, mentions: Mentions) -> None:
    """Member erasure: every call of the org, on every channel, keeps its shape with each
    mention of the person `[erased]` (what it was given, returned, failed with, asked)."""
    columns: dict[str, ColumnType] = {
        "input": "jsonb",
        "output": "jsonb",
        "error": "jsonb",
        "confirmation": "jsonb",
    }
    await redact_columns(conn, org_id, "ai_tool_executions", columns, mentions)
