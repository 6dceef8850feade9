"""One MCP tools/call: run it inline, or ask the user through the multi round-trip flow.

- A read or a `never`-confirm write runs through the tool runner in ONE transaction with its
  execution row (channel `mcp`) and audit row.
- A `destructive` / `always` call, or a picker, does not run: its card is built on the server,
  the call is stored `pending`, and the answer is an input-required result whose request state
  names that row (the SDK's boundary seals it, binding it to this tool, these arguments, this
  user and org, and a TTL). The retry carrying the user's answer claims the row exactly as a
  dashboard confirm does (`agent.approvals.claims`): a second retry, a replayed state or an
  answer for another org's row finds nothing pending and runs nothing.
- A client that cannot elicit is told to confirm in the dashboard; nothing is stored.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from mcp_types import (
    CallToolResult,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    InputRequiredResult,
    InputResponse,
)

from spotter.agent.approvals.claims import Claim, claim_all, finish_claimed
from spotter.agent.approvals.fenced import execute_fenced
from spotter.agent.approvals.resolution import REJECTED
from spotter.agent.call_record import ExecutionStatus
from spotter.auth.caller import Caller
from spotter.db import Conn, Database
from spotter.mcp import ledger
from spotter.mcp.catalog import UNDO_TOOL, catalog_for
from spotter.mcp.results import error_result, outcome_error, outcome_result
from spotter.mcp.undo import undo_tool
from spotter.observability import log_event
from spotter.tools.calls import ResolvedCall, ToolOutcome
from spotter.tools.cards import Confirmation
from spotter.tools.context import ToolContext
from spotter.tools.errors import DomainError
from spotter.tools.previews import build_confirmation
from spotter.tools.registry import registry_for_caller
from spotter.tools.runner import execute, resolve_call
from spotter.tools.spec import ToolSpec

CONFIRM_KEY = "confirm"
PICK_KEY = "pick"
CONFIRM_IN_DASHBOARD = (
    "{tool} needs your confirmation, and this MCP client cannot ask for it."
    " Nothing was changed: confirm it in the Spotter dashboard (ask Spotter there)."
)
ALREADY_RESOLVED = "That call was already handled."


@dataclass(frozen=True)
class McpCall:
    caller: Caller
    name: str
    arguments: dict[str, Any]
    can_elicit: bool
    request_state: str | None = None
    input_responses: dict[str, InputResponse] | None = None


async def call_tool(
    db: Database, request: McpCall, *, now: datetime | None = None
) -> CallToolResult | InputRequiredResult:
    caller = request.caller
    if not caller.is_staff:
        return error_result("staff_only", "Spotter is available to staff only.")
    at = now or datetime.now(UTC)
    if request.name == UNDO_TOOL:
        return await undo_tool(db, caller, request.arguments, now=at)
    spec = catalog_for(caller.role, caller.day_grain_programming).specs.get(request.name)
    if spec is None:
        return error_result("unknown_tool", f"There is no tool {request.name}.")
    if request.request_state is not None:
        return await _answer(db, request, spec, at)
    try:
        call = resolve_call(
            registry_for_caller(caller), spec.router,
            {"action": spec.action, "args": request.arguments},
        )  # fmt: skip
    except DomainError as exc:
        return outcome_error(exc.as_result())
    if spec.needs_confirmation or spec.kind == "user_picker":
        return await _ask(db, request, call, at)
    return await _inline(db, caller, call, at)


async def _inline(db: Database, caller: Caller, call: ResolvedCall, at: datetime) -> CallToolResult:
    async with db.org_tx(caller.org_id) as conn:
        outcome = await execute(ToolContext(caller, conn, at, channel="mcp"), call)
        execution_id = await ledger.record_outcome(conn, caller, call, outcome)
    _log(call.spec, outcome.ok, outcome.error)
    return outcome_result(call.spec, outcome, execution_id)


def _card_message(spec: ToolSpec, card: dict[str, Any]) -> str:
    """What the user reads before approving: the server's card, never model prose."""
    lines = [f"Approve {spec.name}?"]
    if card.get("target"):
        lines.append(f"Target: {card['target']}")
    if card.get("affectedCount") is not None:
        lines.append(f"Affects: {card['affectedCount']}")
    if card.get("consequences"):
        lines.append("Consequences: " + ", ".join(card["consequences"]))
    for change in card.get("changes") or []:
        lines.append(f"Change: {json.dumps(change, ensure_ascii=False, default=str)}")
    if card.get("outbound"):
        lines.append(f"Sends: {json.dumps(card['outbound'], ensure_ascii=False, default=str)}")
    lines.append("Arguments:")
    lines += [
        f"  {a['field']}: {json.dumps(a['value'], ensure_ascii=False, default=str)}"
        for a in card.get("arguments", [])
    ]
    return "\n".join(lines)


