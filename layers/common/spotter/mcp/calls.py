"""One MCP tools/call: run it inline, or ask the person and run it once they said yes.

- A read or a `never`-confirm write runs through the tool runner in ONE transaction with its
  execution row (channel `mcp`) and audit row.
- A `destructive` / `always` call, or a picker, does not run: its card is built on the server,
  the call is stored `pending` with a deadline (`expires_at`), and the person is asked the way
  the client can be asked (`Asking`):
  * a 2026-07-28 client with form elicitation: an input-required result whose request state names
    the row (the SDK's boundary seals it to this tool, these arguments, this user and org);
  * a 2025-11-25 client with form elicitation: `AskInStream`, which `legacy` sends as a
    server→client `elicitation/create` inside the tools/call response stream and answers with
    `answer_in_stream` once the answer was handed over through Postgres (`handover`);
  * a client without form elicitation: the approval page (`/approvals/{id}`, behind the
    dashboard's login), as a URL elicitation where the client takes one (2026: in the
    input-required result; 2025-11-25: the -32042 error, `UrlRequired`), otherwise as a result
    naming the action, its card and the URL. Once the person approved there, the client's retry
    of the same call (same tool, same arguments; or the request state) runs it.
  Every answer claims the row exactly as a dashboard confirm does (`agent.executions.claim_all`)
  and runs the STORED input as a dashboard approval does (`agent.approvals.claimed`): a second
  retry, a replayed state or another org's answer finds nothing pending and runs nothing. No
  tool approves: only a person, in the client's dialog or on the approval page.
- A question nobody answered lapses: the sweep (or the next look at the row) closes it
  `expired`, never run, and the client's late retry is told so once (`reported_at`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

from mcp_types import (
    CallToolResult,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitRequestURLParams,
    ElicitResult,
    InputRequiredResult,
    InputResponse,
)

from spotter.agent import erasure as _erasure  # noqa: F401  (a call may erase a member)
from spotter.agent.approvals.claimed import run_claimed
from spotter.agent.approvals.resolution import REJECTED
from spotter.agent.executions import (
    EXPIRED,
    Claim,
    McpPendingCall,
    claim_all,
    close_expired_mcp,
    expire_mcp_call,
    finish_decided,
    insert_mcp_call,
    load_mcp_call,
    mark_reported,
    unreported_mcp_call,
)
from spotter.agent.transcript.storable import input_problem
from spotter.auth.caller import Caller
from spotter.db import Database
from spotter.mcp.approval_page import card_message
from spotter.mcp.catalog import UNDO_TOOL, catalog_for, mcp_name
from spotter.mcp.results import error_result, outcome_error, outcome_result
from spotter.mcp.undo import undo_tool
from spotter.observability import log_event
from spotter.providers.email import EmailSender
from spotter.tools.asking import awaits_approval, awaits_pick, needs_user
from spotter.tools.calls import ResolvedCall, ToolOutcome
from spotter.tools.cards import Confirmation
from spotter.tools.context import ToolContext
from spotter.tools.errors import TOOL_REFUSALS, ToolError, UnknownTool, tool_error
from spotter.tools.previews import what_is_asked
from spotter.tools.registry import registry_for_caller, surface_of
from spotter.tools.runner import execute, resolve_call
from spotter.tools.spec import ToolSpec
from spotter.tools.summaries import Voice

CONFIRM_KEY = "confirm"
PICK_KEY = "pick"
ALREADY_RESOLVED = "That call was already handled."
# How long a question stays open: the approval page's and a request state's (the SDK's seal
# lives longer, so a late retry still reaches us and is told `expired`).
PENDING_TTL = timedelta(minutes=10)
# How long a tools/call stream waits for an in-stream answer (the MCP function's timeout is
# longer); its question lapses then.
STREAM_WAIT = timedelta(minutes=4)
CANNOT_PICK = (
    "{tool} needs you to pick one of several candidates, and this MCP client cannot show a"
    " choice. Nothing was changed: ask Spotter in the dashboard instead."
)
APPROVE_ON_PAGE = (
    "{tool} needs your approval, and nothing was changed yet. Open {url} (signed in to the"
    " Spotter dashboard), check the card and approve, then call {tool} again with the same"
    " arguments: it runs once. The link expires at {expires}."
)


@dataclass(frozen=True)
class Asking:
    """How this client can ask its user: form elicitation, URL elicitation, and whether a
    question goes inside the tools/call response stream (2025-11-25) or in an input-required
    result (2026-07-28)."""

    form: bool = False
    url: bool = False
    in_stream: bool = False


@dataclass(frozen=True)
class McpCall:
    caller: Caller
    name: str
    arguments: dict[str, Any]
    asking: Asking = Asking()
    toolset: str | None = None
    writes: bool = True  # the token's scope allows writes
    request_state: str | None = None
    input_responses: dict[str, InputResponse] | None = None


@dataclass(frozen=True)
class McpDeps:
    """`sender` delivers the mail an approved outbound call queued, before the call answers;
    `approval_url` is the dashboard's approval page of a pending call."""

    db: Database
    sender: EmailSender
    approval_url: Callable[[UUID], str]


