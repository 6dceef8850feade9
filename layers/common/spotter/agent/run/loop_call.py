"""The loop call chosen once per run, with the history it replays (the spec's `loopCall` and
`loopHistory`).

The model comes from `cost.model_policy.loop_call` (the org's override, the setting, the tier,
ours; a resumed run continues on the model that wrote the turn it resumes), and the replay is
built for that call (thinking only for the model that signed it), so the two never disagree.
The org's override is read by the run's first transaction (`queue_org_loop_model`: one more
statement in a pipelined round trip, none of its own).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any
from uuid import UUID

from spotter.agent.cost.model_policy import loop_call
from spotter.agent.errors import ReplayIntegrityViolation
from spotter.agent.state import RunState
from spotter.agent.transcript import (
    StoredMessage,
    block_types,
    canonical,
    repair_replay,
    replay_messages,
    validate_replay,
)
from spotter.db import Conn

OrgLoopModel = Callable[[], Awaitable[str | None]]


async def queue_org_loop_model(conn: Conn, org_id: UUID) -> OrgLoopModel:
    """The org's loop-model override, queued now and read when the returned function is
    awaited (after the pipelined transaction committed)."""
    cur = await conn.execute("SELECT ai_loop_model FROM organizations WHERE id = %s", (org_id,))

    async def read() -> str | None:
        row = await cur.fetchone()
        return row["ai_loop_model"] if row else None

    return read


def resumed_turn_model(stored: list[StoredMessage]) -> str | None:
    """The model that wrote the tool-use turn a resumed run continues: the newest assistant
    turn's."""
    return next((m.model for m in reversed(stored) if m.role == "assistant"), None)


def loop_history(
    state: RunState, stored: list[StoredMessage], org_model: str | None, *, resumed: bool
) -> None:
    """Choose the run's loop call and build its replay, together; once per run."""
    caller = state.caller
    state.call = loop_call(
        state.deps.settings,
        caller.platform_tier,
        org_model,
        resumed_on=resumed_turn_model(stored) if resumed else None,
    )
    state.history = list(stored)
    state.messages = valid_replay(state, stored)


def valid_replay(state: RunState, stored: list[StoredMessage]) -> list[dict[str, Any]]:
    """The stored rows as the run's call replays them, canonical once here (not per call)."""
    state.compacted = any(row.role == "system_note" for row in stored)
    messages: list[dict[str, Any]] = canonical(
        replay_messages(stored, state.call, role=state.caller.role)
    )
    check = validate_replay(messages)
    if check.ok:
        return messages
    # Older damage cannot be fixed by appending; the repair is a pure function of the stored
    # rows, so it replays byte-identically every run (the cached prefix survives).
    state.telemetry.emit(
        "agent.replay.violation",
        level="warning",
        orphans=sum(len(v.orphaned_tool_use_ids) for v in check.violations),
        stray_results=sum(len(v.orphaned_tool_use_ids) for v in check.stray_results),
        problems=check.problems,
        shape=block_types(messages),
        **state.ids,
    )
    repaired: list[dict[str, Any]] = canonical(repair_replay(messages, check))
    if not validate_replay(repaired).ok:
        # what synthesized results cannot fix would be refused by the model's API: say so
        raise ReplayIntegrityViolation()
    return repaired
