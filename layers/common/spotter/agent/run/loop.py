"""Sending a message: the run's state machine, as an async generator of SSE events.

conversation_started (new) → ambient RAG → budget pre-check → user turn (title in the
background) → T1 quick route (answers, acts once, or declines) → compaction gate → T0 page
seeds → model loop (≤ MAX_TURNS round trips: stream, store the reply, run its tools, feed the
results back) → finalize → done → embeddings refresh after writes. Each phase lives in its own
module; this one only sequences them.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import anyio

from spotter.agent import events as ev
from spotter.agent.errors import classify
from spotter.agent.rag.ambient import find_ambient, render_ambient
from spotter.agent.rag.refresh import refresh_after_run
from spotter.agent.run.compaction_gate import compact_if_needed
from spotter.agent.run.finish import finish, record_usage
from spotter.agent.run.model_turn import ModelReply, stream_reply
from spotter.agent.run.prepare import SendMessage, prepare_run
from spotter.agent.run.quick_lane import QuickLane, try_quick_route
from spotter.agent.run.seeding import seed_page_reads
from spotter.agent.run.title_task import finish_title, start_title
from spotter.agent.run.tool_batch import ToolBatch, plan_calls, run_tool_calls
from spotter.agent.state import MAX_TURNS, AgentDeps, RunState
from spotter.agent.transcript.history import ExecutionRow, StoredMessage, insert_executions
from spotter.agent.transcript.message_log import append_message
from spotter.agent.transcript.replay import tool_result_block
from spotter.auth.caller import Caller
from spotter.errors import ErrorCode
from spotter.i18n import translate

__all__ = ["SendMessage", "refresh_search_index", "resume_model_loop", "send_message"]

TRUNCATED_BATCH_INSTRUCTION = (
    "Your reply hit the output limit before it was complete, so NONE of its tool calls ran. "
    "Redo the work with fewer calls: use a bulk tool (class_sessions.create_many, replicate_day, "
    "copy_week, program_templates.apply, the *.bulk_* tools) or at most 8 calls per reply."
)
NOT_RUN = "Not run: the reply was cut off at the output limit (see the first result)."


@dataclass
class _LoopEnd:
    code: ErrorCode | None = None


async def send_message(
    deps: AgentDeps, caller: Caller, request: SendMessage
) -> AsyncIterator[ev.AgentEvent]:
    state = RunState.begin(deps, caller)
    end = _LoopEnd()
    title: asyncio.Task[str | None] | None = None
    try:
        # before the user row is written, so the stored turn context is written once
        hits = await find_ambient(deps.db, caller.org_id, request.text, deps.embedder)
        prepared = await prepare_run(state, request, render_ambient(hits))
        if prepared.new_conversation:
            assert state.conversation_id is not None
            yield ev.ConversationStarted(conversation_id=str(state.conversation_id))
        if prepared.budget.exceeded:
            amount = f"{prepared.budget.cap_usd_micros / 1_000_000:.2f}"
            message = translate("agent.budget.exceeded", caller.locale).replace("{amount}", amount)
            state.telemetry.emit("agent.budget_exceeded", **state.ids)
            yield ev.Error(code="agent_budget_exceeded", message=message, trace_id=state.trace_id)
            yield ev.Done(conversation_id=str(state.conversation_id))
            await state.telemetry.flush()
            return
        if prepared.new_conversation:
            title = start_title(state, request.text)  # beside the loop; awaited before done
        quick = QuickLane()
        async with aclosing(try_quick_route(state, prepared.stored, request.text, quick)) as lane:
            async for event in lane:
                yield event
        if not quick.handled:
            async with aclosing(_full_run(state, request, prepared.stored, end)) as run:
                async for event in run:
                    yield event
        await finish_title(title)
    except Exception as exc:
        end.code = classify(exc)
        state.telemetry.failure(exc, end.code, **state.ids)
    finally:
        if title is not None and not title.done():
            title.cancel()  # a failed or abandoned run does not wait for its title
        await _record_unrecorded_usage(state)
    for event in finish(state, end.code):
        yield event
    # after `done` reached the client, so analytics never delays the answer
    await state.telemetry.flush()
    await refresh_search_index(state)


async def refresh_search_index(state: RunState) -> None:
    """After `done`: a run whose writes changed searchable records re-embeds them (best effort)."""
    if state.wrote_records and state.deps.embedder is not None:
        await refresh_after_run(state.deps.db, state.caller.org_id, state.deps.embedder)


async def _record_unrecorded_usage(state: RunState) -> None:
    """Tokens spent by a run that did not reach its normal recording (an error, a disconnect)
    are recorded anyway; a cancelled scope must not stop this."""
    if state.usage_recorded or not state.usage.calls:
        return
    with anyio.CancelScope(shield=True):
        async with state.deps.db.org_tx(state.caller.org_id) as conn:
            await record_usage(conn, state)


async def _full_run(
    state: RunState, request: SendMessage, stored: list[StoredMessage], end: _LoopEnd
) -> AsyncGenerator[ev.AgentEvent, None]:
    """Compaction gate, T0 page seeds, then the model loop."""
    async with aclosing(compact_if_needed(state, stored)) as gate:
        async for event in gate:
            yield event
    async with aclosing(seed_page_reads(state, request.pathname, request.selection)) as seeds:
        async for event in seeds:
            yield event
    async with aclosing(_drive_model_loop(state, end)) as loop:
        async for event in loop:
            yield event


async def _drive_model_loop(state: RunState, end: _LoopEnd) -> AsyncGenerator[ev.AgentEvent, None]:
    for _ in range(MAX_TURNS):
        if state.resumed and await state.spend_cap_reached():
            # a resumed run never passed the send's pre-check: check before every call
            end.code = "agent_budget_exceeded"
            return
        state.model_turns += 1
        reply: ModelReply | None = None
        # aclosing: a client that goes away closes the provider stream now, not at GC
        async with aclosing(stream_reply(state)) as replies:
            async for item in replies:
                if isinstance(item, ModelReply):
                    reply = item
                else:
                    yield item
        assert reply is not None
        tool_uses = reply.tool_uses
        final = not tool_uses and not reply.truncated
        message_id = await _store_reply(state, reply, record=final)
        yield ev.MessageDone(message_id=str(message_id), stop_reason=reply.stop_reason)
        if reply.truncated:
            if await _recover_truncated(state, message_id, tool_uses):
                continue
            end.code = "provider_output_truncated"
            return
        if final:
            return
        batch = ToolBatch()
        calls = run_tool_calls(state, message_id, plan_calls(state, tool_uses), batch)
        async with aclosing(calls) as tool_events:
            async for event in tool_events:
                yield event
        if batch.suspended:
            return  # the user decides; resolving the message resumes the loop
        await _store_results(state, batch.results)
    end.code = "max_turns_reached"


async def _recover_truncated(
    state: RunState, message_id: UUID, tool_uses: list[dict[str, Any]]
) -> bool:
    """A cut-off batch never runs. The first one of a run is answered with errors and the loop
    goes on (True); a second one, or a cut-off reply without a complete call, ends the run."""
    if tool_uses:
        await _discard_batch(state, message_id, tool_uses)
    if not tool_uses or state.truncated_once:
        return False
    state.truncated_once = True
    return True


async def _store_reply(state: RunState, reply: ModelReply, *, record: bool) -> UUID:
    """Persist the assistant turn; when it ends the run, record usage in the same transaction."""
    assert state.conversation_id is not None
    async with state.deps.db.org_tx(state.caller.org_id) as conn:
        appended = await append_message(
            conn, state.caller.org_id, state.conversation_id, run_id=state.run_id,
            role="assistant", content=reply.content, model=reply.model,
            stop_reason=reply.stop_reason, usage=reply.usage.as_json(),
        )  # fmt: skip
        if record:
            await record_usage(conn, state)
    state.messages.append({"role": "assistant", "content": reply.content})
    return appended.id


async def _store_results(state: RunState, results: list[dict[str, Any]]) -> None:
    assert state.conversation_id is not None
    async with state.deps.db.org_tx(state.caller.org_id) as conn:
        await append_message(
            conn, state.caller.org_id, state.conversation_id, run_id=state.run_id,
            role="tool_result", content=results,
        )  # fmt: skip
    state.messages.append({"role": "user", "content": results})


async def _discard_batch(
    state: RunState, message_id: UUID, tool_uses: list[dict[str, Any]]
) -> None:
    """A cut-off batch never runs: failed + discarded rows, and error results the model reads
    (the first carries the instruction), in one transaction. The client is told nothing more."""
    assert state.conversation_id is not None
    results, rows = [], []
    for position, block in enumerate(tool_uses):
        error = {
            "code": "output_truncated",
            "message": TRUNCATED_BATCH_INSTRUCTION if position == 0 else NOT_RUN,
        }
        results.append(tool_result_block(block["id"], False, error))
        action = block["input"].get("action") if isinstance(block["input"], dict) else None
        rows.append(
            ExecutionRow(
                message_id=message_id,
                position=position,
                tool_use_id=block["id"],
                router=block["name"],
                action=action if isinstance(action, str) else "",
                input=block["input"],
                status="failed",
                error=error,
                discarded=True,
            )
        )
    async with state.deps.db.org_tx(state.caller.org_id) as conn:
        await insert_executions(conn, state.caller, state.conversation_id, rows)
        await append_message(
            conn, state.caller.org_id, state.conversation_id, run_id=state.run_id,
            role="tool_result", content=results,
        )  # fmt: skip
    state.messages.append({"role": "user", "content": results})


async def resume_model_loop(state: RunState) -> AsyncGenerator[ev.AgentEvent, None]:
    """The run a resolved message resumes: the model loop over the settled history (already in
    `state.messages`), recorded and finished like a send."""
    end = _LoopEnd()
    try:
        async with aclosing(_drive_model_loop(state, end)) as loop:
            async for event in loop:
                yield event
    except Exception as exc:
        end.code = classify(exc)
        state.telemetry.failure(exc, end.code, **state.ids)
    finally:
        await _record_unrecorded_usage(state)
    for event in finish(state, end.code):
        yield event
    await state.telemetry.flush()