@dataclass(frozen=True)
class AskInStream:
    """A 2025-11-25 question to send inside the tools/call response stream."""

    execution_id: UUID
    spec: ToolSpec
    params: ElicitRequestFormParams


@dataclass(frozen=True)
class UrlRequired:
    """A 2025-11-25 URL elicitation the call waits for (JSON-RPC error -32042)."""

    params: ElicitRequestURLParams


CallAnswer = CallToolResult | InputRequiredResult | AskInStream | UrlRequired


async def call_tool(deps: McpDeps, request: McpCall, *, now: datetime | None = None) -> CallAnswer:
    caller = request.caller
    if not caller.is_staff:
        return error_result("staff_only", "Spotter is available to staff only.")
    problem = input_problem(request.arguments)  # a NUL, a lone surrogate, too deep
    if problem is not None:  # validated as HTTP validates: never a driver's message
        return outcome_error(ToolError("invalid_args", problem))
    at = now or datetime.now(UTC)
    catalog = catalog_for(*surface_of(caller), request.toolset, writes=request.writes)
    if request.name == UNDO_TOOL and request.writes:
        return await undo_tool(deps.db, caller, request.arguments, now=at)
    spec = catalog.specs.get(request.name)
    if spec is None:
        return outcome_error(UnknownTool(request.name).error)
    if request.request_state is not None:
        return await _answer_state(deps, request, spec, at)
    try:
        call = resolve_call(
            registry_for_caller(caller), spec.router,
            {"action": spec.action, "args": request.arguments},
        )  # fmt: skip
    except TOOL_REFUSALS as exc:
        return outcome_error(tool_error(exc))
    if needs_user(spec.kind, spec.confirm):
        return await _ask(deps, request, call, at)
    return await _inline(deps.db, caller, call, at)


async def _inline(db: Database, caller: Caller, call: ResolvedCall, at: datetime) -> CallToolResult:
    async with db.org_tx(caller.org_id) as conn:
        outcome = await execute(ToolContext(caller, conn, at, channel="mcp"), call)
        execution_id = await insert_mcp_call(conn, caller, call, outcome=outcome)
    _log(call.spec, outcome)
    return outcome_result(call.spec, outcome, execution_id)


