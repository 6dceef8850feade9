"""Every tallied model call, metered: a budget hold before it, its usage recorded after it.

`metered_call` holds the call's bound by the budget rule (`cost.budget`: the room left, up to the
full bound; `BudgetExhausted` when the room does not pay its least useful bound) in the
transaction that also records the run's previous call, hands the caller the request with its
`max_tokens` clamped to what the hold pays, lets it stream and add the call's usage to the run,
and leaves the call's usage and hold to the run's next transaction
(`RunStart.transaction`: the reply's own, a moment later) — so a call costs no transaction of its
own, and a process killed after the next write still has it in `ai_usage_daily`.
`record_unrecorded` is the finish path's last chance for anything left (a call that failed, a
database outage).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import anyio

from spotter.agent.compaction.context_size import CHARS_PER_TOKEN
from spotter.agent.cost.budget import CallBound, metered
from spotter.agent.cost.holds import BudgetHold, queue_reserve, read_hold
from spotter.agent.errors import BudgetExhausted
from spotter.agent.state import RunStart, RunState
from spotter.db.errors import is_unavailable
from spotter.providers.wire_request import WireRequest


def request_tokens(request: WireRequest) -> int:
    """The request's input, estimated high: its whole JSON body as sent, at the estimator's
    chars per token (punctuation and keys count, so it never falls short of the wire text's
    estimate). The body is the one serialized for the call: nothing is serialized again."""
    return math.ceil(len(request.body) / CHARS_PER_TOKEN)


def call_bound(request: WireRequest) -> CallBound:
    return CallBound(request.model, request_tokens(request), request.max_tokens)


@dataclass(frozen=True)
class MeteredCall:
    hold: BudgetHold
    request: WireRequest  # what to send: `max_tokens` clamped to what the hold pays


@asynccontextmanager
async def metered_call(state: RunState, request: WireRequest) -> AsyncIterator[MeteredCall]:
    bound = call_bound(request)
    hold = await _hold_even_if_cancelled(state, bound)
    if hold is None:
        raise BudgetExhausted
    if hold.id is not None:
        request = request.capped(bound.output_tokens_for(hold.amount_usd_micros))
    try:
        yield MeteredCall(hold, request)
    finally:
        if hold.id is not None:
            # dropped, with the call's usage recorded, by the run's next transaction
            state.usage.ended_holds.append(hold)


async def _hold_even_if_cancelled(state: RunState, bound: CallBound) -> BudgetHold | None:
    """`_before_call`, carried to its end when the caller is cancelled meanwhile (a lane's time
    budget, a stop): its hold may have committed, and a hold nobody knows of would count against
    the cap until its TTL. The hold goes to the run's next transaction to drop; the cancellation
    goes on. (A second cancellation while waiting leaves it to the TTL.)"""
    taking = asyncio.ensure_future(_before_call(state, bound))
    try:
        return await asyncio.shield(taking)
    except asyncio.CancelledError:
        hold = await asyncio.shield(taking)
        if hold is not None and hold.id is not None:
            state.usage.ended_holds.append(hold)
        raise


async def _before_call(state: RunState, bound: CallBound) -> BudgetHold | None:
    """What the run owes the database before it may call the model, in ONE transaction and
    only when there is any: the last call's usage (recorded before this one may start), a user
    turn whose context it completed (no model reads a turn the database does not hold), a lease
    not confirmed for `FENCE_TRUST`, and a metered tier's hold for this call (the room left, up
    to its full bound; none when the room does not pay its least bound)."""
    caller, start = state.caller, state.start
    needs_hold = metered(caller.platform_tier)
    stale_lease = not start.lease.trusted
    if not (needs_hold or stale_lease or start.owes_writes):
        return BudgetHold(None, 0)
    reserved = None
    async with state.transaction() as tx:
        if stale_lease:
            await tx.refresh_lease(caller.org_id, state.conversation_id, state.run_id)
        if needs_hold:
            reserved = await queue_reserve(
                tx.conn, caller.org_id, caller.platform_tier, state.now, state.run_id,
                bound.full_micros, bound.least_micros,
            )  # fmt: skip
    if reserved is None:
        return BudgetHold(None, 0)
    return await read_hold(reserved)


async def record_unrecorded(start: RunStart) -> None:
    """The finish path's last chance: usage no transaction of the run recorded (the database
    was away, or the run ended right after a call) is recorded now, the ended holds dropped.
    With the database away it stays unrecorded (logged) and the holds expire by their rule."""
    if start.usage.settled:
        return
    with anyio.CancelScope(shield=True):
        try:
            async with start.transaction():
                pass
        except Exception as exc:
            if not is_unavailable(exc):
                raise
            start.telemetry.emit(
                "agent.usage.unrecorded",
                level="warning",
                calls=len(start.usage.calls),
                **start.ids(),
            )
