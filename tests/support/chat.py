"""Talking to the AI SDK chat endpoints as `useChat` does: the SDK's request body, and its UI
message stream applied to the client's messages the way the SDK's `processUIMessageStream`
applies it (the subset Spotter sends). The Node contract test and the browser test prove the
real SDK reads the same streams the same way; this keeps the Python tests readable."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx

CHAT = "/agent/chat"


def ui_chunks(body: str) -> list[dict[str, Any]]:
    """Every chunk of a UI message stream body, in order (`[DONE]` left out)."""
    chunks = []
    for block in (b for b in body.strip().split("\n\n") if b):
        for line in block.split("\n"):
            if line.startswith("data: ") and line != "data: [DONE]":
                chunks.append(json.loads(line[len("data: ") :]))
    return chunks


def types(chunks: list[dict[str, Any]]) -> list[str]:
    return [c["type"] for c in chunks]


def user_message(text: str) -> dict[str, Any]:
    return {"id": uuid.uuid4().hex[:16], "role": "user", "parts": [{"type": "text", "text": text}]}


@dataclass
class ChatClient:
    """One tab's `useChat`: its chat id, its messages, and the requests the SDK would make."""

    http: httpx.AsyncClient
    headers: dict[str, str]
    chat_id: str = field(default_factory=lambda: uuid.uuid4().hex[:16])
    messages: list[dict[str, Any]] = field(default_factory=list)
    page_context: dict[str, Any] | None = None
    last: list[dict[str, Any]] = field(default_factory=list)  # the last response's chunks

    def body(
        self, trigger: str = "submit-message", message_id: str | None = None
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"id": self.chat_id, "messages": self.messages, "trigger": trigger}
        if message_id is not None:
            body["messageId"] = message_id
        if self.page_context is not None:
            body["pageContext"] = self.page_context
        return body

    async def post(self, body: dict[str, Any]) -> httpx.Response:
        return await self.http.post(CHAT, json=body, headers=self.headers)

    async def send(self, text: str) -> httpx.Response:
        """`sendMessage({ text })`: the user message, then the response as a new message."""
        self.messages.append(user_message(text))
        response = await self.post(self.body())
        if response.status_code == 200:
            self.apply(response.text, continues=None)
        return response

    async def submit(self) -> httpx.Response:
        """What `sendAutomaticallyWhen` sends once every answer is given: the messages, with
        `messageId` the assistant message the answers are in; the response continues it."""
        assistant = self.messages[-1]
        response = await self.post(self.body(message_id=assistant["id"]))
        if response.status_code == 200:
            self.apply(response.text, continues=assistant)
        return response

    async def resume(self, **headers: str) -> httpx.Response:
        """`resumeStream()` with the default transport (the stream is a replay of the message)."""
        response = await self.http.get(
            f"{CHAT}/{self.chat_id}/stream", headers={**self.headers, **headers}
        )
        if response.status_code == 200:
            self.apply(response.text, continues=None, replay=True)
        return response

    async def history(self) -> list[dict[str, Any]]:
        response = await self.http.get(f"{CHAT}/{self.chat_id}/messages", headers=self.headers)
        assert response.status_code == 200, response.text
        history: list[dict[str, Any]] = response.json()
        return history

    def assistant(self) -> dict[str, Any]:
        return next(m for m in reversed(self.messages) if m["role"] == "assistant")

    def part(self, call_id: str) -> dict[str, Any]:
        return next(p for p in self.assistant()["parts"] if p.get("toolCallId") == call_id)

    def approve(self, call_id: str, approved: bool = True, reason: str | None = None) -> None:
        """`addToolApprovalResponse({ id, approved, reason })`."""
        part = self.part(call_id)
        part["state"] = "approval-responded"
        part["approval"] = {**part["approval"], "approved": approved}
        if reason is not None:
            part["approval"]["reason"] = reason

    def answer(self, call_id: str, output: Any) -> None:
        """`addToolOutput({ tool, toolCallId, output })`."""
        part = self.part(call_id)
        part["state"], part["output"] = "output-available", output

    # ---- the SDK's processUIMessageStream, for what Spotter sends -------------------------

    def apply(self, body: str, *, continues: dict[str, Any] | None, replay: bool = False) -> None:
        self.last = chunks = ui_chunks(body)
        message = continues or {"id": uuid.uuid4().hex, "role": "assistant", "parts": []}
        reader = _Reader(message, replay)
        for chunk in chunks:
            if chunk["type"] == "error":
                break  # the SDK stops reading: the chat's status is `error`
            getattr(reader, chunk["type"].replace("-", "_"), lambda _: None)(chunk)
        message = reader.message
        if continues is None:
            existing = [i for i, m in enumerate(self.messages) if m["id"] == message["id"]]
            if existing:
                self.messages[existing[-1]] = message
            elif message["parts"]:
                self.messages.append(message)


