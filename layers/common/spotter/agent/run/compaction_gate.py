"""The compaction gate before the model loop: estimate, plan, summarize, replay the projection.

Runs after the user turn is stored and before any loop call. The estimate follows the anchored
law (agent.context_size) with the prompt term = system + tools chars; the threshold is the
COMPACTION_THRESHOLD_TOKENS setting, clamped, under the loop model's context window. While a
summary is written the client sees `compaction_started` … `compaction_finished` (and the
conversation's `compacting: true` from the lease); afterwards the loop's history is rebuilt from
the stored rows, so it is the projection: the summary, then the kept tail.
"""

from __future__ import annotations

from functools import partial

from spotter.agent import events as ev
from spotter.agent.compaction import (
    SUMMARIZER_SYSTEM,
    compact,
    effective_threshold,
    estimate_context_tokens,
    plan_compaction,
)
from spotter.agent.cost import context_window
from spotter.agent.prompting import system_blocks
from spotter.agent.run.loop_call import valid_replay
from spotter.agent.run.side_calls import side_text
from spotter.agent.state import RunState
from spotter.agent.stream import Emitter
from spotter.agent.transcript import StoredMessage, load_history


def prompt_chars(state: RunState) -> int:
    """What every request carries before its messages: the system blocks and the tools."""
    system = sum(len(block["text"]) for block in system_blocks(state.caller))
    return system + len(state.registry.definitions_json)  # cached per registry


def threshold(state: RunState) -> int:
    setting = state.deps.settings.compaction_threshold_tokens
    return effective_threshold(setting, context_window(state.call.model))


async def compact_if_needed(state: RunState, events: Emitter, stored: list[StoredMessage]) -> None:
    """Emit the compaction events (nothing when no compaction is due); on success, replace
    `state.messages` with the replay of the compacted conversation."""
    rows = [m.as_row() for m in stored]
    estimated = estimate_context_tokens(rows, prompt_chars=prompt_chars(state))
    plan = plan_compaction(rows, estimated_tokens=estimated, threshold=threshold(state))
    if plan is None:
        return
    conversation = str(state.conversation_id)
    events.emit(ev.CompactionStarted(conversation_id=conversation))
    summarize = partial(side_text, state, "spotterCompaction", SUMMARIZER_SYSTEM)
    done = await compact(
        state.deps.db, state.caller.org_id, state.conversation_id, state.run_id, plan, summarize
    )
    if done is not None:
        async with state.deps.db.org_tx(state.caller.org_id) as conn:
            stored = await load_history(conn, state.caller, state.conversation_id)
        state.messages = valid_replay(state, stored)
    events.emit(
        ev.CompactionFinished(
            conversation_id=conversation,
            compacted=done is not None,
            summarized_messages=done.summarized_messages if done else 0,
        )
    )
