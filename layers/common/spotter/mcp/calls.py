"""One MCP tools/call: run it inline, or ask the user through the multi round-trip flow.

- A read or a `never`-confirm write runs through the tool runner in ONE transaction with its
  execution row (channel `mcp`) and audit row.
- A `destructive` / `always` call, or a picker, does not run: its card is built on the server,
  the call is stored `pending`, and the answer is an input-required result whose request state
  names that row (the SDK's boundary seals it, binding it to this tool, these arguments, this
  user and org, and a TTL). The retry carrying the user's answer claims the row exactly as a
  dashboard confirm does (`agent.executions.claim_all`): a second retry, a replayed state or an
  answer for another org's row finds nothing pending and runs nothing. An approved call runs
  exactly as a dashboard approval does (`agent.approvals.claimed`): the mail an outbound tool
  queued is delivered before the tool call answers.
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

from spotter.agent.approvals.claimed import run_claimed
from spotter.agent.approvals.resolution import REJECTED
from spotter.agent.executions import (
    Claim,
    McpPendingCall,
    card_json,
    claim_all,
    finish_decided,
    insert_mcp_call,
    load_mcp_call,
)
from spotter.auth.caller import Caller
from spotter.db import Database
from spotter.mcp.catalog import UNDO_TOOL, catalog_for
from spotter.mcp.results import error_result, outcome_error, outcome_result
from spotter.mcp.undo import undo_tool
from spotter.observability import log_event
from spotter.providers.email import EmailSender
from spotter.tools.asking import awaits_approval, awaits_pick, needs_user
from spotter.tools.calls import ResolvedCall, ToolOutcome
from spotter.tools.cards import Confirmation
from spotter.tools.context import ToolContext
from spotter.tools.errors import TOOL_REFUSALS, UnknownTool, tool_error
from spotter.tools.previews import build_confirmation
from spotter.tools.registry import registry_for_caller, surface_of
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
    db: Database, sender: EmailSender, request: McpCall, *, now: datetime | None = None
) -> CallToolResult | InputRequiredResult:
    """`sender` delivers the mail an approved outbound call queued, before the call answers."""
    caller = request.caller
    if not caller.is_staff:
        return error_result("staff_only", "Spotter is available to staff only.")
    at = now or datetime.now(UTC)
    if request.name == UNDO_TOOL:
        return await undo_tool(db, caller, request.arguments, now=at)
    spec = catalog_for(*surface_of(caller)).specs.get(request.name)
    if spec is None:
        return outcome_error(UnknownTool(request.name).error)
    if request.request_state is not None:
        return await _answer(db, sender, request, spec, at)
    try:
        call = resolve_call(
            registry_for_caller(caller), spec.router,
            {"action": spec.action, "args": request.arguments},
        )  # fmt: skip
    except TOOL_REFUSALS as exc:
        return outcome_error(tool_error(exc))
    if needs_user(spec.kind, spec.confirm):
        return await _ask(db, request, call, at)
    return await _inline(db, caller, call, at)


async def _inline(db: Database, caller: Caller, call: ResolvedCall, at: datetime) -> CallToolResult:
    async with db.org_tx(caller.org_id) as conn:
        outcome = await execute(ToolContext(caller, conn, at, channel="mcp"), call)
        execution_id = await insert_mcp_call(conn, caller, call, outcome=outcome)
    _log(call.spec, outcome)
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
    if awaits_pick(spec.kind):
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
        if awaits_approval(spec.kind, spec.confirm):
            try:
                async with conn.transaction():  # a card that cannot be built stores nothing
                    card = await build_confirmation(ToolContext(caller, conn, at, "mcp"), call)
            except TOOL_REFUSALS as exc:
                return outcome_error(tool_error(exc))
        execution_id = await insert_mcp_call(conn, caller, call, card=card)
    # the card as stored, so asking again shows exactly the same one
    shown = card_json(card) if card else None
    return _input_required(spec, call.executable_input, shown, execution_id, caller.org_id)


def _named_row(state: str, caller: Caller) -> UUID | None:
    """The execution id our state names, if it is well formed and for the caller's org."""
    try:
        decoded = json.loads(state)
        execution_id, org_id = UUID(decoded["executionId"]), UUID(decoded["orgId"])
    except (ValueError, KeyError, TypeError):
        return None
    return execution_id if org_id == caller.org_id else None


