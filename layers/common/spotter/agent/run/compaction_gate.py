"""Compaction around a run, off the user's path (spec 002): the kick when a turn settles, the
wait of a send that finds it in flight, and the gate before the loop.

- **The kick** (`settle_compaction`, from `run.finish`): when a run ends with its turn complete
  (no error, nobody asked to approve or pick), the run's own history says whether compaction is
  due (the anchored estimate, in memory: no read). If so the run, still holding the
  conversation's lease, takes the compaction lease and reads the history in one round trip,
  says `done` (the turn is over for the client), then summarizes (3 s at most) in the same
  invocation: `compaction_started` … `compaction_finished` follow `done` on the run's stream,
  persisted with their ids, so every stream open on the conversation (the sender's, a follower's)
  sees them; the run's lease is released after. On Lambda the response, and so the invocation,
  lasts until then: work after a response ends is frozen with the invocation, so none is left
  there. The summary lands in the user's reading pause, not on their next send.
- **The wait** (`wait_for_compaction`): a send that finds the conversation held by a run that is
  compacting waits for it (`COMPACTION_WAIT_SECONDS` at most) instead of being refused, saying
  `compaction_started` … `compaction_finished` (before its run has the conversation: no ids),
  then tries again; still held afterwards, it is `conversation_busy` as before.
- **The gate** (`compact_if_needed`): after the user turn is stored and before any loop call, a
  conversation still over the trigger (the last run failed, was stopped or waited for a person,
  or its kick failed) is compacted before the loop, as before. One attempt per run: a run whose
  gate tried does not kick again.

The estimate follows the anchored law (agent.compaction.context_size) with the prompt term =
system + tools chars; the threshold is the COMPACTION_THRESHOLD_TOKENS setting, clamped, under
the loop model's context window. While a summary is written the conversation shows
`compacting: true` (its lease). The summary comes from the compaction role through the run's
client (recorded, not tallied: the spec's rule); its usage is kept on the marker it produced.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from spotter.agent import events as ev
from spotter.agent.compaction import (
    SUMMARIZER_SYSTEM,
    CompactionPlan,
    Summary,
    compact,
    effective_threshold,
    estimate_context_tokens,
    plan_compaction,
    queue_take_lease,
    release_lease,
)
from spotter.agent.compaction.summary import LEASE, SUMMARIZER_BUDGET_SECONDS
from spotter.agent.cost import CallUsage, context_window, model_policy
from spotter.agent.prompting import system_blocks
from spotter.agent.run.loop_call import valid_replay
from spotter.agent.run.side_calls import side_call
from spotter.agent.run_lease import LEASE_TTL
from spotter.agent.state import RunStart, RunState
from spotter.agent.stream import Emitter
from spotter.agent.transcript import StoredMessage, load_history, queue_history, read_history

# How long a send waits for a compaction in flight: the summary's budget and a few writes.
COMPACTION_WAIT_SECONDS = SUMMARIZER_BUDGET_SECONDS + 2.0
POLL_SECONDS = 0.1


def prompt_chars(state: RunState) -> int:
    """What every request carries before its messages: the system blocks and the tools."""
    system = sum(len(block["text"]) for block in system_blocks(state.caller))
    return system + len(state.registry.definitions_json)  # cached per registry


def threshold(state: RunState) -> int:
    setting = state.deps.settings.compaction_threshold_tokens
    return effective_threshold(setting, context_window(state.call.model))


def _plan(state: RunState, stored: list[StoredMessage]) -> CompactionPlan | None:
    rows = [m.as_row() for m in stored]
    estimated = estimate_context_tokens(rows, prompt_chars=prompt_chars(state))
    return plan_compaction(rows, estimated_tokens=estimated, threshold=threshold(state))


async def _summarize(state: RunState, transcript: str) -> Summary:
    """The compaction role's summary and its usage (recorded, not tallied)."""
    reply = await side_call(
        state,
        "spotterCompaction",
        system=SUMMARIZER_SYSTEM,
        messages=[{"role": "user", "content": [{"type": "text", "text": transcript}]}],
        tally=False,
    )
    model = model_policy(state.deps.settings)["spotterCompaction"].model
    return Summary(reply.text, CallUsage.of(model, reply.usage).as_json())


