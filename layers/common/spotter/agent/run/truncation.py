"""A reply cut off at the output limit: its batch never runs (a cut-off batch is not a plan).

The first cut-off batch of a run with complete calls left is answered with error results (the
first carries TRUNCATED_BATCH_INSTRUCTION) and failed + `discarded` rows, in one transaction; the
client sees only `message_done {stopReason: max_tokens}` and the loop goes on. A second one, or a
cut-off reply with no complete call, ends the run with `provider_output_truncated`.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from spotter.agent.call_record import CallRef
from spotter.agent.executions import NewExecution, insert_turn_calls
from spotter.agent.run.steps import NextStepRunAgain, NextStepStop, TurnStep
from spotter.agent.state import RunState
from spotter.agent.transcript import tool_result_block
from spotter.tools.calls import ToolOutcome
from spotter.tools.errors import ToolError

TRUNCATED_BATCH_INSTRUCTION = (
    "Your reply hit the output limit before it was complete, so NONE of its tool calls ran. "
    "Redo the work with fewer calls: use a bulk tool (class_sessions.create_many, replicate_day, "
    "copy_week, program_templates.apply, the *.bulk_* tools) or at most 8 calls per reply."
)
NOT_RUN = "Not run: the reply was cut off at the output limit (see the first result)."


async def answer_truncated(
    state: RunState, message_id: UUID, tool_uses: list[dict[str, Any]]
) -> TurnStep:
    """Discard the cut-off batch; the first time in a run (with calls) the loop goes on."""
    if tool_uses:
        await _discard_batch(state, message_id, tool_uses)
    if not tool_uses or state.truncated_once:
        return NextStepStop("provider_output_truncated")
    state.truncated_once = True
    return NextStepRunAgain()


def _ref(block: dict[str, Any]) -> CallRef:
    tool_input = block["input"]
    action = tool_input.get("action") if isinstance(tool_input, dict) else None
    return CallRef(
        block["id"], block["name"], action if isinstance(action, str) else "", tool_input
    )


async def _discard_batch(
    state: RunState, message_id: UUID, tool_uses: list[dict[str, Any]]
) -> None:
    """Failed + discarded rows, and error results the model reads, in one transaction."""
    results, rows = [], []
    for position, block in enumerate(tool_uses):
        error = ToolError(
            "output_truncated", TRUNCATED_BATCH_INSTRUCTION if position == 0 else NOT_RUN
        )
        outcome = ToolOutcome.failed(error)
        results.append(tool_result_block(block["id"], False, outcome.payload))
        rows.append(NewExecution.settled(position, _ref(block), None, outcome, discarded=True))
    async with state.transaction() as tx:
        await insert_turn_calls(
            tx.conn, state.caller.org_id, state.conversation_id, message_id, rows
        )
        await state.append(tx, "tool_result", results)