def _form(
    spec: ToolSpec, stored_input: dict[str, Any], card: dict[str, Any] | None, caller: Caller
) -> tuple[str, ElicitRequestFormParams]:
    """The form question for a call: a pick among its candidates, or approve its card."""
    if awaits_pick(spec.kind):
        args = stored_input.get("args", {})
        options = [{"const": str(c["id"]), "title": str(c["label"])} for c in args["candidates"]]
        return PICK_KEY, ElicitRequestFormParams(
            message=str(args["prompt"]),
            requested_schema={
                "type": "object",
                "properties": {"pick": {"type": "string", "title": "Choice", "oneOf": options}},
                "required": ["pick"],
            },
        )
    return CONFIRM_KEY, ElicitRequestFormParams(
        message=card_message(
            spec.router,
            spec.action,
            card,
            Voice.of(caller.locale, caller.org_timezone, caller.role),
        ),
        requested_schema={
            "type": "object",
            "properties": {"approved": {"type": "boolean", "title": "Approve"}},
            "required": ["approved"],
        },
    )


def _state(execution_id: UUID, org_id: UUID) -> str:
    return json.dumps({"executionId": str(execution_id), "orgId": str(org_id)})


def _meta(spec: ToolSpec, card: dict[str, Any] | None) -> dict[str, Any] | None:
    # The card also travels as data beside the question (the SDK keeps a result's `_meta`, not
    # an embedded request's): a client may render it itself.
    return {"spotter/confirmation": card, "spotter/confirm": spec.confirm} if card else None


def _input_required(spec: ToolSpec, row: McpPendingCall, caller: Caller) -> InputRequiredResult:
    """The 2026-07-28 form question and the state naming the pending row (sealed by the SDK)."""
    key, params = _form(spec, row.input, row.confirmation, caller)
    return InputRequiredResult(
        input_requests={key: ElicitRequest(params=params)},
        request_state=_state(row.execution_id, caller.org_id),
        _meta=_meta(spec, row.confirmation),
    )


def _approval_message(deps: McpDeps, spec: ToolSpec, row: McpPendingCall) -> str:
    expires = row.expires_at.isoformat(timespec="seconds") if row.expires_at else "soon"
    return APPROVE_ON_PAGE.format(
        tool=mcp_name(spec), url=deps.approval_url(row.execution_id), expires=expires
    )


def _on_the_page(
    deps: McpDeps, request: McpCall, spec: ToolSpec, row: McpPendingCall
) -> CallAnswer:
    """Send the person to the approval page, the way this client takes a link."""
    url, message = deps.approval_url(row.execution_id), _approval_message(deps, spec, row)
    if request.asking.url and request.asking.in_stream:
        return UrlRequired(
            ElicitRequestURLParams(message=message, url=url, elicitation_id=str(row.execution_id))
        )
    if request.asking.url:
        return InputRequiredResult(
            input_requests={CONFIRM_KEY: ElicitRequest(
                params=ElicitRequestURLParams(message=message, url=url)
            )},
            request_state=_state(row.execution_id, request.caller.org_id),
            _meta=_meta(spec, row.confirmation),
        )  # fmt: skip
    body = {
        "code": "confirmation_required",
        "message": message,
        "approvalUrl": url,
        "executionId": str(row.execution_id),
        "tool": mcp_name(spec),
        "card": row.confirmation,
        "expiresAt": row.expires_at.isoformat() if row.expires_at else None,
    }
    return error_result("confirmation_required", message, body)


async def _ask(deps: McpDeps, request: McpCall, call: ResolvedCall, at: datetime) -> CallAnswer:
    spec, caller = call.spec, request.caller
    async with deps.db.org_tx(caller.org_id) as conn:
        if awaits_pick(spec.kind):
            # the candidates as the server names them from their ids (`what_is_asked`): what is
            # stored, shown, picked from and matched by a retry; an id naming nothing refuses
            try:
                async with conn.transaction():
                    call, _ = await what_is_asked(ToolContext(caller, conn, at, "mcp"), call)
            except TOOL_REFUSALS as exc:
                return outcome_error(tool_error(exc))
        prior = await unreported_mcp_call(
            conn, caller, spec.router, spec.action, call.executable_input
        )
    if prior is not None:  # the same call asked before: answer from that question
        return await _from_prior(deps, request, spec, prior, at)
    if awaits_pick(spec.kind) and not request.asking.form:
        return error_result("confirmation_required", CANNOT_PICK.format(tool=mcp_name(spec)))
    card: Confirmation | None = None
    ttl = STREAM_WAIT if request.asking.form and request.asking.in_stream else PENDING_TTL
    async with deps.db.org_tx(caller.org_id) as conn:
        if awaits_approval(spec.kind, spec.confirm):
            try:
                async with conn.transaction():  # a card that cannot be built stores nothing
                    _, card = await what_is_asked(ToolContext(caller, conn, at, "mcp"), call)
            except TOOL_REFUSALS as exc:
                return outcome_error(tool_error(exc))
        execution_id = await insert_mcp_call(conn, caller, call, card=card, expires_in=ttl)
        row = await load_mcp_call(conn, caller, execution_id)
    assert row is not None
    log_event("mcp.tool.asked", tool=spec.name, form=request.asking.form, url=request.asking.url)
    return _question(deps, request, spec, row)


