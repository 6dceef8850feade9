"""The initialize era (MCP 2025-11-25, and 2025-06-18 / 2025-03-26 before it) on a stateless
server: what the SDK's stateless path cannot do, because it forgets the handshake.

- `initialize` is answered by the SDK; we add an `Mcp-Session-Id` that carries the negotiated
  version and the client's elicitation modes, sealed and bound to the caller (`session`).
- `tools/call` is ours: the caller's call (`calls.call_tool`) with what the session says the
  client can be asked. A call that needs a person and a client with form elicitation gets a
  `text/event-stream` response: the server→client `elicitation/create`, then (once the person
  answered, on any instance: `handover`) the call's result. A client with URL elicitation only
  gets the -32042 error naming the approval page; one with none, a result naming it.
- A POST carrying a JSON-RPC response is the client's answer to our `elicitation/create`: stored
  through Postgres for the instance holding the stream (202), or refused (400).
- Everything else (ping, tools/list, notifications) goes to the SDK.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from mcp_types import CallToolResult, ClientCapabilities, ElicitResult
from pydantic import ValidationError
from starlette.responses import Response, StreamingResponse
from starlette.types import Message, Receive, Scope, Send

from spotter.db.errors import is_unavailable
from spotter.mcp import handover
from spotter.mcp.asgi import rewrite_start
from spotter.mcp.auth import CallerToken
from spotter.mcp.calls import (
    STREAM_WAIT,
    Asking,
    AskInStream,
    McpCall,
    McpDeps,
    UrlRequired,
    answer_in_stream,
    call_tool,
)
from spotter.mcp.results import error_result
from spotter.mcp.session import McpSession, SessionSealer, session_hash
from spotter.mcp.wire import (
    INTERNAL_FAILURE,
    URL_ELICITATION_REQUIRED,
    rpc_error,
    rpc_result,
    unavailable_response,
)
from spotter.observability import log_event

SESSION_HEADER = "mcp-session-id"
KEEPALIVE_SECONDS = 15.0
_ANSWER_KEYS = ("approved", "pick")  # all a Spotter form asks: nothing else is stored


def _dump(model: Any) -> Any:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def is_response(message: Any) -> bool:
    return (
        isinstance(message, dict)
        and "method" not in message
        and "id" in message
        and ("result" in message or "error" in message)
    )


class Legacy:
    def __init__(self, sealer: SessionSealer, deps: Callable[[], McpDeps]) -> None:
        self._sealer = sealer
        self._deps = deps

    def session(self, scope: Scope, token: CallerToken) -> tuple[str | None, McpSession | None]:
        session_id = _header(scope, SESSION_HEADER)
        if session_id is None:
            return None, None
        return session_id, self._sealer.open(session_id, token.caller)

    async def handle(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        message: Any,
        token: CallerToken,
        toolset: str | None,
        sdk: Callable[[Send], Awaitable[None]],
    ) -> None:
        session_id, session = self.session(scope, token)
        if session_id is not None and session is None:
            # unknown, expired or another principal's: the spec's answer to a lost session
            await rpc_error(None, -32001, "Session not found", status=404)(scope, receive, send)
            return
        method = message.get("method") if isinstance(message, dict) else None
        if is_response(message):
            response = await self._answer(message, token, session_id, session)
        elif method == "initialize" and isinstance(message, dict):
            await sdk(self._with_session(send, message, token))
            return
        elif method == "tools/call" and isinstance(message, dict):
            response = await self._call(message, token, toolset, session_id, session)
        else:
            await sdk(send)
            return
        await response(scope, receive, send)

    def _with_session(self, send: Send, message: dict[str, Any], token: CallerToken) -> Send:
        """The SDK's initialize answer, with the session id it lacks: the version it negotiated
        (read from its answer) and the capabilities the client declared, sealed."""
        params = message.get("params")
        declared = params.get("capabilities") if isinstance(params, dict) else None
        try:
            capabilities = ClientCapabilities.model_validate(declared or {})
        except ValidationError:
            capabilities = None

        def rewrite(start: Message, chunk: Message) -> Message:
            headers = [
                (k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"
            ]
            body = chunk.get("body", b"")
            try:
                version = json.loads(body)["result"]["protocolVersion"]
            except (ValueError, KeyError, TypeError):
                version = None
            if isinstance(version, str):
                minted = self._sealer.mint(token.caller, version, capabilities)
                headers.append((SESSION_HEADER.encode(), minted.encode()))
            if not chunk.get("more_body"):
                headers.append((b"content-length", str(len(body)).encode()))
            return {**start, "headers": headers}

        return rewrite_start(send, rewrite)

    async def _answer(
        self, message: dict[str, Any], token: CallerToken, session_id: str | None,
        session: McpSession | None,
    ) -> Response:  # fmt: skip
        elicitation_id = handover.elicitation_of(message.get("id"))
        if session is None or session_id is None or elicitation_id is None:
            return rpc_error(None, -32600, "No question of this session has that id.", status=400)
        if "error" in message:
            answer: dict[str, Any] = {"action": "cancel"}
        else:
            try:
                result = ElicitResult.model_validate(message["result"])
            except ValidationError:
                return rpc_error(None, -32602, "Not an elicitation result.", status=400)
            content = {k: v for k, v in (result.content or {}).items() if k in _ANSWER_KEYS}
            answer = {"action": result.action, "content": content}
        stored = await handover.store_answer(
            self._deps().db, token.caller, session_hash(session_id), elicitation_id, answer
        )
        log_event("mcp.elicitation.answered", stored=stored, action=answer["action"])
        if not stored:
            return rpc_error(None, -32600, "That question is closed or not yours.", status=400)
        return Response(status_code=202)

    async def _call(
        self, message: dict[str, Any], token: CallerToken, toolset: str | None,
        session_id: str | None, session: McpSession | None,
    ) -> Response:  # fmt: skip
        rpc_id = message.get("id")
        params = message.get("params")
        name = params.get("name") if isinstance(params, dict) else None
        arguments = params.get("arguments", {}) if isinstance(params, dict) else None
        if not isinstance(name, str) or not isinstance(arguments, dict | None):
            return rpc_error(rpc_id, -32602, "tools/call takes a tool name and arguments.")
        asking = Asking(
            form=session.form if session else False,
            url=session.url if session else False,
            in_stream=True,
        )
        request = McpCall(
            token.caller, name, arguments or {}, asking, toolset, writes=token.can_write
        )
        deps = self._deps()
        try:
            answer = await call_tool(deps, request)
        except Exception as exc:
            return _failed(rpc_id, exc)
        if isinstance(answer, CallToolResult):
            return rpc_result(rpc_id, _dump(answer))
        if isinstance(answer, UrlRequired):
            return rpc_error(
                rpc_id, URL_ELICITATION_REQUIRED, answer.params.message,
                data={"elicitations": [_dump(answer.params)]},
            )  # fmt: skip
        if isinstance(answer, AskInStream) and session_id is not None:
            return _stream(deps, token, rpc_id, answer, session_hash(session_id))
        return rpc_result(rpc_id, _dump(error_result("internal", "The call failed.")))


def _failed(rpc_id: Any, exc: Exception) -> Response:
    if is_unavailable(exc):
        return unavailable_response(rpc_id)
    log_event("mcp.tool.crashed", error=type(exc).__name__)
    return rpc_error(rpc_id, INTERNAL_FAILURE, "The call failed.")


def _sse(message: dict[str, Any]) -> bytes:
    return f"event: message\ndata: {json.dumps(message, ensure_ascii=False)}\n\n".encode()


def _stream(
    deps: McpDeps, token: CallerToken, rpc_id: Any, ask: AskInStream, session: str
) -> StreamingResponse:
    caller = token.caller

    async def events() -> AsyncIterator[bytes]:
        async with deps.db.org_tx(caller.org_id) as conn:
            question = await handover.ask(conn, caller, ask.execution_id, session, STREAM_WAIT)
        yield _sse({
            "jsonrpc": "2.0", "id": handover.request_id(question),
            "method": "elicitation/create", "params": _dump(ask.params),
        })  # fmt: skip
        waiting = asyncio.create_task(
            handover.await_answer(deps.db, caller.org_id, question, STREAM_WAIT)
        )
        try:
            while True:
                done, _ = await asyncio.wait({waiting}, timeout=KEEPALIVE_SECONDS)
                if done:
                    break
                yield b": keepalive\n\n"  # proxies keep a quiet stream open
            raw = waiting.result()
            answer = ElicitResult.model_validate(raw) if raw is not None else None
            result = await answer_in_stream(
                deps, caller, ask.spec, ask.execution_id, answer, datetime.now(UTC)
            )
            body = rpc_message(rpc_id, _dump(result))
        except Exception as exc:
            code = "service_unavailable" if is_unavailable(exc) else "internal"
            log_event("mcp.tool.stream_failed", code=code, error=type(exc).__name__)
            body = {
                "jsonrpc": "2.0", "id": rpc_id,
                "error": {"code": INTERNAL_FAILURE, "message": "The call failed.",
                          "data": {"code": code}},
            }  # fmt: skip
        finally:
            waiting.cancel()
        yield _sse(body)

    return StreamingResponse(
        events(), media_type="text/event-stream", headers={"cache-control": "no-cache"}
    )


def rpc_message(rpc_id: Any, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rpc_id, "result": result}


def _header(scope: Scope, name: str) -> str | None:
    wanted = name.encode()
    for key, value in scope.get("headers", []):
        if key.lower() == wanted:
            return str(value.decode("latin-1"))
    return None