def _input_required(
    spec: ToolSpec, stored_input: dict[str, Any], card: dict[str, Any] | None, execution_id: UUID,
    org_id: UUID,
) -> InputRequiredResult:  # fmt: skip
    """The question for the user and the state naming the pending row (sealed by the SDK)."""
    if spec.kind == "user_picker":
        args = stored_input.get("args", {})
        options = [{"const": str(c["id"]), "title": str(c["label"])} for c in args["candidates"]]
        key, params = (
            PICK_KEY,
            ElicitRequestFormParams(
                message=str(args["prompt"]),
                requested_schema={
                    "type": "object",
                    "properties": {"pick": {"type": "string", "title": "Choice", "oneOf": options}},
                    "required": ["pick"],
                },
            ),
        )
    else:
        key, params = (
            CONFIRM_KEY,
            ElicitRequestFormParams(
                message=_card_message(spec, card or {}),
                requested_schema={
                    "type": "object",
                    "properties": {"approved": {"type": "boolean", "title": "Approve"}},
                    "required": ["approved"],
                },
            ),
        )
    state = json.dumps({"executionId": str(execution_id), "orgId": str(org_id)})
    # The card also travels as data beside the question (the SDK keeps a result's `_meta`, not
    # an embedded request's): a client may render it itself.
    meta = {"spotter/confirmation": card, "spotter/confirm": spec.confirm} if card else None
    return InputRequiredResult(
        input_requests={key: ElicitRequest(params=params)}, request_state=state, _meta=meta
    )


async def _ask(
    db: Database, request: McpCall, call: ResolvedCall, at: datetime
) -> CallToolResult | InputRequiredResult:
    spec, caller = call.spec, request.caller
    if not request.can_elicit:
        return error_result("confirmation_required", CONFIRM_IN_DASHBOARD.format(tool=spec.name))
    card: Confirmation | None = None
    async with db.org_tx(caller.org_id) as conn:
        if spec.kind != "user_picker":
            try:
                async with conn.transaction():  # a card that cannot be built stores nothing
                    card = await build_confirmation(ToolContext(caller, conn, at, "mcp"), call)
            except DomainError as exc:
                return outcome_error(exc.as_result())
        execution_id = await ledger.store_pending(conn, caller, call, card)
    card_json = card.model_dump(mode="json", by_alias=True) if card else None
    return _input_required(spec, call.executable_input, card_json, execution_id, caller.org_id)


def _named_row(state: str, caller: Caller) -> UUID | None:
    """The execution id our state names, if it is well formed and for the caller's org."""
    try:
        decoded = json.loads(state)
        execution_id, org_id = UUID(decoded["executionId"]), UUID(decoded["orgId"])
    except (ValueError, KeyError, TypeError):
        return None
    return execution_id if org_id == caller.org_id else None


