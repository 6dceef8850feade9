"""The agent's streaming routes: send, confirm, confirm-batch, pick, undo (SSE), undo also for
an MCP-made write by execution id; following a conversation's stream, and stopping its live run.

A run (send, confirm, confirm-batch, pick) runs in its own task (`agent.stream.start_live`):
the response watches it, and a client that leaves does not stop it. Before it starts — before
anything is written — the caller is admitted (`agent.admission`): a kill switch refuses with 403
`agent_disabled`, a send over the user's window with 429 `rate_limited` and `Retry-After`, as
JSON. Following a stream and stopping a run stay open.

Imported only by apps that stream (`create_app(streaming=True)`): the orchestrator brings the
model SDK, a second of cold start the buffered reads function never pays.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Header, Query, Request
from starlette.responses import StreamingResponse

from spotter.agent import events as ev
from spotter.agent import run
from spotter.agent.admission import admit_action, admit_send
from spotter.agent.stream import LiveRun, RunLog, check_can_follow, follow, request_stop, start_live
from spotter.auth.caller import Caller
from spotter.http.bodies import ConfirmBatchBody, ConfirmBody, PickBody, SendMessageBody
from spotter.http.deps import StaffCaller, get_agent_deps
from spotter.http.sse import recorded_response, resume_point, unlogged
from spotter.http.ui_stream import UiMessageStream
from spotter.i18n import Locale, error_message
from spotter.observability import current_trace_id
from spotter.providers.anthropic import ProviderNotConfigured
from spotter.tools.summaries import Voice

router = APIRouter(prefix="/agent")


async def _provider_missing(locale: Locale) -> AsyncIterator[ev.AgentEvent]:
    yield ev.Error(
        code="provider_not_configured",
        message=error_message("provider_not_configured", locale),
        trace_id=current_trace_id(),
    )
    yield ev.Done(conversation_id=None)


def voice_of(caller: Caller) -> Voice:
    """Whom a response's tool events are for: their language, gym clock and role."""
    return Voice.of(caller.locale, caller.org_timezone, caller.role)


RunStarter = Callable[[run.AgentDeps, RunLog], AsyncIterator[ev.AgentEvent]]


async def live_response(
    request: Request,
    caller: Caller,
    start: RunStarter,
    ui: Callable[[LiveRun | None], UiMessageStream] | None = None,
    *,
    sending: bool = False,
) -> StreamingResponse:
    """Admit the caller (a send also against its window), then start the run in its own task;
    the response streams it natively, or through the AI SDK translator `ui` makes for it (given
    the live run, None when no model is configured)."""
    try:
        deps = get_agent_deps(request, request.app.state.db)
    except ProviderNotConfigured:
        # `make dev` without a key: say so on the stream instead of failing the request
        missing = unlogged(_provider_missing(caller.locale))
        return recorded_response(missing, ui=ui(None) if ui else None)
    if sending:
        await admit_send(deps.db, deps.settings, caller, deps.clock())
    else:
        await admit_action(deps.db, caller)
    live = start_live(lambda log: start(deps, log))
    translator = ui(live) if ui else None
    # the native stream speaks its cards' words to the watcher; the AI SDK chat carries the
    # events as stored, as its history (`ui_history`) does
    return recorded_response(live.events(), run=live.task, ui=translator, voice=voice_of(caller))


async def undo_response(
    request: Request,
    caller: Caller,
    claim: Callable[[run.AgentDeps], Awaitable[run.ClaimedUndo]],
    ui: UiMessageStream | None = None,
) -> StreamingResponse:
    """Admit the caller, claim the undo (its refusals, 403 / 404 / 422, are JSON before any
    stream), then stream the inverse. An undo is the user's act on a finished call, not a run:
    its events carry no ids."""
    try:
        deps = get_agent_deps(request, request.app.state.db)
    except ProviderNotConfigured:
        return recorded_response(unlogged(_provider_missing(caller.locale)), ui=ui)
    await admit_action(deps.db, caller)
    claimed = await claim(deps)
    undone = unlogged(run.run_undo(deps, caller, claimed))
    return recorded_response(undone, ui=ui, voice=voice_of(caller))


