"""The end of a run: usage recorded once, the observability event, the last SSE events."""

from __future__ import annotations

import time

from spotter.agent import events as ev
from spotter.agent.state import RunState
from spotter.agent.telemetry import SOFT_TERMINAL
from spotter.db import Conn
from spotter.errors import ErrorCode
from spotter.i18n import error_message


async def record_usage(conn: Conn, state: RunState) -> None:
    if state.usage.calls and not state.usage_recorded:
        await state.usage.record(conn, state.caller.org_id, state.caller.user_id, state.now)
        state.usage_recorded = True


def finish(state: RunState, code: ErrorCode | None) -> list[ev.AgentEvent]:
    usage = state.usage.event()
    if code in SOFT_TERMINAL:
        state.telemetry.terminal_error(code, **state.ids)
    state.telemetry.emit(
        "agent.turn.finished",
        code=code,
        model_calls=len(state.usage.calls),
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_read_tokens=usage.cache_read_tokens,
        cache_write_tokens=usage.cache_write_tokens,
        cost_usd_micros=usage.cost_usd_micros,
        cache_hit_ratio=state.usage.cache_hit_ratio,
        duration_ms=round((time.perf_counter() - state.started) * 1000, 2),
        **state.ids,
    )
    events: list[ev.AgentEvent] = []
    if code is not None:
        message = error_message(code, state.caller.locale)
        events.append(ev.Error(code=code, message=message, trace_id=state.trace_id))
    conversation_id = str(state.conversation_id) if state.conversation_id else None
    events.append(ev.Done(conversation_id=conversation_id, usage=usage))
    return events
