"""The AI SDK chat: what a dashboard on the stock `useChat` + `DefaultChatTransport({ api })`
talks to, with `api` = `<origin>/agent/chat`. Every response that streams is the UI message
stream (`http.ui_stream`); the chat id is the conversation (`agent.chats`).

- `POST /agent/chat`: the SDK's own body (`http.chat_request`). A new user message is a send;
  an answered approval or picker continues the waiting assistant message: the same resolution
  as `/confirm`, `/confirm-batch` and `/pick` (`agent.run.resolve_message`: the fingerprint
  checked, one claim ledger, several answers one batch).
- `GET /agent/chat/{id}/stream`: the SDK's reconnect (`resumeStream()`, `resume: true`): the
  live run's assistant message from its start (or after `Last-Event-ID`), then live; 204 when
  no run is live.
- `GET /agent/chat/{id}/messages`: the conversation as `UIMessage[]` (`http.ui_history`), for
  `useChat({ messages })`.
- `POST /agent/chat/{id}/undo/{toolCallId}`: undo a call whose output says `inverseAvailable`.
- `POST /agent/chat/{id}/stop`: stop the live run for everyone (the SDK's `stop()` only stops
  reading; the run goes on and can be resumed).
"""

from __future__ import annotations

from typing import Annotated, Any
from uuid import UUID

from fastapi import APIRouter, Header, Path, Query, Request, Response
from starlette.responses import StreamingResponse

from spotter.agent import run
from spotter.agent.chats import find_chat, live_turn, newest_turn_run
from spotter.agent.conversations import conversation_log
from spotter.agent.errors import ToolAlreadyResolved
from spotter.agent.executions import load_calls
from spotter.agent.stream import LiveRun, follow, request_stop
from spotter.agent.telemetry import AgentEndpoint
from spotter.auth.caller import Caller
from spotter.db import Database
from spotter.errors import NotFoundError, SpotterError
from spotter.http.agent_routes import live_response, undo_response, voice_of
from spotter.http.chat_request import Answers, ChatBody, ChatId, NewMessage, read_request
from spotter.http.deps import StaffCaller
from spotter.http.sse import recorded_response, resume_point
from spotter.http.ui_history import ui_messages
from spotter.http.ui_stream import UiMessageStream

router = APIRouter(prefix="/agent/chat", tags=["ai-sdk chat"])
ChatPath = Annotated[ChatId, Path(description="The id the app gives useChat.")]


def _db(request: Request) -> Database:
    db: Database = request.app.state.db
    return db


async def _conversation(db: Database, caller: Caller, chat_id: str) -> UUID | None:
    async with db.org_tx(caller.org_id) as conn:
        return await find_chat(conn, caller, chat_id)


async def _bound(db: Database, caller: Caller, chat_id: str) -> UUID:
    conversation_id = await _conversation(db, caller, chat_id)
    if conversation_id is None:
        raise NotFoundError("No such conversation.")
    return conversation_id


@router.post("")
async def chat(request: Request, caller: StaffCaller, body: ChatBody) -> StreamingResponse:
    asked = read_request(body)
    if isinstance(asked, NewMessage):
        return await _send(request, caller, body, asked)
    return await _decide(request, caller, body.id, asked)


async def _send(
    request: Request, caller: StaffCaller, body: ChatBody, asked: NewMessage
) -> StreamingResponse:
    conversation_id = await _conversation(_db(request), caller, body.id)
    page = body.page_context
    message = run.SendMessage(
        text=asked.text,
        pathname=page.pathname if page else "/",
        selection=page.selection if page else None,
        conversation_id=conversation_id,
        chat_id=body.id if conversation_id is None else None,  # its first message binds it
    )
    known = {"conversationId": str(conversation_id)} if conversation_id else {}

    def translator(live: LiveRun | None) -> UiMessageStream:
        def message_id() -> str | None:
            # the run's id, known once it has its conversation: the turn's message id
            run_id = live.log.run_id if live is not None else None
            return str(run_id) if run_id is not None else None

        return UiMessageStream(message_id=message_id, metadata=dict(known))

    return await live_response(
        request,
        caller,
        lambda deps, log: run.send_message(deps, caller, message, log=log),
        ui=translator,
        sending=True,
    )