@router.post("/messages")
async def send_message(
    request: Request, caller: StaffCaller, body: SendMessageBody
) -> StreamingResponse:
    message = run.SendMessage(
        text=body.text,
        pathname=body.page_context.pathname,
        selection=body.page_context.selection,
        conversation_id=body.conversation_id,
    )
    return await live_response(
        request,
        caller,
        lambda deps, log: run.send_message(deps, caller, message, log=log),
        sending=True,
    )


@router.post("/conversations/{conversation_id}/confirm/{tool_use_id}")
async def confirm(
    request: Request,
    caller: StaffCaller,
    conversation_id: UUID,
    tool_use_id: str,
    body: ConfirmBody,
) -> StreamingResponse:
    return await live_response(
        request,
        caller,
        lambda deps, log: run.confirm(
            deps,
            caller,
            conversation_id,
            tool_use_id,
            body.approved,
            args=body.args,
            reason=body.reason,
            fingerprint=body.fingerprint,
            log=log,
        ),
    )


@router.post("/conversations/{conversation_id}/confirm-batch")
async def confirm_batch(
    request: Request, caller: StaffCaller, conversation_id: UUID, body: ConfirmBatchBody
) -> StreamingResponse:
    decisions = [
        run.Decision(
            d.tool_use_id, d.approved, args=d.args, reason=d.reason, fingerprint=d.fingerprint
        )
        for d in body.decisions
    ]
    return await live_response(
        request,
        caller,
        lambda deps, log: run.confirm_batch(deps, caller, conversation_id, decisions, log=log),
    )


@router.post("/conversations/{conversation_id}/pick/{tool_use_id}")
async def pick(
    request: Request, caller: StaffCaller, conversation_id: UUID, tool_use_id: str, body: PickBody
) -> StreamingResponse:
    return await live_response(
        request,
        caller,
        lambda deps, log: run.pick(deps, caller, conversation_id, tool_use_id, body.id, log=log),
    )


@router.post("/conversations/{conversation_id}/undo/{tool_use_id}")
async def undo(
    request: Request, caller: StaffCaller, conversation_id: UUID, tool_use_id: str
) -> StreamingResponse:
    return await undo_response(
        request,
        caller,
        lambda deps: run.claim_undo(deps, caller, conversation_id, tool_use_id),
    )


@router.get("/conversations/{conversation_id}/stream")
async def stream(
    request: Request,
    caller: StaffCaller,
    conversation_id: UUID,
    after: Annotated[int | None, Query(ge=0)] = None,
    last_event_id: Annotated[str | None, Header()] = None,
) -> StreamingResponse:
    """What the client missed (every event after its last id), then the live run until its
    `done`; with no run live, the replay alone. Any instance serves it."""
    point = resume_point(last_event_id, after)
    db = request.app.state.db
    await check_can_follow(db, caller, conversation_id)  # foreign or missing: a JSON 404
    return recorded_response(follow(db, caller, conversation_id, point), voice=voice_of(caller))


@router.post("/conversations/{conversation_id}/stop")
async def stop(request: Request, caller: StaffCaller, conversation_id: UUID) -> dict[str, bool]:
    """Stop the conversation's live run for everyone watching it; idempotent."""
    return {"stopping": await request_stop(request.app.state.db, caller, conversation_id)}


@router.post("/executions/{execution_id}/undo")
async def undo_execution(
    request: Request, caller: StaffCaller, execution_id: UUID
) -> StreamingResponse:
    """Undo a write made outside a conversation (an MCP client's), named by its execution id."""
    return await undo_response(
        request,
        caller,
        lambda deps: run.claim_execution_undo(
            deps.db, deps.registry_for(caller), caller, execution_id
        ),
    )