async def _compact(state: RunState, events: Emitter, plan: CompactionPlan, *, leased: bool) -> bool:
    """Summarize per `plan` between the two events; whether a summary was stored."""
    state.compaction_tried = True
    conversation = str(state.conversation_id)
    events.emit(ev.CompactionStarted(conversation_id=conversation))
    done = await compact(
        state.deps.db, state.caller.org_id, state.conversation_id, state.run_id, plan,
        lambda transcript: _summarize(state, transcript), leased=leased,
    )  # fmt: skip
    events.emit(
        ev.CompactionFinished(
            conversation_id=conversation,
            compacted=done is not None,
            summarized_messages=done.summarized_messages if done else 0,
        )
    )
    return done is not None


async def compact_if_needed(state: RunState, events: Emitter, stored: list[StoredMessage]) -> None:
    """The gate: emit the compaction events (nothing when no compaction is due); on success,
    replace `state.messages` (and the run's history) with the compacted conversation's."""
    plan = _plan(state, stored)
    if plan is None:
        return
    if await _compact(state, events, plan, leased=False):
        async with state.deps.db.org_tx(state.caller.org_id) as conn:
            stored = await load_history(conn, state.caller, state.conversation_id)
        state.history = list(stored)
        state.messages = valid_replay(state, stored)


@dataclass(frozen=True)
class SettleCompaction:
    """A compaction due when the run settled, its lease taken: `run` it after `done`."""

    state: RunState
    plan: CompactionPlan

    async def run(self, events: Emitter) -> None:
        await _compact(self.state, events, self.plan, leased=True)


async def settle_compaction(state: RunState) -> SettleCompaction | None:
    """The kick's decision, before `done`: due by the run's own history (no read when not), then
    the compaction lease and the stored history in one round trip, and the plan over the rows
    as stored. None: nothing to do (or another compaction holds the lease)."""
    if state.compaction_tried or state.suspended or _plan(state, state.history) is None:
        return None
    caller = state.caller
    async with state.deps.db.pipelined_tx(caller.org_id) as conn:
        leased = await queue_take_lease(conn, caller.org_id, state.conversation_id)
        history = await queue_history(conn, caller, state.conversation_id)
    if await leased.fetchone() is None:
        return None
    plan = _plan(state, await read_history(history))
    if plan is None:
        await release_lease(state.deps.db, caller.org_id, state.conversation_id)
        return None
    return SettleCompaction(state, plan)


# Whether a run holds the conversation and is compacting it, and its newest compaction marker.
_COMPACTING_SQL = """
SELECT c.live_run_id IS NOT NULL AND c.live_run_claimed_at >= clock_timestamp() - %(ttl)s AS live,
       c.compacting_since >= clock_timestamp() - %(lease)s AS compacting,
       (SELECT m.page_context FROM ai_messages m
         WHERE m.conversation_id = c.id AND m.organization_id = c.organization_id
           AND m.role = 'system_note'
         ORDER BY m.ordinal DESC LIMIT 1) AS marker
  FROM ai_conversations c
 WHERE c.id = %(conversation)s AND c.organization_id = %(org)s AND c.user_id = %(user)s
"""


async def _compacting(start: RunStart, conversation_id: UUID) -> dict[str, Any] | None:
    caller = start.caller
    async with start.deps.db.org_tx(caller.org_id) as conn:
        cur = await conn.execute(
            _COMPACTING_SQL,
            {"ttl": LEASE_TTL, "lease": LEASE, "conversation": conversation_id,
             "org": caller.org_id, "user": caller.user_id},
        )  # fmt: skip
        return await cur.fetchone()


async def wait_for_compaction(start: RunStart, conversation_id: UUID, events: Emitter) -> bool:
    """A send found the conversation held: when its run is compacting, wait (bounded) until the
    conversation is free, saying so on the send's stream; True when it is worth trying again."""
    seen = await _compacting(start, conversation_id)
    if seen is None or not (seen["live"] and seen["compacting"]):
        return False
    conversation = str(conversation_id)
    events.emit(ev.CompactionStarted(conversation_id=conversation))
    deadline = time.monotonic() + COMPACTION_WAIT_SECONDS
    now: dict[str, Any] | None = seen
    while now is not None and now["live"] and time.monotonic() < deadline:
        await asyncio.sleep(POLL_SECONDS)
        now = await _compacting(start, conversation_id)
    marker = (now or {}).get("marker") or {}
    compacted = marker != (seen["marker"] or {})
    events.emit(
        ev.CompactionFinished(
            conversation_id=conversation,
            compacted=compacted,
            summarized_messages=int(marker.get("summarizedMessages", 0)) if compacted else 0,
        )
    )
    return now is not None and not now["live"]
