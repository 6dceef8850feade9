"""Running one tool call: parse `{action, args}`, validate, check role and gate, execute, audit.

`resolve_call` only reads the input. `execute` runs inside the caller's transaction (a savepoint
isolates a failing handler), so the orchestrator can commit a database-only write together with
its execution row, or not at all.
"""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

from pydantic import ValidationError

from spotter.observability import log_event
from spotter.tiers import has_feature
from spotter.tools.asking import awaits_pick
from spotter.tools.audit import write_audit
from spotter.tools.calls import PREVIEW_KEY, ResolvedCall, ToolOutcome
from spotter.tools.context import ToolContext
from spotter.tools.errors import (
    TOOL_REFUSALS,
    FeatureUnavailable,
    Forbidden,
    NeedsUser,
    ToolArgsError,
    internal_error,
    tool_error,
)
from spotter.tools.registry import ToolRegistry
from spotter.tools.spec import Output, ToolSpec

MAX_TOOL_RESULT_CHARS = 50_000


def _validation_problems(exc: ValidationError) -> list[dict[str, str]]:
    return [
        {"field": ".".join(str(p) for p in err["loc"]) or "(args)", "problem": err["msg"]}
        for err in exc.errors()
    ]


def resolve_call(registry: ToolRegistry, router: str, raw_input: Any) -> ResolvedCall:
    """The call the model asked for, validated; raises `ToolArgsError` (fix the arguments) or a
    `CallRefused` (`forbidden`, `unknown_tool`) with a code it can read."""
    if not isinstance(raw_input, dict) or not isinstance(raw_input.get("action"), str):
        raise ToolArgsError('Input must be {"action": "<name>", "args": {...}}.')
    action = raw_input["action"]
    spec = registry.get(router, action)
    if spec is None:
        raise registry.refusal(router, action)
    args = raw_input.get("args", {})
    if not isinstance(args, dict):
        raise ToolArgsError("args must be an object.")
    args = {k: v for k, v in args.items() if k != PREVIEW_KEY}
    try:
        model = spec.args_model.model_validate(args)
    except ValidationError as exc:
        raise ToolArgsError(
            f"Arguments for {spec.name} are invalid.", problems=_validation_problems(exc)
        ) from exc
    return ResolvedCall(spec, model)


def check_allowed(ctx: ToolContext, spec: ToolSpec) -> None:
    """Defence in depth: the registry already filtered by role; check again when a call runs."""
    if ctx.caller.role not in spec.roles:
        raise Forbidden(spec.name)
    if spec.feature_gate is not None and not has_feature(ctx.caller, spec.feature_gate):
        raise FeatureUnavailable(spec.name, spec.feature_gate)


def cap_output(output: Any) -> Any:
    text = json.dumps(output, ensure_ascii=False, default=str)
    if len(text) <= MAX_TOOL_RESULT_CHARS:
        return json.loads(text)
    return text[:MAX_TOOL_RESULT_CHARS]


async def execute(
    ctx: ToolContext,
    call: ResolvedCall,
    *,
    reverses_audit_log_id: UUID | None = None,
    savepoint: bool = True,
) -> ToolOutcome:
    """Run the handler in a savepoint of `ctx.conn`'s transaction; never raises for tool errors.

    `savepoint=False`: the transaction is the handler's alone (a parallel read), so a failure
    leaves nothing of anyone else's to keep and the savepoint's two round trips are saved."""
    spec = call.spec
    try:
        check_allowed(ctx, spec)
        if awaits_pick(spec.kind):
            raise NeedsUser(spec.name)
        if savepoint:
            async with ctx.conn.transaction():
                output, audit_id = await _run_handler(ctx, call, reverses_audit_log_id)
        else:
            output, audit_id = await _run_handler(ctx, call, reverses_audit_log_id)
    except TOOL_REFUSALS as exc:
        return ToolOutcome.failed(tool_error(exc))
    except Exception as exc:
        log_event(
            "tool.internal_error", level="exception", tool=spec.name, error=type(exc).__name__
        )
        return ToolOutcome.failed(internal_error(spec.name))
    return ToolOutcome.succeeded(cap_output(output), audit_id)


async def _run_handler(
    ctx: ToolContext, call: ResolvedCall, reverses_audit_log_id: UUID | None
) -> tuple[Any, UUID | None]:
    result = await call.spec.handler(ctx, call.args)
    output = result.wire() if isinstance(result, Output) else result
    audit_id = await write_audit(
        ctx, call.spec, output, reverses_audit_log_id=reverses_audit_log_id
    )
    return output, audit_id