async def _answer(
    db: Database, request: McpCall, spec: ToolSpec, at: datetime
) -> CallToolResult | InputRequiredResult:
    caller = request.caller
    assert request.request_state is not None
    execution_id = _named_row(request.request_state, caller)
    if execution_id is None:
        return error_result("not_found", "No such pending call.")
    async with db.org_tx(caller.org_id) as conn:
        row = await ledger.load_own(conn, caller, execution_id)
    if row is None or (row.router, row.action) != (spec.router, spec.action):
        return error_result("not_found", "No such pending call.")
    if row.status != "pending":
        return error_result("tool_already_resolved", ALREADY_RESOLVED)
    key = PICK_KEY if spec.kind == "user_picker" else CONFIRM_KEY
    answer = (request.input_responses or {}).get(key)
    if not isinstance(answer, ElicitResult):
        # No answer for our question: ask it again, the row stays pending.
        return _input_required(spec, row.input, row.confirmation, execution_id, caller.org_id)
    claims = await claim_all(db, caller.org_id, [execution_id])
    if claims is None:
        return error_result("tool_already_resolved", ALREADY_RESOLVED)
    claim = claims[0]
    content = answer.content or {}
    if spec.kind == "user_picker":
        return await _record_pick(db, caller, spec, row, claim, answer, content)
    if answer.action != "accept" or content.get("approved") is not True:
        await _finish(db, caller, claim, "rejected_by_user", error=REJECTED)
        _log(spec, False, REJECTED)
        return outcome_error(REJECTED)
    return await _run_claimed(db, caller, row, claim, at)


async def _finish(
    db: Database, caller: Caller, claim: Claim, status: ExecutionStatus, *, output: Any = None,
    error: dict[str, Any] | None = None,
) -> bool:  # fmt: skip
    async with db.org_tx(caller.org_id) as conn:
        return await finish_claimed(
            conn, caller.org_id, claim, status=status, output=output, error=error
        )


async def _record_pick(
    db: Database, caller: Caller, spec: ToolSpec, row: ledger.PendingMcpCall, claim: Claim,
    answer: ElicitResult, content: dict[str, Any],
) -> CallToolResult:  # fmt: skip
    args = row.input.get("args", {})
    picked = next(
        (c for c in args.get("candidates", []) if str(c.get("id")) == content.get("pick")), None
    )
    if answer.action != "accept" or picked is None:
        await _finish(db, caller, claim, "rejected_by_user", error=REJECTED)
        return outcome_error(REJECTED)
    output = {"pickedId": str(picked["id"]), "pickedLabel": str(picked["label"]),
              "kind": str(args.get("kind", ""))}  # fmt: skip
    if not await _finish(db, caller, claim, "succeeded", output=output):
        return error_result("tool_already_resolved", ALREADY_RESOLVED)
    return outcome_result(spec, ToolOutcome(ok=True, output=output), row.execution_id)


async def _run_claimed(
    db: Database, caller: Caller, row: ledger.PendingMcpCall, claim: Claim, at: datetime
) -> CallToolResult:
    """Run the stored, re-validated input through the fenced executor: effect, audit row and
    status in ONE transaction, the status fenced on this claim."""
    try:
        call = resolve_call(registry_for_caller(caller), row.router, row.input)
    except DomainError as exc:
        await _finish(db, caller, claim, "failed", error=exc.as_result())
        return outcome_error(exc.as_result())

    async def record(conn: Conn, outcome: ToolOutcome) -> bool:
        return await finish_claimed(
            conn, caller.org_id, claim,
            status="succeeded" if outcome.ok else "failed",
            output=outcome.output if outcome.ok else None,
            error=outcome.error, audit_log_id=outcome.audit_log_id,
        )  # fmt: skip

    outcome = await execute_fenced(db, caller, at, call, record, channel="mcp")
    if outcome is None:  # the sweep closed a stale claim meanwhile: nothing was committed
        return error_result("tool_already_resolved", ALREADY_RESOLVED)
    _log(call.spec, outcome.ok, outcome.error)
    return outcome_result(call.spec, outcome, row.execution_id)


def _log(spec: ToolSpec, ok: bool, error: dict[str, Any] | None) -> None:
    log_event("mcp.tool.executed", tool=spec.name, ok=ok,
              code=None if ok else (error or {}).get("code"))  # fmt: skip
