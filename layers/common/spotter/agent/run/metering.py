"""Every tallied model call, metered: a budget hold before it, its usage recorded after it.

`metered_call` reserves the call's upper bound (`cost.holds`; `BudgetExhausted` when it does not
fit), lets the caller stream and add the call's usage to the run, then records that usage and
drops the hold in one transaction — also when the call failed or the client left (shielded), so
a process killed after the call still has it in `ai_usage_daily`. `record_unrecorded` is the
finish path's last chance for anything a database outage kept from being recorded.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio

from spotter.agent.compaction.context_size import CHARS_PER_TOKEN
from spotter.agent.cost.holds import BudgetHold, release, reserve, upper_bound_micros
from spotter.agent.errors import BudgetExhausted
from spotter.agent.state import RunStart, RunState
from spotter.db.errors import is_unavailable
from spotter.providers.wire_request import WireRequest


def request_tokens(request: WireRequest) -> int:
    """The request's input, estimated high: its whole JSON body as sent, at the estimator's
    chars per token (punctuation and keys count, so it never falls short of the wire text's
    estimate). The body is the one serialized for the call: nothing is serialized again."""
    return math.ceil(len(request.body) / CHARS_PER_TOKEN)


@asynccontextmanager
async def metered_call(state: RunState, request: WireRequest) -> AsyncIterator[BudgetHold]:
    caller = state.caller
    bound = upper_bound_micros(request.model, request_tokens(request), request.max_tokens)
    hold = await reserve(
        state.deps.db, caller.org_id, caller.platform_tier, state.now, state.run_id, bound
    )
    if hold is None:
        raise BudgetExhausted
    try:
        yield hold
    finally:
        with anyio.CancelScope(shield=True):
            await settle(state.start, hold)


async def settle(start: RunStart, hold: BudgetHold | None = None) -> None:
    """Record the run's unrecorded calls and drop `hold`, in one transaction. With the database
    away, the usage stays unrecorded for the finish path to try again and the hold expires."""
    org_id = start.caller.org_id
    try:
        async with start.deps.db.org_tx(org_id) as conn:
            watermark = await start.usage.record_pending(
                conn, org_id, start.caller.user_id, start.now
            )
            if hold is not None:
                await release(conn, org_id, hold)
    except Exception as exc:
        if not is_unavailable(exc):
            raise
        start.telemetry.emit(
            "agent.usage.unrecorded", level="warning", calls=len(start.usage.calls), **start.ids()
        )
        return
    start.usage.mark_recorded(watermark)


async def record_unrecorded(start: RunStart) -> None:
    """Tokens a run spent that no settle recorded (the database was away) are recorded now."""
    if start.usage.recorded:
        return
    with anyio.CancelScope(shield=True):
        await settle(start)