async def _decide(
    request: Request, caller: StaffCaller, chat_id: str, asked: Answers
) -> StreamingResponse:
    db = _db(request)
    async with db.org_tx(caller.org_id) as conn:
        conversation_id = await find_chat(conn, caller, chat_id)
        if conversation_id is None:
            raise NotFoundError("No such conversation.")
        turn_run = await newest_turn_run(conn, caller, conversation_id)
        outputs = [o.tool_use_id for o in asked.outputs]
        calls = await load_calls(conn, caller.org_id, conversation_id, outputs)
    # a picker's output echoed after its pick was taken is history, not a new decision
    open_picks = {tid for tid, c in calls.items() if c.status == "pending" and c.awaits_pick}
    decisions = [
        *asked.approvals,
        *(
            run.Decision(o.tool_use_id, picked_id=o.picked_id)
            for o in asked.outputs
            if o.tool_use_id in open_picks
        ),
    ]
    if not decisions:
        if asked.outputs:
            raise ToolAlreadyResolved
        raise SpotterError(
            "invalid_request",
            "The newest message answers no approval and no picker.",
            status=400,
        )
    message_id = str(turn_run) if turn_run is not None else None
    meta = {"conversationId": str(conversation_id)}
    endpoint = _endpoint(decisions)
    return await live_response(
        request,
        caller,
        lambda deps, log: run.resolve_message(
            deps, caller, conversation_id, decisions, None, log=log, endpoint=endpoint
        ),
        ui=lambda _: UiMessageStream(message_id=message_id, continues=asked.shown, metadata=meta),
    )


def _endpoint(decisions: list[run.Decision]) -> AgentEndpoint:
    """What Sentry tags the decision as: the native route that would have taken it."""
    if all(d.kind == "pick" for d in decisions):
        return "pick"
    return "confirm" if len(decisions) == 1 else "confirm_batch"


@router.get("/{chat_id}/stream", response_model=None)
async def resume(
    request: Request,
    caller: StaffCaller,
    chat_id: ChatPath,
    after: Annotated[int | None, Query(ge=0)] = None,
    last_event_id: Annotated[str | None, Header()] = None,
) -> StreamingResponse | Response:
    """The assistant message a live run is writing: from its start (what the SDK's default
    transport expects), or only what came after `Last-Event-ID`; 204 when no run is live."""
    point = resume_point(last_event_id, after)
    db = _db(request)
    async with db.org_tx(caller.org_id) as conn:
        conversation_id = await find_chat(conn, caller, chat_id)
        turn = None if conversation_id is None else await live_turn(conn, caller, conversation_id)
    if conversation_id is None or turn is None:
        return Response(status_code=204)
    ui = UiMessageStream(
        message_id=str(turn.run_id),
        after=point,
        metadata={"conversationId": str(conversation_id)},
    )
    followed = follow(db, caller, conversation_id, turn.after)
    return recorded_response(followed, ui=ui, voice=voice_of(caller))


@router.get("/{chat_id}/messages")
async def messages(request: Request, caller: StaffCaller, chat_id: ChatPath) -> list[Any]:
    """`UIMessage[]`, oldest first; `[]` for an id no message was sent with yet."""
    async with _db(request).org_tx(caller.org_id) as conn:
        conversation_id = await find_chat(conn, caller, chat_id)
        if conversation_id is None:
            return []
        log = await conversation_log(
            conn, caller.org_id, caller.user_id, conversation_id, voice=voice_of(caller)
        )
        turn = await live_turn(conn, caller, conversation_id)
    return ui_messages(log, turn.run_id if turn else None)


@router.post("/{chat_id}/undo/{tool_call_id}")
async def undo(
    request: Request,
    caller: StaffCaller,
    chat_id: ChatPath,
    tool_call_id: Annotated[str, Path(min_length=1, max_length=128)],
) -> StreamingResponse:
    """Run the inverse of a call whose output says `inverseAvailable`, once. The stream is one
    assistant message holding the inverse's tool part (`undo:<toolCallId>`)."""
    conversation_id = await _bound(_db(request), caller, chat_id)
    return await undo_response(
        request,
        caller,
        lambda deps: run.claim_undo(deps, caller, conversation_id, tool_call_id),
        ui=UiMessageStream(message_id=f"undo-{tool_call_id}"),
    )


@router.post("/{chat_id}/stop")
async def stop(request: Request, caller: StaffCaller, chat_id: ChatPath) -> dict[str, bool]:
    """Stop the chat's live run for everyone watching it; idempotent."""
    conversation_id = await _conversation(_db(request), caller, chat_id)
    if conversation_id is None:
        return {"stopping": False}
    return {"stopping": await request_stop(_db(request), caller, conversation_id)}
