"""Ambient RAG for a new message, only once the cheap lanes declined it (spec: turn context).

The turn context is built once, with the run's clock, and stored with the user turn before
anything else happens. The T1 quick route reads it as is. When the route declines, ambient RAG
(`agent.rag.ambient`: 800 ms at most, never failing) looks for the records the message probably
names, and its `<ambient_context>` section is folded into that same stored turn context
(`RunState.complete_user_turn`: in the replay at once, in the database with the run's next
transaction), still before any loop call has read the turn. A message the quick route answers
never waits for RAG.

A message the route cannot take at all (over its length, or a role without quick actions) is
declined before it starts: its RAG runs before the user turn is written, so the turn is written
once, as before.
"""

from __future__ import annotations

from spotter.agent.prompting import build_turn_context, user_turn
from spotter.agent.rag.ambient import find_ambient, render_ambient
from spotter.agent.run.prepare import Prepared, SendMessage
from spotter.agent.run.quick_lane import eligible
from spotter.agent.state import RunStart


async def _ambient_section(start: RunStart, text: str) -> str:
    hits = await find_ambient(
        start.deps.db,
        start.caller.org_id,
        text,
        start.deps.embedder,
        budget_seconds=start.deps.settings.ambient_rag_budget_seconds,
    )
    return render_ambient(hits)


async def ambient_before_the_turn(start: RunStart, request: SendMessage) -> str | None:
    """The ambient section of a message the quick route cannot take (None: the route may take
    it, so RAG waits until it declined, `fold_ambient`)."""
    if eligible(start.registry, request.text, request.selection):
        return None
    return await _ambient_section(start, request.text)


async def fold_ambient(prepared: Prepared, request: SendMessage) -> None:
    """After the quick route declined: the ambient section folded into the stored user turn
    (nothing when RAG finds nothing)."""
    state = prepared.state
    section = await _ambient_section(state.start, request.text)
    if not section:
        return
    context = build_turn_context(
        state.caller, state.now, request.pathname, request.selection, section
    )
    state.complete_user_turn(prepared.user_turn, user_turn(request.text, context))
