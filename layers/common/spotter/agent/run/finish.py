"""The end of every run — send, resume, resolve: one path for its failure, usage and `done`.

`run_events` is a run as its caller reads it: `finish_run` runs in its own task
(`agent.stream.channel`), runs the run's stages in turn (each puts its events on the channel and
returns the next step: `InConversation` once the run has its conversation, `ModelRun` once it
asks the model, `RunEnded` at its end), turns anything they raise into the run's code (a refusal
— a `SpotterError` such as a foreign conversation — is logged with its code at info level and
never reaches Sentry; a fault is `agent.turn_failed`), records the usage not yet recorded
(shielded from a client that left), emits `agent.turn.finished`, says `error?` + `done`, then —
a settled turn whose conversation is due — compacts it before the stream ends and the lease is
released (`run.compaction_gate`: the kick), and after that flushes analytics and refreshes the
embeddings of records a write changed.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import AsyncIterator
from functools import partial

from spotter.agent import events as ev
from spotter.agent.errors import ConversationBusy, classify, is_refusal
from spotter.agent.rag.refresh import refresh_after_run
from spotter.agent.run.compaction_gate import SettleCompaction, settle_compaction
from spotter.agent.run.metering import record_unrecorded
from spotter.agent.run.steps import InConversation, ModelRun, RunEnded, RunStage
from spotter.agent.state import RunStart, RunState
from spotter.agent.stream.channel import RunChannel, stream_run
from spotter.agent.telemetry import SOFT_TERMINAL
from spotter.db.errors import is_unavailable
from spotter.i18n import error_message


def run_events(
    start: RunStart, first: RunStage, *, model_run: bool, state: RunState | None = None
) -> AsyncIterator[ev.AgentEvent]:
    """The run's events as they happen. `model_run`: whether the run asks the model from its
    start (a send) or only after `ModelRun` (a resolution); `state`: its conversation, when it
    has one from the start (a resolution names it)."""
    run = partial(finish_run, start, first, model_run=model_run, state=state)
    return stream_run(start.log, run)


async def finish_run(
    start: RunStart,
    first: RunStage,
    channel: RunChannel,
    *,
    model_run: bool,
    state: RunState | None = None,
) -> None:
    """Run the stages from `first` to the run's end, then end it: `error?` + `done`."""
    end = RunEnded()
    log = start.log
    stage: RunStage | None = first
    try:
        while stage is not None:
            match await stage(channel):
                case InConversation(state=entered, then=then):
                    state, stage = entered, then
                case ModelRun(then=then):
                    model_run, stage = True, then
                case RunEnded() as ended:
                    end, stage = ended, None
    except asyncio.CancelledError:
        if not log.stopping:
            raise  # a cancellation that is not our stop is not ours to swallow
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
        start.telemetry.emit("agent.run.stopped", **(state.ids if state else start.ids()))
        end = RunEnded("run_stopped")
    except Exception as exc:
        code = classify(exc)
        ids = state.ids if state else start.ids()
        if is_refusal(exc):
            # the request cannot be served as asked: not a server fault, never sent to Sentry
            start.telemetry.emit("agent.request_refused", code=code, **ids)
        else:
            start.telemetry.failure(exc, code, **ids)
        live = exc.live_run_id if isinstance(exc, ConversationBusy) else None
        end = RunEnded(code, live_run_id=live)
    finally:
        log.ending = True
        end = await _close(start, end)
        if sys.exc_info()[0] is not None:
            await log.close()  # cancelled (the reader left): persist what was seen
    if end.model_run is not None:
        model_run = end.model_run
    await _say_done(start, state, end, channel, model_run=model_run)
    # after `done` reached the client, so analytics never delays the answer
    await start.telemetry.flush()
    if state is not None:
        await refresh_search_index(state)


