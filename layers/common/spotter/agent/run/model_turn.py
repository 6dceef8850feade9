"""Calling the model once: build the cached request, stream text out, collect the reply."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from typing import Any

from anthropic.types import ContentBlock, Message, Usage

from spotter.agent import events as ev
from spotter.agent.cost import CallUsage
from spotter.agent.prompting import system_blocks, with_cached_tail
from spotter.agent.run.metering import metered_call
from spotter.agent.state import RunState
from spotter.agent.transcript import storable_reply
from spotter.tools.calls import PREVIEW_KEY

CUT_OFF_TEXT = "(reply cut off)"
NO_REPLY_TEXT = "(no reply)"
# A capped reply's last block is unfinished when it is one of these (thinking has no signature yet).
_UNFINISHABLE = frozenset({"tool_use", "thinking", "redacted_thinking"})
TRUNCATED_STOPS = frozenset({"max_tokens", "model_context_window_exceeded"})
# The SDK parses tool input as it streams (jiter, ~200 levels at most) and raises this when it
# cannot: the reply so far is kept and that call answered `invalid_args`, never the run ended.
_UNPARSEABLE_INPUT = "Unable to parse tool parameter JSON"
UNPARSEABLE_INPUT = {
    "code": "invalid_args",
    "message": "The tool input could not be parsed (malformed, or nested too deep); "
    "send it well-formed and flat.",
}


@dataclass(frozen=True)
class ModelReply:
    content: list[dict[str, Any]]  # as stored and replayed
    stop_reason: str | None
    model: str
    usage: CallUsage
    refused: dict[str, dict[str, Any]] = field(default_factory=dict)  # tool_use id → invalid_args

    @property
    def truncated(self) -> bool:
        return self.stop_reason in TRUNCATED_STOPS

    @property
    def tool_uses(self) -> list[dict[str, Any]]:
        return [b for b in self.content if b["type"] == "tool_use"]


def build_request(state: RunState) -> dict[str, Any]:
    """tools → system (two 5m markers) → messages (tail marker). Same tools every turn of a role."""
    request: dict[str, Any] = {
        "model": state.call.model,
        "max_tokens": state.call.max_tokens,
        "system": system_blocks(state.caller),
        "tools": state.registry.definitions,
        "messages": with_cached_tail(state.messages),  # canonical already
    }
    if state.call.thinking is not None:
        request["thinking"] = state.call.thinking
    return request


def stored_tool_use(tool_use_id: str, name: str, tool_input: Any) -> dict[str, Any]:
    """A tool_use block as stored and replayed: the model's preview metadata (`PREVIEW_KEY` in
    its args) is stripped before persistence — never trusted, so never kept or replayed."""
    if isinstance(tool_input, dict) and isinstance(tool_input.get("args"), dict):
        args = {k: v for k, v in tool_input["args"].items() if k != PREVIEW_KEY}
        tool_input = {**tool_input, "args": args}
    return {"type": "tool_use", "id": tool_use_id, "name": name, "input": tool_input}


def stored_block(block: ContentBlock) -> dict[str, Any] | None:
    """A response block as we store and replay it: only the fields the API takes back."""
    if block.type == "text":
        return {"type": "text", "text": block.text} if block.text else None
    if block.type == "tool_use":
        return stored_tool_use(block.id, block.name, block.input)
    if block.type == "thinking":
        return {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
    if block.type == "redacted_thinking":
        return {"type": "redacted_thinking", "data": block.data}
    return None  # server tools are not in Spotter's request


def finished_content(
    content: list[dict[str, Any]], stop_reason: str | None
) -> list[dict[str, Any]]:
    """Drop a capped reply's unfinished last block; never store an empty or thinking-only turn."""
    truncated = stop_reason in TRUNCATED_STOPS
    if truncated and content and content[-1]["type"] in _UNFINISHABLE:
        content = content[:-1]
    if not any(b["type"] not in ("thinking", "redacted_thinking") for b in content):
        # the API refuses an assistant turn without a visible block on replay
        return [{"type": "text", "text": CUT_OFF_TEXT if truncated else NO_REPLY_TEXT}]
    return content


async def stream_reply(state: RunState) -> AsyncGenerator[ev.TextDelta | ModelReply, None]:
    """Yield text deltas as they arrive, then the reply. Closing this generator (a client
    disconnect) closes the provider stream; the tokens already reported are still counted."""
    reported: Usage | None = None
    finished = False
    unparsed: str | None = None  # the tool_use whose input the SDK could not parse
    final: Message
    request = build_request(state)
    # held before the call, recorded (and the hold dropped) as soon as the call ends, however
    async with metered_call(state, request):
        try:
            async with state.deps.client.messages.stream(**request) as stream:
                try:
                    async for event in stream:
                        if event.type == "text" and event.text:
                            yield ev.TextDelta(delta=event.text)
                        elif event.type == "message_start":
                            reported = event.message.usage
                        elif event.type == "message_delta" and reported is not None:
                            reported = reported.model_copy(
                                update={"output_tokens": event.usage.output_tokens}
                            )
                    final = await stream.get_final_message()
                except ValueError as exc:
                    if _UNPARSEABLE_INPUT not in str(exc):
                        raise
                    final, unparsed = _cut_at_unparseable(stream.current_message_snapshot)
            finished = True
        finally:
            if not finished and reported is not None:
                state.usage.add(CallUsage.of(state.call.model, reported))
        usage = CallUsage.of(state.call.model, final.usage)
        state.usage.add(usage)
    content = [b for b in (stored_block(block) for block in final.content) if b is not None]
    # NUL characters and absurdly deep tool inputs are stored repaired, never fatal
    if unparsed is not None:
        content = [{**b, "input": {}} if b.get("id") == unparsed else b for b in content]
    storable = storable_reply(finished_content(content, final.stop_reason))
    refused = storable.refused | ({unparsed: UNPARSEABLE_INPUT} if unparsed else {})
    if storable.repaired:
        state.telemetry.emit(
            "agent.model_output.repaired",
            level="warning",
            blocks=storable.repaired,
            refused_calls=len(storable.refused),
            **state.ids,
        )
    yield ModelReply(
        content=storable.content,
        stop_reason=final.stop_reason,
        model=final.model,
        usage=usage,
        refused=refused,
    )


def _cut_at_unparseable(snapshot: Message) -> tuple[Message, str | None]:
    """The reply as far as it streamed, ending at the call whose input failed to parse (the
    rest of the stream is dropped); that call's id, to be answered `invalid_args`."""
    last = snapshot.content[-1] if snapshot.content else None
    unparsed = last.id if last is not None and last.type == "tool_use" else None
    return snapshot.model_copy(update={"stop_reason": "tool_use"}), unparsed
