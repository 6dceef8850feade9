"""The run's small model calls (title, compaction, the quick lanes): one request, no streaming
to the client, recorded in the log with tokens and cost.

Only the quick lanes are tallied into the run's usage (they answer the user); title and
compaction calls are recorded but not tallied (spec: "Title generation and compaction calls are
not tallied").
"""

from __future__ import annotations

from typing import Any

from spotter.agent.cost import CallUsage, Role, model_policy
from spotter.agent.run.metering import PrepaidHold, metered_call
from spotter.agent.state import RunState
from spotter.config import Settings
from spotter.providers.message_reply import ReplyReducer, StreamedReply
from spotter.providers.message_stream import open_stream
from spotter.providers.wire_request import WireRequest, to_json


def side_request(
    settings: Settings,
    role: Role,
    *,
    system: str | list[dict[str, Any]],
    messages: list[dict[str, Any]],
    tools_json: str | None = None,
) -> WireRequest:
    """A side call's request as posted. `tools_json`: the tools' definitions as serialized once
    by their registry."""
    call = model_policy(settings)[role]
    fields = {"tools": tools_json} if tools_json else {}
    fields |= {"system": to_json(system), "messages": to_json(messages)}
    return WireRequest.of(call.model, call.max_tokens, fields)


async def side_call(
    state: RunState,
    role: Role,
    *,
    system: str | list[dict[str, Any]],
    messages: list[dict[str, Any]],
    tools_json: str | None = None,
    tally: bool,
    prepaid: PrepaidHold | None = None,
) -> StreamedReply:
    """`prepaid`: a tallied call's hold taken ahead (`run.metering`)."""
    call = model_policy(state.deps.settings)[role]
    request = side_request(
        state.deps.settings, role, system=system, messages=messages, tools_json=tools_json
    )
    reducer = ReplyReducer()
    if tally:
        # a tallied call spends the budget: held first, recorded by the run's next transaction
        # (cut short — the quick route's time budget — it still counts what was reported)
        async with metered_call(state, request, prepaid) as metered:
            with metered.counting_cut_short(call.model, reducer):
                final = await _call(state, metered.request, reducer)
            usage = CallUsage.of(call.model, final.usage)
            metered.add_usage(usage)
    else:
        final = await _call(state, request, reducer)
        usage = CallUsage.of(call.model, final.usage)
    state.telemetry.emit(
        "agent.side_call",
        role=role,
        side_model=call.model,
        tallied=tally,
        input_tokens=usage.tokens.input_tokens,
        output_tokens=usage.tokens.output_tokens,
        cache_read_tokens=usage.tokens.cache_read_tokens,
        cost_usd_micros=usage.cost_usd_micros,
        **state.ids,
    )
    return final


async def _call(state: RunState, request: WireRequest, reducer: ReplyReducer) -> StreamedReply:
    # the same streaming endpoint and reducer as the loop: one client protocol for every call
    async with open_stream(state.deps.client, request) as stream:
        async for event in stream:
            reducer.feed(event)
    return reducer.reply()


async def side_text(state: RunState, role: Role, system: str, user_text: str) -> str:
    """A one-shot text answer (title, summary): not tallied."""
    message = await side_call(
        state,
        role,
        system=system,
        messages=[{"role": "user", "content": [{"type": "text", "text": user_text}]}],
        tally=False,
    )
    return message.text
