"""Spotter's events as the AI SDK UI message stream (v1): what `useChat` reads from the chat
endpoints (`http.chat_routes`).

Each frame is `data: <chunk JSON>` (with the event's `id:`), the stream ends `data: [DONE]`, and
the response says `x-vercel-ai-ui-message-stream: v1`. One stream writes ONE assistant UI
message: `start` (its id: the turn's, `agent.chats`), then per model reply a `start-step` with
its text and the calls it asked for, and `finish`. A stream that continues a message (a
decision) starts inside the message's last step, as the SDK's own continuation does, so a
decided call's part moves `approval-requested → output-available` (or `output-denied`) in place.

Calls (`docs/ai-sdk.md` has the table):
- a tool part per action, `tool-<router>_<action>` (the MCP names), its input the action's
  arguments; Spotter runs it, so `providerExecuted: true` (the SDK's client-tool checks skip
  it); `toolMetadata` names the router and action, carries the call's words in the reader's
  language as the native stream does (`title`, `sideEffects`, and once it finished `summary`:
  `tools.summaries`, added by `http.sse.presented`; the part's own `title` too), and once it
  ran its execution id and whether Undo is available (`inverseAvailable`), or its error code;
- a confirmation is `tool-approval-request` whose `approvalId` is the card's fingerprint, the
  card in `approvalDescriptor`; the answer comes back as the SDK's approval response;
- a picker is a client tool (`tool-read_ask_user_to_pick`, input `{kind, prompt, candidates}`,
  no `providerExecuted`): the app answers with `addToolOutput`;
- a rejection is `tool-output-denied` (the SDK's chunk carries no metadata: the part keeps the
  words it was asked with, its reason is the approval's); any other failure `tool-output-error`.
The conversation id and the run's usage are message metadata; an error is `message-metadata
{error: {code, traceId}}` then `error`; compaction a transient `data-compaction`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from spotter.agent.approvals import call_fingerprint
from spotter.agent.stream import Recorded
from spotter.tools.catalog import load_catalog
from spotter.tools.spec import action_tool_name

UI_STREAM_HEADERS = {"x-vercel-ai-ui-message-stream": "v1"}
REJECTED = "rejected_by_user"
# a failure of a call that was never approved (nobody decided it), so no approval is answered
_NEVER_DECIDED = frozenset({"superseded", "skipped_after_rejection"})

Chunk = dict[str, Any]
Phase = Literal["none", "tools", "reply", "reply_done"]


def is_client_tool(router: str, action: str) -> bool:
    """A picker: the person answers it in the app (`addToolOutput`), Spotter never runs it."""
    spec = load_catalog().specs.get(f"{router}.{action}")
    return spec is not None and spec.kind == "user_picker"


def tool_input(call_input: Any) -> Any:
    """A call's input as the app reads it: the action's arguments (the model's envelope is
    `{action, args}`); an input that never parsed, as it was."""
    if isinstance(call_input, dict) and isinstance(call_input.get("args"), dict):
        return call_input["args"]
    return call_input if call_input is not None else {}


# A call's words as the native stream and the loader give them (`tools.summaries`, in the
# reader's language): the action's title, whether it changes anything, and once it finished a
# one-line summary of its result or why it did not run.
WORDS = ("title", "sideEffects", "summary")


def tool_metadata(
    router: str, action: str, words: Mapping[str, Any] | None = None, **more: Any
) -> dict[str, Any]:
    """A tool part's `toolMetadata`: the router and action, the call's words (from `words`: an
    event or a loaded call that carries them), then `more` (execution id, Undo, error code)."""
    meta: dict[str, Any] = {"router": router, "action": action}
    if words is not None:
        meta |= {k: words[k] for k in WORDS if words.get(k) is not None}
    return meta | {k: v for k, v in more.items() if v is not None}


def titled(part: Chunk, words: Mapping[str, Any] | None) -> Chunk:
    """The part's own `title` (the SDK's field for a tool's display title), when known."""
    title = words.get("title") if words is not None else None
    return part | {"title": title} if isinstance(title, str) else part


def approval_descriptor(confirm: Any, confirmation: Any) -> dict[str, Any]:
    """What the approval is about: the card built on the server."""
    return {"confirm": confirm, "confirmation": confirmation}


def picker_input(kind: Any, prompt: Any, candidates: Any) -> dict[str, Any]:
    return {"kind": kind, "prompt": prompt, "candidates": candidates}


@dataclass
class KnownCall:
    """A call the client's message already shows (or this stream has shown)."""

    name: str
    client: bool = False  # a picker
    approval_id: str | None = None  # asked, and not yet answered on this stream
    answered: bool = False
    awaiting: bool = False  # waits for a person (until this stream reports its outcome)


