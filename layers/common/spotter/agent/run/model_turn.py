"""Calling the model once: build the cached request, stream text out, collect the reply."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from spotter.agent import events as ev
from spotter.agent.cost import CallUsage
from spotter.agent.executions import used_tool_use_ids
from spotter.agent.prompting import system_blocks, with_cached_tail
from spotter.agent.run.metering import metered_call
from spotter.agent.state import RunState
from spotter.agent.stream import Emitter
from spotter.agent.transcript import storable_reply
from spotter.agent.transcript.storable import distinct_tool_ids, tool_use_ids
from spotter.providers.message_reply import ReplyReducer
from spotter.providers.message_stream import open_stream
from spotter.providers.wire_request import WireRequest, to_json
from spotter.tools.calls import PREVIEW_KEY
from spotter.tools.errors import ToolError

CUT_OFF_TEXT = "(reply cut off)"
NO_REPLY_TEXT = "(no reply)"
# A capped reply's last block is unfinished when it is one of these (thinking has no signature yet).
_UNFINISHABLE = frozenset({"tool_use", "thinking", "redacted_thinking"})
TRUNCATED_STOPS = frozenset({"max_tokens", "model_context_window_exceeded"})
# A tool input that does not parse (jiter, ~200 levels at most) is stored as `{}` and that call
# answered `invalid_args` (providers.message_reply), never the run ended.
UNPARSEABLE_INPUT = ToolError(
    "invalid_args",
    "The tool input could not be parsed (malformed, or nested too deep); "
    "send it well-formed and flat.",
)


@dataclass(frozen=True)
class ModelReply:
    content: list[dict[str, Any]]  # as stored and replayed
    stop_reason: str | None
    model: str
    usage: CallUsage
    refused: dict[str, ToolError] = field(default_factory=dict)  # tool_use id → invalid_args

    @property
    def truncated(self) -> bool:
        return self.stop_reason in TRUNCATED_STOPS

    @property
    def tool_uses(self) -> list[dict[str, Any]]:
        return [b for b in self.content if b["type"] == "tool_use"]


def wire_request(state: RunState) -> WireRequest:
    """tools → system (two 5m markers) → messages (tail marker). The tools' JSON is the
    registry's, serialized once per role; a call serializes its system and messages only."""
    fields: dict[str, str] = {}
    if state.call.thinking is not None:
        fields["thinking"] = to_json(state.call.thinking)
    fields["tools"] = state.registry.definitions_json
    fields["system"] = to_json(system_blocks(state.caller))
    fields["messages"] = to_json(with_cached_tail(state.messages))  # canonical already
    return WireRequest.of(state.call.model, state.call.max_tokens, fields)


def stored_tool_use(tool_use_id: str, name: str, tool_input: Any) -> dict[str, Any]:
    """A tool_use block as stored and replayed: the model's preview metadata (`PREVIEW_KEY` in
    its args) is stripped before persistence — never trusted, so never kept or replayed."""
    if isinstance(tool_input, dict) and isinstance(tool_input.get("args"), dict):
        args = {k: v for k, v in tool_input["args"].items() if k != PREVIEW_KEY}
        tool_input = {**tool_input, "args": args}
    return {"type": "tool_use", "id": tool_use_id, "name": name, "input": tool_input}


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


async def used_tool_ids(state: RunState, content: list[dict[str, Any]]) -> set[str]:
    """The tool_use ids this reply may not take: every id the replay holds (all the model can
    have seen), and after a compaction those of the calls it summarized (one indexed read)."""
    used = tool_use_ids(state.messages)
    asked = [b["id"] for b in content if b["type"] == "tool_use" and b["id"] not in used]
    if state.compacted and asked:
        db, org_id = state.deps.db, state.caller.org_id
        used |= await used_tool_use_ids(db, org_id, state.conversation_id, asked)
    return used


async def stream_reply(state: RunState, events: Emitter) -> ModelReply:
    """Emit text deltas as they arrive; return the reply. A cancelled run (a client that left,
    a stop) closes the provider stream here at once; the tokens already reported still count."""
    reducer = ReplyReducer()
    request = wire_request(state)
    # held before the call; its usage and hold settle in the run's next transaction, however
    # the call ends (the reply's own, or the finish path's)
    async with metered_call(state, request) as metered:
        with metered.counting_cut_short(state.call.model, reducer):
            async with open_stream(state.deps.client, metered.request) as stream:
                async for event in stream:
                    if (delta := reducer.feed(event)) is not None:
                        events.emit(ev.TextDelta(delta=delta))
        final = reducer.reply()
        usage = CallUsage.of(state.call.model, final.usage)
        metered.add_usage(usage)
    content = [
        stored_tool_use(b["id"], b["name"], b["input"]) if b["type"] == "tool_use" else b
        for b in final.content
    ]
    # a reused tool_use id is renamed; NUL characters, lone surrogates and absurdly deep tool
    # inputs are stored repaired: invalid model output is never fatal
    content, renamed = distinct_tool_ids(content, await used_tool_ids(state, content))
    storable = storable_reply(finished_content(content, final.stop_reason))
    kept = {b["id"] for b in storable.content if b["type"] == "tool_use"}
    refused = storable.refused | {i: UNPARSEABLE_INPUT for i in final.unparsed if i in kept}
    if storable.repaired or renamed:
        state.telemetry.emit(
            "agent.model_output.repaired",
            level="warning",
            blocks=storable.repaired,
            refused_calls=len(storable.refused),
            renamed_calls=renamed,
            **state.ids,
        )
    return ModelReply(
        content=storable.content,
        stop_reason=final.stop_reason,
        model=final.model,
        usage=usage,
        refused=refused,
    )
