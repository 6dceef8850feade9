"""A new conversation's title, written in the background of its first run.

Best effort within 1.5 s: the title model (agent.titles) sees only what the user typed
(`visible_user_text`: a dashboard-seeded opener's context after its marker is not theirs, and
an opener with no words of theirs gets no title rather than one named after the page). The task
runs beside the model loop (text deltas never wait for it) and is awaited before `done`, which
its own budget bounds; any failure leaves the title empty.
"""

from __future__ import annotations

import asyncio

from spotter.agent.prompting import TITLE_SYSTEM, clean_title, title_request
from spotter.agent.run.side_calls import side_text
from spotter.agent.state import RunState
from spotter.agent.transcript import visible_user_text
from spotter.observability import log_event

TITLE_BUDGET_SECONDS = 1.5


async def write_title(state: RunState, first_message: str) -> str | None:
    """Ask for a title and store it (only over an empty one); never raises."""
    typed = visible_user_text(first_message)
    if not typed:
        return None
    try:
        raw = await asyncio.wait_for(
            side_text(state, "spotterTitle", TITLE_SYSTEM, title_request(typed)),
            TITLE_BUDGET_SECONDS,
        )
        title = clean_title(raw)
        if title is None:
            return None
        async with state.deps.db.org_tx(state.caller.org_id) as conn:
            await conn.execute(
                "UPDATE ai_conversations SET title = %s"
                " WHERE id = %s AND organization_id = %s AND title IS NULL",
                (title, state.conversation_id, state.caller.org_id),
            )
        return title
    except Exception as exc:
        log_event("title.skipped", level="warning", error=type(exc).__name__)
        return None


def start_title(state: RunState, first_message: str) -> asyncio.Task[str | None]:
    return asyncio.create_task(write_title(state, first_message))


async def finish_title(task: asyncio.Task[str | None] | None) -> None:
    """Before `done`: wait for the title (bounded by its budget); on a disconnect, abandon it."""
    if task is None:
        return
    try:
        await task
    except asyncio.CancelledError:
        task.cancel()
        raise