@dataclass
class _Reader:
    """One chunk type per method, as `processUIMessageStream` handles it."""

    message: dict[str, Any]
    replay: bool
    texts: dict[str, dict[str, Any]] = field(default_factory=dict)

    def start(self, chunk: dict[str, Any]) -> None:
        if self.replay:  # `resumeStreamIsReplay`: the first start resets the message
            self.message = {"id": self.message["id"], "role": "assistant", "parts": []}
            self.replay = False
        self.message["id"] = chunk.get("messageId", self.message["id"])

    def start_step(self, chunk: dict[str, Any]) -> None:
        self.message["parts"].append({"type": "step-start"})

    def text_start(self, chunk: dict[str, Any]) -> None:
        self.texts[chunk["id"]] = {"type": "text", "text": "", "state": "streaming"}
        self.message["parts"].append(self.texts[chunk["id"]])

    def text_delta(self, chunk: dict[str, Any]) -> None:
        self.texts[chunk["id"]]["text"] += chunk["delta"]

    def text_end(self, chunk: dict[str, Any]) -> None:
        self.texts.pop(chunk["id"])["state"] = "done"

    def tool_input_available(self, chunk: dict[str, Any]) -> None:
        step = _current_step(self.message)
        part = next((p for p in step if p.get("toolCallId") == chunk["toolCallId"]), None)
        fields = {
            "type": f"tool-{chunk['toolName']}",
            "toolCallId": chunk["toolCallId"],
            "state": "input-available",
            "input": chunk["input"],
            "providerExecuted": chunk.get("providerExecuted"),
            "toolMetadata": chunk.get("toolMetadata"),
        }
        if chunk.get("title") is not None:  # the SDK keeps a title once given
            fields["title"] = chunk["title"]
        if part is None:
            self.message["parts"].append(fields)
        else:
            part.update(fields)

    def tool_approval_request(self, chunk: dict[str, Any]) -> None:
        part = _tool(self.message, chunk["toolCallId"])
        part["state"] = "approval-requested"
        part["approval"] = {
            "id": chunk["approvalId"],
            "descriptor": chunk.get("approvalDescriptor"),
        }

    def tool_approval_response(self, chunk: dict[str, Any]) -> None:
        part = next(
            p
            for p in self.message["parts"]
            if (p.get("approval") or {}).get("id") == chunk["approvalId"]
        )
        part["state"] = "approval-responded"
        part["approval"] = {**part["approval"], "approved": chunk["approved"]}

    def tool_output_available(self, chunk: dict[str, Any]) -> None:
        part = _tool(self.message, chunk["toolCallId"])
        part.update(state="output-available", output=chunk.get("output"))
        if "toolMetadata" in chunk:
            part["toolMetadata"] = chunk["toolMetadata"]

    def tool_output_error(self, chunk: dict[str, Any]) -> None:
        part = _tool(self.message, chunk["toolCallId"])
        part.update(state="output-error", errorText=chunk["errorText"])
        if "toolMetadata" in chunk:
            part["toolMetadata"] = chunk["toolMetadata"]

    def tool_output_denied(self, chunk: dict[str, Any]) -> None:
        _tool(self.message, chunk["toolCallId"])["state"] = "output-denied"


def _current_step(message: dict[str, Any]) -> list[dict[str, Any]]:
    parts = message["parts"]
    starts = [i for i, p in enumerate(parts) if p["type"] == "step-start"]
    return parts[starts[-1] + 1 :] if starts else parts


def _tool(message: dict[str, Any], call_id: str) -> dict[str, Any]:
    """The SDK's getToolInvocation: the current step first, then the whole message."""
    for part in [*_current_step(message), *reversed(message["parts"])]:
        if part.get("toolCallId") == call_id:
            return part
    raise AssertionError(f"no tool part {call_id} in the message")


def tool_parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for p in message["parts"] if p["type"].startswith("tool-")]


def text(message: dict[str, Any]) -> str:
    return "".join(p["text"] for p in message["parts"] if p["type"] == "text")
