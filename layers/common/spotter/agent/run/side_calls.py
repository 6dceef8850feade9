"""The run's small model calls (title, compaction, the quick lanes): one request, no streaming
to the client, recorded in the log with tokens and cost.

Only the quick lanes are tallied into the run's usage (they answer the user); title and
compaction calls are recorded but not tallied (spec: "Title generation and compaction calls are
not tallied").
"""

from __future__ import annotations

from typing import Any

from anthropic.types import Message

from spotter.agent.cost import CallUsage, Role, model_policy
from spotter.agent.run.metering import metered_call
from spotter.agent.state import RunState


async def side_call(
    state: RunState,
    role: Role,
    *,
    system: str | list[dict[str, Any]],
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None = None,
    tally: bool,
) -> Message:
    call = model_policy(state.deps.settings)[role]
    request: dict[str, Any] = {
        "model": call.model,
        "max_tokens": call.max_tokens,
        "system": system,
        "messages": messages,
    }
    if tools:
        request["tools"] = tools
    if tally:
        # a tallied call spends the budget: held first, recorded as it ends
        async with metered_call(state, request):
            final = await _call(state, request)
            usage = CallUsage.of(call.model, final.usage)
            state.usage.add(usage)
    else:
        final = await _call(state, request)
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


async def _call(state: RunState, request: dict[str, Any]) -> Message:
    # the same streaming endpoint as the loop: one client protocol for every call
    async with state.deps.client.messages.stream(**request) as stream:
        return await stream.get_final_message()


def reply_text(message: Message) -> str:
    return "".join(block.text for block in message.content if block.type == "text")


async def side_text(state: RunState, role: Role, system: str, user_text: str) -> str:
    """A one-shot text answer (title, summary): not tallied."""
    message = await side_call(
        state,
        role,
        system=system,
        messages=[{"role": "user", "content": [{"type": "text", "text": user_text}]}],
        tally=False,
    )
    return reply_text(message)
