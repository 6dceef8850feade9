"""The AI SDK UI message stream protocol (v1), a second encoding of Spotter's events, so a
dashboard built on `useChat` reads Spotter unchanged.

Each frame is `data: <chunk JSON>` (with Spotter's `id:`), the stream ends `data: [DONE]`, and
the response says `x-vercel-ai-ui-message-stream: v1`. One run is one assistant UI message:
`start`, then per model call a `start-step` … `finish-step` holding its `text-start/-delta/-end`
and the tool calls it asked for. A tool call is `tool-input-available` (tool name = the router,
input `{action, args}`), then `tool-output-available` or `tool-output-error`. A confirmation is
a `data-confirmation` part (the card and its fingerprint) and `tool-approval-request` whose
`approvalId` is the fingerprint, so an approval names what was shown. Pickers, compaction, usage
and the conversation id are `data-picker`, `data-compaction`, `data-usage`, `data-conversation`;
an error is `error`; `done` is `finish`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from spotter.agent.stream import Recorded

UI_STREAM_HEADERS = {"x-vercel-ai-ui-message-stream": "v1"}


class UiMessageStream:
    """Stateful: which text part and step are open, which tool calls the client knows."""

    def __init__(self) -> None:
        self._started = False
        self._step_open = False
        self._text_id: str | None = None
        self._texts = 0
        self._tools: set[str] = set()
        self._finish_reason = "stop"
        self._id: int | None = None
        self._turn_done = False

    def frames(self, recorded: Recorded) -> Iterator[bytes]:
        self._id = recorded.seq
        for chunk in self._chunks(recorded.data):
            yield self._frame(chunk)

    def end(self) -> Iterator[bytes]:
        """After the last event: close what is open (a stream cut before `done` too)."""
        if self._started:
            for chunk in [*self._close_step(), self._finish()]:
                yield self._frame(chunk)
        yield b"data: [DONE]\n\n"

    def _frame(self, chunk: dict[str, Any]) -> bytes:
        head = f"id: {self._id}\n" if self._id is not None else ""
        body = json.dumps(chunk, ensure_ascii=False, separators=(",", ":"))
        return f"{head}data: {body}\n\n".encode()

    def _start(self) -> list[dict[str, Any]]:
        if self._started:
            return []
        self._started = True
        return [{"type": "start"}]

    def _open_step(self) -> list[dict[str, Any]]:
        if self._step_open:
            return []
        self._step_open = True
        return [{"type": "start-step"}]

    def _close_text(self) -> list[dict[str, Any]]:
        if self._text_id is None:
            return []
        text_id, self._text_id = self._text_id, None
        return [{"type": "text-end", "id": text_id}]

    def _close_step(self) -> list[dict[str, Any]]:
        closed = self._close_text()
        if self._step_open:
            self._step_open = False
            closed.append({"type": "finish-step"})
        return closed

    def _finish(self) -> dict[str, Any]:
        """The message ends; a replay that goes on to a later run starts a new one."""
        finish = {"type": "finish", "finishReason": self._finish_reason}
        self._started, self._tools, self._finish_reason = False, set(), "stop"
        self._turn_done = False
        return finish

    def _tool_input(self, e: dict[str, Any]) -> list[dict[str, Any]]:
        """The call, once: a resolution's stream reports calls its own stream never started."""
        tool_use_id = e["toolUseId"]
        if tool_use_id in self._tools:
            return []
        self._tools.add(tool_use_id)
        call_input = e.get("input") or {"action": e.get("action")}
        return [
            *self._open_step(),
            {
                "type": "tool-input-available",
                "toolCallId": tool_use_id,
                "toolName": e["router"],
                "input": call_input,
            },
        ]

    def _chunks(self, e: dict[str, Any]) -> list[dict[str, Any]]:
        kind = e["type"]
        chunks = self._start()
        if kind == "conversation_started":
            data = {"conversationId": e["conversationId"]}
            chunks.append({"type": "data-conversation", "data": data})
        elif kind == "text_delta":
            if self._turn_done:  # a new model call: the last one's step (and its tools) ends
                self._turn_done = False
                chunks += self._close_step()
            chunks += self._open_step()
            if self._text_id is None:
                self._texts += 1
                self._text_id = f"text-{self._texts}"
                chunks.append({"type": "text-start", "id": self._text_id})
            chunks.append({"type": "text-delta", "id": self._text_id, "delta": e["delta"]})
        elif kind == "message_done":
            # the step stays open for the tool calls this reply asked for
            self._turn_done = True
            chunks += self._close_text()
        elif kind == "tool_started":
            chunks += self._close_text() + self._tool_input(e)
        elif kind == "tool_completed":
            chunks += self._close_text() + self._tool_input(e)
            if e["ok"]:
                out = e.get("output")
                chunks.append(
                    {"type": "tool-output-available", "toolCallId": e["toolUseId"], "output": out}
                )
            else:
                error = e.get("error") or {}
                text = str(error.get("message") or error.get("code") or "failed")
                chunks.append(
                    {"type": "tool-output-error", "toolCallId": e["toolUseId"], "errorText": text}
                )
        elif kind == "confirmation_pending":
            self._finish_reason = "tool-calls"
            card = {k: e.get(k) for k in ("toolUseId", "confirm", "confirmation", "fingerprint")}
            chunks += self._close_text() + self._tool_input(e)
            chunks.append({"type": "data-confirmation", "id": e["toolUseId"], "data": card})
            approval = e.get("fingerprint") or e["toolUseId"]
            chunks.append(
                {
                    "type": "tool-approval-request",
                    "approvalId": approval,
                    "toolCallId": e["toolUseId"],
                }
            )
        elif kind == "disambiguation_pending":
            self._finish_reason = "tool-calls"
            picker = {k: e.get(k) for k in ("toolUseId", "kind", "prompt", "candidates")}
            chunks += self._close_text()
            chunks.append({"type": "data-picker", "id": e["toolUseId"], "data": picker})
        elif kind in ("compaction_started", "compaction_finished"):
            data = {k: v for k, v in e.items() if k != "type"}
            data["status"] = "started" if kind == "compaction_started" else "finished"
            chunks.append({"type": "data-compaction", "id": "compaction", "data": data})
        elif kind == "error":
            self._finish_reason = "error"
            chunks.append({"type": "error", "errorText": e["message"]})
        elif kind == "done":
            chunks += self._close_step()
            usage = {"conversationId": e.get("conversationId"), **e.get("usage", {})}
            chunks.append({"type": "data-usage", "data": usage})
            chunks.append(self._finish())
        return chunks