def _question(deps: McpDeps, request: McpCall, spec: ToolSpec, row: McpPendingCall) -> CallAnswer:
    """Ask about a pending row (again): the same card, the same row."""
    if request.asking.form and request.asking.in_stream:
        _, params = _form(spec, row.input, row.confirmation, request.caller)
        return AskInStream(row.execution_id, spec, params)
    if request.asking.form:
        return _input_required(spec, row, request.caller)
    return _on_the_page(deps, request, spec, row)


async def _from_prior(
    deps: McpDeps, request: McpCall, spec: ToolSpec, row: McpPendingCall, at: datetime
) -> CallAnswer:
    """A retry of a call that awaited a person: run it if approved on the page, tell how it
    ended if it did, or ask again."""
    caller = request.caller
    if row.status == "pending" and row.expired:
        async with deps.db.org_tx(caller.org_id) as conn:
            await close_expired_mcp(conn, caller.org_id, row.execution_id)
            row = await load_mcp_call(conn, caller, row.execution_id) or row
    if row.status != "pending":
        return await _report(deps.db, caller, spec, row)
    if row.approved_at is not None:
        return await _claim_and_run(deps, caller, row, at)
    return _question(deps, request, spec, row)


async def _report(
    db: Database, caller: Caller, spec: ToolSpec, row: McpPendingCall
) -> CallToolResult:
    """How a call that awaited a person ended, told to its client once."""
    if row.reported_at is not None or row.status == "running":
        return error_result("tool_already_resolved", ALREADY_RESOLVED)
    async with db.org_tx(caller.org_id) as conn:
        await mark_reported(conn, caller.org_id, row.execution_id)
    if row.status == "succeeded":
        return outcome_result(spec, ToolOutcome.succeeded(row.output), row.execution_id)
    error = ToolError.from_json(row.error) if row.error else None
    if row.status == "rejected_by_user":
        error = error or REJECTED
    return outcome_error(error or EXPIRED)


def _named_row(state: str, caller: Caller) -> UUID | None:
    """The execution id our state names, if it is well formed and for the caller's org."""
    try:
        decoded = json.loads(state)
        execution_id, org_id = UUID(decoded["executionId"]), UUID(decoded["orgId"])
    except (ValueError, KeyError, TypeError):
        return None
    return execution_id if org_id == caller.org_id else None


async def _answer_state(
    deps: McpDeps, request: McpCall, spec: ToolSpec, at: datetime
) -> CallAnswer:
    """A 2026-07-28 retry carrying the request state (and, for a form, the answer)."""
    caller = request.caller
    assert request.request_state is not None
    execution_id = _named_row(request.request_state, caller)
    if execution_id is None:
        return error_result("not_found", "No such pending call.")
    async with deps.db.org_tx(caller.org_id) as conn:
        row = await load_mcp_call(conn, caller, execution_id)
    if row is None or (row.router, row.action) != (spec.router, spec.action):
        return error_result("not_found", "No such pending call.")
    if row.status != "pending" or row.expired or row.approved_at is not None:
        return await _from_prior(deps, request, spec, row, at)
    key = PICK_KEY if awaits_pick(spec.kind) else CONFIRM_KEY
    answer = (request.input_responses or {}).get(key)
    if not isinstance(answer, ElicitResult) or not request.asking.form:
        # No form answer (or a URL consent, and not approved on the page yet): ask again.
        return _question(deps, request, spec, row)
    return await decide(deps, caller, spec, row, answer, at)


