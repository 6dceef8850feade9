"""Raw Messages stream events (dicts, as `message_stream.open_stream` yields them) folded into
the reply: its content blocks in the shape we store and replay, stop reason, model and usage.

Unlike the SDK's `accumulate_event` there is no per-event snapshot: text and thinking deltas
are collected and joined once, a tool call's `partial_json` is parsed once at its
`content_block_stop` (with jiter, the SDK's own parser, so what parses is what parsed before).
A tool input that does not parse (malformed, or nested past jiter's limit) becomes `{}` and its
id is listed in `unparsed`, for the caller to answer `invalid_args`; the stream goes on.
Text and thinking arrive repaired (`db.text`: a NUL or lone surrogate becomes U+FFFD), so what
is streamed, stored, titled and summarized is the same text, and all of it storable.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from jiter import from_json

from spotter.db.text import repaired_text


class IncompleteStream(RuntimeError):
    """The stream ended before it said which message it was (no `message_start`): there is
    no reply to store, as with the SDK helper, which raised too."""


@dataclass(frozen=True)
class StreamedReply:
    content: list[dict[str, Any]]  # text (non-empty), tool_use, thinking, redacted_thinking
    stop_reason: str | None
    model: str
    usage: Mapping[str, Any]  # the API's usage object, message_delta's totals merged in
    unparsed: tuple[str, ...] = ()  # tool_use ids whose input could not be parsed

    @property
    def text(self) -> str:
        return "".join(b["text"] for b in self.content if b["type"] == "text")

    @property
    def tool_uses(self) -> list[dict[str, Any]]:
        return [b for b in self.content if b["type"] == "tool_use"]


@dataclass
class _Block:
    start: dict[str, Any]  # the content_block of content_block_start
    parts: list[str] = field(default_factory=list)  # text, thinking or partial_json deltas
    signature: str | None = None
    stopped: bool = False


class ReplyReducer:
    """Feed every event in order; `feed` returns a text delta to pass on as it arrives."""

    def __init__(self) -> None:
        self.model = ""
        self.stop_reason: str | None = None
        self._usage: dict[str, Any] | None = None
        self._blocks: dict[int, _Block] = {}
        self._unparsed: list[str] = []
        self._inputs: dict[int, Any] = {}

    @property
    def usage(self) -> Mapping[str, Any] | None:
        """What the stream reported so far: message_start's usage, updated by message_delta.
        A stream closed early still counts the tokens reported up to then."""
        return self._usage

    def feed(self, event: object) -> str | None:
        if not isinstance(event, dict):
            return None
        kind = event.get("type")
        if kind == "content_block_delta":
            return self._delta(event["index"], event["delta"])
        if kind == "content_block_start":
            self._blocks[event["index"]] = _Block(dict(event["content_block"]))
        elif kind == "content_block_stop":
            self._stop(event["index"])
        elif kind == "message_start":
            message = event["message"]
            self.model = message.get("model") or ""
            self._usage = dict(message.get("usage") or {})
        elif kind == "message_delta":
            self.stop_reason = event["delta"].get("stop_reason")
            # totals, not increments: a field sent overwrites, one left out keeps its value
            reported = {k: v for k, v in (event.get("usage") or {}).items() if v is not None}
            self._usage = {**(self._usage or {}), **reported}
        return None

    def _delta(self, index: int, delta: dict[str, Any]) -> str | None:
        block = self._blocks.get(index)
        if block is None:
            return None
        kind = delta.get("type")
        if kind == "text_delta":
            text = repaired_text(str(delta["text"]))
            block.parts.append(text)
            return text or None
        if kind == "input_json_delta":
            block.parts.append(delta["partial_json"])
        elif kind == "thinking_delta":
            block.parts.append(repaired_text(str(delta["thinking"])))
        elif kind == "signature_delta":
            block.signature = delta["signature"]
        return None

    def _stop(self, index: int) -> None:
        block = self._blocks.get(index)
        if block is None or block.stopped:
            return
        block.stopped = True
        if block.start.get("type") == "tool_use" and block.parts:
            try:
                self._inputs[index] = from_json("".join(block.parts).encode())
            except ValueError:
                self._inputs[index] = {}
                self._unparsed.append(block.start["id"])

    def reply(self) -> StreamedReply:
        if self._usage is None:
            raise IncompleteStream("the model's stream ended before message_start")
        content = [
            b for b in (self._finished(i, block) for i, block in sorted(self._blocks.items())) if b
        ]
        return StreamedReply(
            content=content,
            stop_reason=self.stop_reason,
            model=self.model,
            usage=self._usage,
            unparsed=tuple(self._unparsed),
        )

    def _finished(self, index: int, block: _Block) -> dict[str, Any] | None:
        start = block.start
        kind = start.get("type")
        if kind == "text":
            text = repaired_text(start.get("text", "")) + "".join(block.parts)
            return {"type": "text", "text": text} if text else None
        if kind == "tool_use":
            return {
                "type": "tool_use",
                "id": start["id"],
                "name": start["name"],
                "input": self._input(index, block),
            }
        if kind == "thinking":
            thinking = repaired_text(start.get("thinking", "")) + "".join(block.parts)
            signature = block.signature if block.signature is not None else start.get("signature")
            return {"type": "thinking", "thinking": thinking, "signature": signature or ""}
        if kind == "redacted_thinking":
            return {"type": "redacted_thinking", "data": start["data"]}
        return None  # server tools are not in Spotter's requests

    def _input(self, index: int, block: _Block) -> Any:
        if index in self._inputs:
            return self._inputs[index]
        if not block.parts:
            return start_input if isinstance(start_input := block.start.get("input"), dict) else {}
        # never stopped (the reply was capped mid-call): as far as it streamed, as the SDK had it
        try:
            return from_json("".join(block.parts).encode(), partial_mode=True)
        except ValueError:
            return {}