async def _say_done(
    start: RunStart, state: RunState | None, end: RunEnded, channel: RunChannel, *, model_run: bool
) -> None:
    last = _last_events(start, state, end, model_run=model_run)
    kick = await _settle_compaction(state, end)
    for event in last:
        channel.record(event)
    if kick is None:
        # persisted (and the lease released) before the client sees `done`
        await _persist(start, database_gone=end.code == "service_unavailable")
        for event in last:
            channel.deliver(event)
    else:
        await _compact_after_done(start, kick, channel, last)


async def _settle_compaction(state: RunState | None, end: RunEnded) -> SettleCompaction | None:
    """The kick's decision for a run that ended with its turn complete; never its failure."""
    if state is None or end.code is not None:
        return None
    try:
        return await settle_compaction(state)
    except Exception as exc:  # the turn is done: compaction waits for the next gate
        state.telemetry.emit(
            "agent.compaction.kick_failed", level="warning", error=type(exc).__name__, **state.ids
        )
        return None


async def _compact_after_done(
    start: RunStart, kick: SettleCompaction, channel: RunChannel, last: list[ev.AgentEvent]
) -> None:
    """`done` persisted (the lease kept) and delivered, then the compaction on the same stream,
    then the last batch and the lease released — whatever happens meanwhile."""
    try:
        await start.log.flush()
        for event in last:
            channel.deliver(event)
        await kick.run(channel)
    finally:
        await _persist(start, database_gone=False)


async def _persist(start: RunStart, *, database_gone: bool) -> None:
    """The run's last event batch, which also releases the lease. With the database gone the
    client still gets its ending; the lease then expires by its rule."""
    try:
        await start.log.close(persist=not database_gone)
    except Exception as exc:
        if not is_unavailable(exc):
            raise


async def _close(start: RunStart, end: RunEnded) -> RunEnded:
    """The finish path's own write: usage no settle recorded (the lease is released with the
    run's last event batch, `agent.stream`). With the database away it cannot be done; the
    stream still ends, with `service_unavailable` (the lease and the holds expire by their
    rules) instead of dying without an event."""
    if end.code == "service_unavailable":
        return end  # the database just failed this run: another try only waits its bound again
    try:
        await record_unrecorded(start)
    except Exception as exc:
        if not is_unavailable(exc):
            raise
        if end.code is None or end.code == "internal":
            return RunEnded(classify(exc), model_run=end.model_run)
    return end


def _last_events(
    start: RunStart, state: RunState | None, end: RunEnded, *, model_run: bool
) -> list[ev.AgentEvent]:
    conversation_id = str(state.conversation_id) if state else None
    if not model_run:
        # nothing was asked of the model: zero usage, no turn event
        return [*_error(start, end), ev.Done(conversation_id=conversation_id)]
    usage = start.usage.event()
    ids = state.ids if state else start.ids()
    if end.code in SOFT_TERMINAL:
        start.telemetry.terminal_error(end.code, **ids)
    start.telemetry.emit(
        "agent.turn.finished",
        code=end.code,
        model_calls=len(start.usage.calls),
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_read_tokens=usage.cache_read_tokens,
        cache_write_tokens=usage.cache_write_tokens,
        cost_usd_micros=usage.cost_usd_micros,
        cache_hit_ratio=start.usage.cache_hit_ratio,
        duration_ms=round((time.perf_counter() - start.started) * 1000, 2),
        **ids,
    )
    done = ev.Done(conversation_id=conversation_id, usage=usage)
    return [*_error(start, end), done]


def _error(start: RunStart, end: RunEnded) -> list[ev.AgentEvent]:
    if end.code is None:
        return []
    text = end.message or error_message(end.code, start.caller.locale)
    live = str(end.live_run_id) if end.live_run_id else None
    return [ev.Error(code=end.code, message=text, trace_id=start.trace_id, run_id=live)]


async def refresh_search_index(state: RunState) -> None:
    """After `done`: a run whose writes changed searchable records re-embeds them (best effort)."""
    if state.wrote_records and state.deps.embedder is not None:
        await refresh_after_run(state.deps.db, state.caller.org_id, state.deps.embedder)