async def answer_in_stream(
    deps: McpDeps, caller: Caller, spec: ToolSpec, execution_id: UUID,
    answer: ElicitResult | None, at: datetime,
) -> CallToolResult:  # fmt: skip
    """The end of a 2025-11-25 in-stream question: the person's answer, or None when none came
    in time (the question lapses: `expired`, never run)."""
    async with deps.db.org_tx(caller.org_id) as conn:
        if answer is None:
            await expire_mcp_call(conn, caller.org_id, execution_id)
        row = await load_mcp_call(conn, caller, execution_id)
    if row is None:
        return error_result("not_found", "No such pending call.")
    if answer is None or row.status != "pending":
        return await _report(deps.db, caller, spec, row)
    return await decide(deps, caller, spec, row, answer, at)


async def decide(
    deps: McpDeps, caller: Caller, spec: ToolSpec, row: McpPendingCall, answer: ElicitResult,
    at: datetime,
) -> CallToolResult:  # fmt: skip
    """A person's form answer: claim the row, then run it, reject it or record the pick."""
    claims = await claim_all(deps.db, caller.org_id, [row.execution_id])
    if claims is None:
        return error_result("tool_already_resolved", ALREADY_RESOLVED)
    claim = claims[0]
    content = answer.content or {}
    if awaits_pick(spec.kind):
        result = await _record_pick(deps.db, caller, spec, row, claim, answer, content)
    elif answer.action != "accept" or content.get("approved") is not True:
        await finish_decided(deps.db, caller.org_id, claim, ToolOutcome.failed(REJECTED))
        _log(spec, ToolOutcome.failed(REJECTED))
        result = outcome_error(REJECTED)
    else:
        return await _run(deps, caller, row, claim, at)
    await _mark(deps.db, caller, row.execution_id)
    return result


async def _claim_and_run(
    deps: McpDeps, caller: Caller, row: McpPendingCall, at: datetime
) -> CallToolResult:
    claims = await claim_all(deps.db, caller.org_id, [row.execution_id])
    if claims is None:
        return error_result("tool_already_resolved", ALREADY_RESOLVED)
    return await _run(deps, caller, row, claims[0], at)


async def _mark(db: Database, caller: Caller, execution_id: UUID) -> None:
    async with db.org_tx(caller.org_id) as conn:
        await mark_reported(conn, caller.org_id, execution_id)


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


async def _run(
    deps: McpDeps, caller: Caller, row: McpPendingCall, claim: Claim, at: datetime
) -> CallToolResult:
    """Run the stored, re-validated input exactly as a dashboard approval does: effect, audit
    row and status in ONE transaction fenced on this claim, then its mail delivered."""
    registry = registry_for_caller(caller)
    ran = await run_claimed(
        deps.db, caller, at, registry, row, claim, sender=deps.sender, channel="mcp"
    )
    if ran is None:  # the sweep closed a stale claim meanwhile: nothing was committed
        return error_result("tool_already_resolved", ALREADY_RESOLVED)
    await _mark(deps.db, caller, row.execution_id)
    if ran.spec is None:  # the stored input no longer resolves: failed, nothing ran
        return outcome_error(ran.outcome.error)
    _log(ran.spec, ran.outcome)
    return outcome_result(ran.spec, ran.outcome, row.execution_id)


def _log(spec: ToolSpec, outcome: ToolOutcome) -> None:
    code = None if outcome.ok or outcome.error is None else outcome.error.code
    log_event("mcp.tool.executed", tool=spec.name, ok=outcome.ok, code=code)
