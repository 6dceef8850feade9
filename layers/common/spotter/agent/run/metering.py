"""Every tallied model call, metered: a budget hold before it, its usage recorded after it.

`metered_call` holds the call's bound by the budget rule (`cost.budget`: the room left, up to the
full bound; `BudgetExhausted` when the room does not pay its least useful bound) in the
transaction that also records the run's previous calls, hands the caller the request with its
`max_tokens` clamped to what the hold pays, lets it stream and add the call's usage to the run,
and leaves the call's usage and hold to the run's next transaction
(`RunStart.transaction`: the reply's own, a moment later) — so a call costs no transaction of its
own, and a process killed after the next write still has it in `ai_usage_daily`. A call whose
bound is held (on every tier, the run's first: the quick route's, taken by prepare) may leave its
usage to wait past the next call's start: a process killed meanwhile leaves the hold, which the
sweep charges (`cost.abandoned`). `record_unrecorded` is the finish path's last chance for
anything left (a call that failed, a database outage).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass

import anyio

from spotter.agent.compaction.context_size import CHARS_PER_TOKEN
from spotter.agent.cost import CallUsage
from spotter.agent.cost.budget import CallBound, metered
from spotter.agent.cost.holds import BudgetHold, queue_reserve, read_hold
from spotter.agent.errors import BudgetExhausted
from spotter.agent.state import RunStart, RunState
from spotter.db.errors import is_unavailable
from spotter.providers.message_reply import ReplyReducer
from spotter.providers.wire_request import WireRequest


def request_tokens(request: WireRequest) -> int:
    """The request's input, estimated high: its whole JSON body as sent, at the estimator's
    chars per token (punctuation and keys count, so it never falls short of the wire text's
    estimate). The body is the one serialized for the call: nothing is serialized again."""
    return math.ceil(len(request.body) / CHARS_PER_TOKEN)


def call_bound(request: WireRequest) -> CallBound:
    return CallBound(request.model, request_tokens(request), request.max_tokens)


@dataclass
class PrepaidHold:
    """A call's hold taken ahead by the run's first transaction (`run.prepare`: the quick
    route's, whose bound is known before the history is read), so the call needs no transaction
    of its own before it starts. Taken once, by the call (`metered_call`); one left untaken
    goes to the run's next transaction to drop (`drop_untaken`)."""

    hold: BudgetHold | None  # None: the room did not pay the call's least bound
    taken: bool = False

    def take(self) -> BudgetHold | None:
        self.taken = True
        return self.hold

    def drop_untaken(self, state: RunState) -> None:
        if not self.taken:
            hold = self.take()
            if hold is not None and hold.id is not None:
                state.usage.ended_holds.append(hold)


@dataclass(frozen=True)
class MeteredCall:
    state: RunState
    hold: BudgetHold
    request: WireRequest  # what to send: `max_tokens` clamped to what the hold pays

    def add_usage(self, usage: CallUsage) -> None:
        """The call's usage, tallied with its hold (recorded by whoever deletes the hold)."""
        self.state.usage.add(usage, self.hold)

    @contextmanager
    def counting_cut_short(self, model: str, reducer: ReplyReducer) -> Iterator[None]:
        """Around the call's stream: a call cut short (cancelled by a client gone, a stop or a
        lane's time budget; failed mid-stream) still counts the tokens its stream reported,
        which the provider bills. A call that finishes adds its final usage itself."""
        try:
            yield
        except BaseException:
            if reducer.usage is not None:
                self.add_usage(CallUsage.of(model, reducer.usage))
            raise


@asynccontextmanager
async def metered_call(
    state: RunState, request: WireRequest, prepaid: PrepaidHold | None = None
) -> AsyncIterator[MeteredCall]:
    """`prepaid`: the call's hold, taken ahead (used once: a later call takes its own)."""
    bound = call_bound(request)
    if prepaid is not None and not prepaid.taken:
        hold = await _prepaid(state, bound, prepaid)
    else:
        hold = await _hold_even_if_cancelled(state, bound)
    if hold is None:
        raise BudgetExhausted
    if hold.id is not None and hold.budgeted:
        request = request.capped(bound.output_tokens_for(hold.amount_usd_micros))
    try:
        yield MeteredCall(state, hold, request)
    finally:
        if hold.id is not None:
            # dropped, with the call's usage recorded, by the run's next transaction
            state.usage.ended_holds.append(hold)


async def _prepaid(state: RunState, bound: CallBound, prepaid: PrepaidHold) -> BudgetHold | None:
    """The hold taken ahead, if it pays this request's least bound (it was taken for a bound
    estimated high before the request was built; one that does not pay is dropped by the next
    transaction, and the call is refused as one whose room is short). What else the run owes
    before a call (a stale lease; nothing right after prepare) still gets its transaction."""
    if not state.start.lease.trusted or state.start.owes_before_call:
        await _hold_even_if_cancelled(state, bound, reserve=False)
    hold = prepaid.take()
    if hold is None or hold.id is None or not hold.budgeted:
        return hold  # (an unmetered tier's bound is a record, not a budget: nothing to pay)
    if hold.amount_usd_micros < bound.least_micros:
        state.usage.ended_holds.append(hold)
        return None
    return hold


async def _hold_even_if_cancelled(
    state: RunState, bound: CallBound, *, reserve: bool = True
) -> BudgetHold | None:
    """`_before_call`, carried to its end when the caller is cancelled meanwhile (a lane's time
    budget, a stop): its hold may have committed, and a hold nobody knows of would count against
    the cap until its TTL. The hold goes to the run's next transaction to drop; the cancellation
    goes on. (A second cancellation while waiting leaves it to the TTL.)"""
    taking = asyncio.ensure_future(_before_call(state, bound, reserve=reserve))
    try:
        return await asyncio.shield(taking)
    except asyncio.CancelledError:
        hold = await asyncio.shield(taking)
        if hold is not None and hold.id is not None:
            state.usage.ended_holds.append(hold)
        raise


async def _before_call(state: RunState, bound: CallBound, *, reserve: bool) -> BudgetHold | None:
    """What the run owes the database before it may call the model, in ONE transaction and
    only when there is any: the last calls' usage unless each is kept by its hold meanwhile
    (`RunUsage.durable`), a user turn whose context it completed (no model reads a turn the
    database does not hold), a lease not confirmed for `FENCE_TRUST`, and a metered tier's hold
    for this call (the room left, up to its full bound; none when the room does not pay its
    least bound). The usage, and settled reads owed (`run.tool_batch`), ride with it when there
    is one, and wait for the run's next write when there is none."""
    caller, start = state.caller, state.start
    needs_hold = reserve and metered(caller.platform_tier)
    stale_lease = not start.lease.trusted
    if not (needs_hold or stale_lease or start.owes_before_call):
        return BudgetHold(None, 0)
    reserved = None
    async with state.transaction() as tx:
        if stale_lease:
            await tx.refresh_lease(caller.org_id, state.conversation_id, state.run_id)
        if needs_hold:
            reserved = await queue_reserve(
                tx.conn, caller.org_id, caller.platform_tier, state.now, state.run_id,
                caller.user_id, bound.full_micros, bound.least_micros,
            )  # fmt: skip
    if reserved is None:
        return BudgetHold(None, 0)
    return await read_hold(reserved)


async def record_unrecorded(start: RunStart) -> None:
    """The finish path's last chance: usage no transaction of the run recorded (the database
    was away, or the run ended right after a call) is recorded now, the ended holds dropped.
    With the database away it stays unrecorded (logged): the sweep charges the holds of calls
    among it once the run's lease is stale (`cost.abandoned`); the others are lost."""
    if start.usage.settled or start.owed_replies or start.owed_settles:
        # (a last reply or settled reads owed: the usage commits with them, in the run's last
        # batch, written in its conversation's transaction)
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