@dataclass
class UiMessageStream:
    """The translator of one response: which step and text part are open, which calls the
    message shows. `message_id` may be a callable: a send's id is its run's, known once the
    run has its conversation (its first event with an id). `continues`: the calls of the
    message a decision continues (the stream starts in its last step). `after`: events the
    client already has (a resume with `Last-Event-ID`) are read but not sent again."""

    message_id: Callable[[], str | None] | str | None = None
    continues: Mapping[str, KnownCall] | None = None
    after: int = 0
    metadata: dict[str, Any] = field(default_factory=dict)
    _calls: dict[str, KnownCall] = field(default_factory=dict)
    _phase: Phase = "none"
    _text_id: str | None = None
    _texts: int = 0
    _started: bool = False
    _error: bool = False
    _awaiting: set[str] = field(default_factory=set)
    _seq: int | None = None

    def __post_init__(self) -> None:
        if self.continues is not None:
            self._calls = dict(self.continues)
            self._awaiting = {call_id for call_id, c in self._calls.items() if c.awaiting}
            # the message's last step is the suspended reply's: its calls' outputs land in it
            self._phase = "reply_done"

    # ---- frames --------------------------------------------------------------------------

    def frames(self, recorded: Recorded) -> Iterator[bytes]:
        chunks = self._start() + self._chunks(recorded.data)
        self._seq = recorded.seq if recorded.seq is not None else self._seq
        if recorded.seq is not None and recorded.seq <= self.after:
            chunks = [c for c in chunks if c["type"] == "start"]  # the client has the rest
        for chunk in chunks:
            yield self._frame(chunk)

    def end(self) -> Iterator[bytes]:
        """After the last event: close what is open (a stream cut before `done` too)."""
        chunks = self._start() + self._close_text()
        if self._phase != "none":
            chunks.append({"type": "finish-step"})
        finish: Chunk = {"type": "finish", "finishReason": self._finish_reason()}
        if self.metadata:
            finish["messageMetadata"] = dict(self.metadata)
        chunks.append(finish)
        for chunk in chunks:
            yield self._frame(chunk)
        yield b"data: [DONE]\n\n"

    def _frame(self, chunk: Chunk) -> bytes:
        head = f"id: {self._seq}\n" if self._seq is not None else ""
        body = json.dumps(chunk, ensure_ascii=False, separators=(",", ":"))
        return f"{head}data: {body}\n\n".encode()

    def _finish_reason(self) -> str:
        if self._error:
            return "error"
        return "tool-calls" if self._awaiting else "stop"

    def _start(self) -> list[Chunk]:
        if self._started:
            return []
        self._started = True
        start: Chunk = {"type": "start"}
        message_id = self.message_id() if callable(self.message_id) else self.message_id
        if message_id is not None:
            start["messageId"] = message_id
        if self.metadata:
            start["messageMetadata"] = dict(self.metadata)
        return [start]

    # ---- steps and text ------------------------------------------------------------------

    def _close_text(self) -> list[Chunk]:
        if self._text_id is None:
            return []
        text_id, self._text_id = self._text_id, None
        return [{"type": "text-end", "id": text_id}]

    def _new_step(self, phase: Phase) -> list[Chunk]:
        """A model reply (or the calls no model asked for: page seeds) is a step of its own."""
        chunks = self._close_text()
        if self._phase != "none":
            chunks.append({"type": "finish-step"})
        chunks.append({"type": "start-step"})
        self._phase = phase
        return chunks

    def _text(self, delta: str) -> list[Chunk]:
        chunks = [] if self._phase == "reply" else self._new_step("reply")
        if self._text_id is None:
            self._texts += 1
            self._text_id = f"text-{self._texts}"
            chunks.append({"type": "text-start", "id": self._text_id})
        chunks.append({"type": "text-delta", "id": self._text_id, "delta": delta})
        return chunks

    def _reply_done(self) -> list[Chunk]:
        chunks = self._close_text()
        if self._phase == "reply":
            self._phase = "reply_done"
            return chunks
        return chunks + self._new_step("reply_done")  # a reply that only calls tools

    # ---- calls ---------------------------------------------------------------------------

    def _call_input(
        self,
        call_id: str,
        router: str,
        action: str,
        call_input: Any,
        *,
        client: bool = False,
        words: Mapping[str, Any] | None = None,
    ) -> list[Chunk]:
        """The call's part, once: a resolution's stream reports calls the message already has
        (answered in place) and held ones it never showed (added to the same step)."""
        if call_id in self._calls:
            return []
        name = action_tool_name(router, action)
        self._calls[call_id] = KnownCall(name, client=client)
        chunks = self._new_step("tools") if self._phase == "none" else []
        chunk: Chunk = {
            "type": "tool-input-available",
            "toolCallId": call_id,
            "toolName": name,
            "input": call_input,
            "toolMetadata": tool_metadata(router, action, words),
        }
        if not client:
            chunk["providerExecuted"] = True
        return [*chunks, titled(chunk, words)]

    def _answer(self, call_id: str, approved: bool, reason: str | None = None) -> list[Chunk]:
        """The approval's answer, once, before the call's outcome: what the person decided,
        also for a replay that never saw the request that carried it."""
        call = self._calls.get(call_id)
        if call is None or call.approval_id is None or call.answered:
            return []
        call.answered = True
        chunk: Chunk = {
            "type": "tool-approval-response",
            "approvalId": call.approval_id,
            "approved": approved,
            "providerExecuted": True,
        }
        if reason:
            chunk["reason"] = reason
        return [chunk]

    def _started_call(self, e: dict[str, Any]) -> list[Chunk]:
        call_id = e["toolUseId"]
        self._awaiting.discard(call_id)
        return [
            *self._close_text(),
            *self._answer(call_id, approved=True),
            *self._call_input(
                call_id, e["router"], e["action"], tool_input(e.get("input")), words=e
            ),
        ]

    def _completed(self, e: dict[str, Any]) -> list[Chunk]:
        call_id, router, action = e["toolUseId"], e["router"], e["action"]
        self._awaiting.discard(call_id)
        error = e.get("error") or {}
        code = None if e["ok"] else str(error.get("code") or "internal")
        client = is_client_tool(router, action)
        chunks = self._close_text()
        if code == REJECTED:
            chunks += self._answer(call_id, approved=False, reason=error.get("reason"))
        elif code not in _NEVER_DECIDED:
            chunks += self._answer(call_id, approved=True)
        chunks += self._call_input(call_id, router, action, {}, client=client, words=e)
        if code == REJECTED:
            return [*chunks, {"type": "tool-output-denied", "toolCallId": call_id}]
        outcome: Chunk
        if code is None:
            meta = tool_metadata(
                router,
                action,
                e,
                executionId=e.get("executionId"),
                inverseAvailable=bool(e.get("inverseAvailable")),
            )
            outcome = {"type": "tool-output-available", "toolCallId": call_id}
            outcome |= {"output": e.get("output"), "toolMetadata": meta}
        else:
            meta = tool_metadata(
                router, action, e, executionId=e.get("executionId"), errorCode=code
            )
            text = str(error.get("message") or code)
            outcome = {"type": "tool-output-error", "toolCallId": call_id, "errorText": text}
            outcome["toolMetadata"] = meta
        if not client:
            outcome["providerExecuted"] = True
        return [*chunks, outcome]

    def _confirmation(self, e: dict[str, Any]) -> list[Chunk]:
        call_id, router, action = e["toolUseId"], e["router"], e["action"]
        chunks = self._close_text() + self._call_input(
            call_id, router, action, tool_input(e.get("input")), words=e
        )
        approval_id = e.get("fingerprint") or call_fingerprint(router, action, e.get("input") or {})
        call = self._calls[call_id]
        call.approval_id, call.answered = approval_id, False  # an edited call is asked again
        self._awaiting.add(call_id)
        request: Chunk = {
            "type": "tool-approval-request",
            "approvalId": approval_id,
            "toolCallId": call_id,
            "approvalDescriptor": approval_descriptor(e.get("confirm"), e.get("confirmation")),
        }
        return [*chunks, request]

    def _picker(self, e: dict[str, Any]) -> list[Chunk]:
        call_id = e["toolUseId"]
        router, action = e.get("router") or "read", e.get("action") or "ask_user_to_pick"
        self._awaiting.add(call_id)
        asked = picker_input(e.get("kind"), e.get("prompt"), e.get("candidates"))
        return self._close_text() + self._call_input(call_id, router, action, asked, client=True)

    # ---- events --------------------------------------------------------------------------

    def _chunks(self, e: dict[str, Any]) -> list[Chunk]:
        kind = e["type"]
        if kind == "text_delta":
            return self._text(e["delta"])
        if kind == "message_done":
            return self._reply_done()
        if kind == "tool_started":
            return self._started_call(e)
        if kind == "tool_completed":
            return self._completed(e)
        if kind == "confirmation_pending":
            return self._confirmation(e)
        if kind == "disambiguation_pending":
            return self._picker(e)
        if kind == "conversation_started":
            self.metadata["conversationId"] = e["conversationId"]
            return [{"type": "message-metadata", "messageMetadata": dict(self.metadata)}]
        if kind in ("compaction_started", "compaction_finished"):
            data = {k: v for k, v in e.items() if k != "type"}
            data["status"] = "started" if kind == "compaction_started" else "finished"
            compaction = {"type": "data-compaction", "id": "compaction", "data": data}
            return [compaction | {"transient": True}]
        if kind == "error":
            self._error = True
            failure = {"code": e["code"], "traceId": e.get("traceId")}
            return [
                *self._close_text(),
                {"type": "message-metadata", "messageMetadata": {"error": failure}},
                {"type": "error", "errorText": e["message"]},
            ]
        if kind == "done":
            if e.get("conversationId"):
                self.metadata["conversationId"] = e["conversationId"]
            if "usage" in e:
                self.metadata["usage"] = e["usage"]
            return self._close_text()
        return []