async def _answer(
    db: Database, sender: EmailSender, request: McpCall, spec: ToolSpec, at: datetime
) -> CallToolResult | InputRequiredResult:
    caller = request.caller
    assert request.request_state is not None
    execution_id = _named_row(request.request_state, caller)
    if execution_id is None:
        return error_result("not_found", "No such pending call.")
    async with db.org_tx(caller.org_id) as conn:
        row = await load_mcp_call(conn, caller, execution_id)
    if row is None or (row.router, row.action) != (spec.router, spec.action):
        return error_result("not_found", "No such pending call.")
    if row.status != "pending":
        return error_result("tool_already_resolved", ALREADY_RESOLVED)
    key = PICK_KEY if awaits_pick(spec.kind) else CONFIRM_KEY
    answer = (request.input_responses or {}).get(key)
    if not isinstance(answer, ElicitResult):
        # No answer for our question: ask it again, the row stays pending.
        return _input_required(spec, row.input, row.confirmation, execution_id, caller.org_id)
    claims = await claim_all(db, caller.org_id, [execution_id])
    if claims is None:
        return error_result("tool_already_resolved", ALREADY_RESOLVED)
    claim = claims[0]
    content = answer.content or {}
    if awaits_pick(spec.kind):
        return await _record_pick(db, caller, spec, row, claim, answer, content)
    if answer.action != "accept" or content.get("approved") is not True:
        await finish_decided(db, caller.org_id, claim, ToolOutcome.failed(REJECTED))
        _log(spec, ToolOutcome.failed(REJECTED))
        return outcome_error(REJECTED)
    return await _run_claimed(db, sender, caller, row, claim, at)


async def _record_pick(
    db: Database, caller: Caller, spec: ToolSpec, row: McpPendingCall, claim: Claim,
    answer: ElicitResult, content: dict[str, Any],
) -> CallToolResult:  # fmt: skip
    args = row.input.get("args", {})
    picked = next(
        (c for c in args.get("candidates", []) if str(c.get("id")) == content.get("pick")), None
    )
    if answer.action != "accept" or picked is None:
        await finish_decided(db, caller.org_id, claim, ToolOutcome.failed(REJECTED))
        return outcome_error(REJECTED)
    output = {"pickedId": str(picked["id"]), "pickedLabel": str(picked["label"]),
              "kind": str(args.get("kind", ""))}  # fmt: skip
    picked_outcome = ToolOutcome.succeeded(output)
    if not await finish_decided(db, caller.org_id, claim, picked_outcome):
        return error_result("tool_already_resolved", ALREADY_RESOLVED)
    return outcome_result(spec, picked_outcome, row.execution_id)


async def _run_claimed(
    db: Database, sender: EmailSender, caller: Caller, row: McpPendingCall, claim: Claim,
    at: datetime,
) -> CallToolResult:  # fmt: skip
    """Run the stored, re-validated input exactly as a dashboard approval does: effect, audit
    row and status in ONE transaction fenced on this claim, then its mail delivered."""
    registry = registry_for_caller(caller)
    ran = await run_claimed(db, caller, at, registry, row, claim, sender=sender, channel="mcp")
    if ran is None:  # the sweep closed a stale claim meanwhile: nothing was committed
        return error_result("tool_already_resolved", ALREADY_RESOLVED)
    if ran.spec is None:  # the stored input no longer resolves: failed, nothing ran
        return outcome_error(ran.outcome.error)
    _log(ran.spec, ran.outcome)
    return outcome_result(ran.spec, ran.outcome, row.execution_id)


def _log(spec: ToolSpec, outcome: ToolOutcome) -> None:
    code = None if outcome.ok or outcome.error is None else outcome.error.code
    log_event("mcp.tool.executed", tool=spec.name, ok=outcome.ok, code=code)
