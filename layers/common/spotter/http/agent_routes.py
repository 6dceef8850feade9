"""The agent's streaming routes: send, confirm, confirm-batch, pick, undo (SSE).

Imported only by apps that stream (`create_app(streaming=True)`): the orchestrator brings the
model SDK, a second of cold start the buffered reads function never pays.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from uuid import UUID

from fastapi import APIRouter, Request
from starlette.responses import StreamingResponse

from spotter.agent import events as ev
from spotter.agent import run
from spotter.auth.caller import Caller
from spotter.http.bodies import ConfirmBatchBody, ConfirmBody, PickBody, SendMessageBody
from spotter.http.deps import StaffCaller, get_agent_deps
from spotter.http.sse import sse_response
from spotter.i18n import Locale, error_message
from spotter.observability import current_trace_id
from spotter.providers.anthropic import ProviderNotConfigured

router = APIRouter(prefix="/agent")


async def _provider_missing(locale: Locale) -> AsyncIterator[ev.AgentEvent]:
    yield ev.Error(
        code="provider_not_configured",
        message=error_message("provider_not_configured", locale),
        trace_id=current_trace_id(),
    )
    yield ev.Done(conversation_id=None)


@router.post("/messages")
async def send_message(
    request: Request, caller: StaffCaller, body: SendMessageBody
) -> StreamingResponse:
    try:
        deps = get_agent_deps(request, request.app.state.db)
    except ProviderNotConfigured:
        # `make dev` without a key: say so on the stream instead of failing the request
        return sse_response(_provider_missing(caller.locale))
    message = run.SendMessage(
        text=body.text,
        pathname=body.page_context.pathname,
        selection=body.page_context.selection,
        conversation_id=body.conversation_id,
    )
    return sse_response(run.send_message(deps, caller, message))


def _resolution(
    request: Request, caller: Caller, start: Callable[[run.AgentDeps], AsyncIterator[ev.AgentEvent]]
) -> StreamingResponse:
    try:
        deps = get_agent_deps(request, request.app.state.db)
    except ProviderNotConfigured:
        return sse_response(_provider_missing(caller.locale))
    return sse_response(start(deps))


@router.post("/conversations/{conversation_id}/confirm/{tool_use_id}")
async def confirm(
    request: Request,
    caller: StaffCaller,
    conversation_id: UUID,
    tool_use_id: str,
    body: ConfirmBody,
) -> StreamingResponse:
    return _resolution(
        request,
        caller,
        lambda deps: run.confirm(deps, caller, conversation_id, tool_use_id, body.approved),
    )


@router.post("/conversations/{conversation_id}/confirm-batch")
async def confirm_batch(
    request: Request, caller: StaffCaller, conversation_id: UUID, body: ConfirmBatchBody
) -> StreamingResponse:
    decisions = [run.Decision(d.tool_use_id, d.approved) for d in body.decisions]
    return _resolution(
        request,
        caller,
        lambda deps: run.confirm_batch(deps, caller, conversation_id, decisions),
    )


@router.post("/conversations/{conversation_id}/pick/{tool_use_id}")
async def pick(
    request: Request, caller: StaffCaller, conversation_id: UUID, tool_use_id: str, body: PickBody
) -> StreamingResponse:
    return _resolution(
        request,
        caller,
        lambda deps: run.pick(deps, caller, conversation_id, tool_use_id, body.id),
    )


@router.post("/conversations/{conversation_id}/undo/{tool_use_id}")
async def undo(
    request: Request, caller: StaffCaller, conversation_id: UUID, tool_use_id: str
) -> StreamingResponse:
    try:
        deps = get_agent_deps(request, request.app.state.db)
    except ProviderNotConfigured:
        return sse_response(_provider_missing(caller.locale))
    # refusals (404, 422) are JSON, before the stream; the claim is taken here too
    claimed = await run.claim_undo(deps, caller, conversation_id, tool_use_id)
    return sse_response(run.run_undo(deps, caller, claimed))
