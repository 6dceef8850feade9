"""The budget rule, stated here and nowhere else: per org and UTC day, a metered tier's cap
against what counts toward it. Every check reads it from this module — in Python or as the SQL
fragments the statements that enforce it embed — so changing the rule is an edit here.

- what counts: the spend recorded in `ai_usage_daily` for the day (`SPENT_SQL`), and for a
  call about to start also the day's live budget holds (`HELD_SQL`: a hold stops counting after
  `HOLD_TTL`, longer than any model call may stream);
- a new turn may start while recorded spend < cap: `UsageSnapshot.over_cap` (the send's
  pre-check, the usage read) and `UNDER_CAP_SQL` (the guard of the user turn's append,
  `transcript.message_log`);
- a model call about to start sees the room today leaves it: cap − recorded spend − live holds
  (`ROOM_SQL`). Its bound (`CallBound`) prices every input token at the dearer of fresh input
  and a 5-minute cache write, and each output token it may write at the output rate. It may
  start only if the room pays its LEAST useful bound (its output capped at `MIN_OUTPUT_TOKENS`:
  fewer make an answer, with its thinking, useless); it then holds the room it may use, up to
  its full bound (`HOLD_FROM_ROOM_SQL`, the hold's conditional insert, `cost.holds`), and its
  `max_tokens` is clamped to what that hold pays at the model's output rate
  (`CallBound.output_tokens_for`). So an org spends its cap to the last cent and never over:
  every call's actual cost is at most its hold, and the holds never add up past the cap;
- an unmetered tier (`tiers.UNMETERED`) has no cap: nothing is checked, held or clamped.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from uuid import UUID

from spotter.agent.cost.pricing import rates_for
from spotter.db import Conn
from spotter.tiers import UNMETERED, tier

# Longer than any one model call may stream (the client's own timeout is 10 minutes).
HOLD_TTL = timedelta(minutes=10)

# The SQL statement of the rule, over named parameters: %(org)s, %(day)s, %(cap)s (and
# %(hold_ttl)s, %(amount)s): `DailyCap.params` gives all but the amount.
SPENT_SQL = (
    "(SELECT coalesce(sum(cost_usd_micros), 0) FROM ai_usage_daily"
    " WHERE organization_id = %(org)s AND day = %(day)s)"
)
HELD_SQL = (
    "(SELECT coalesce(sum(amount_usd_micros), 0) FROM ai_budget_holds"
    " WHERE organization_id = %(org)s AND day = %(day)s"
    " AND held_at > clock_timestamp() - %(hold_ttl)s)"
)
UNDER_CAP_SQL = f"{SPENT_SQL} < %(cap)s"
ROOM_SQL = f"%(cap)s - {SPENT_SQL} - {HELD_SQL}"
# The hold a call may take (one row, none when the room does not pay its least bound): the
# room, up to %(amount)s (its full bound), when the room is at least %(least)s.
HOLD_FROM_ROOM_SQL = (
    f"SELECT LEAST(%(amount)s, room) AS amount FROM (SELECT {ROOM_SQL} AS room) today"
    " WHERE room >= %(least)s"
)

# Fewer output tokens than this make a loop answer (its adaptive thinking included) useless: a
# call whose room pays less is refused rather than clamped. A call that asks for fewer (the
# quick route's 1,024) is never clamped: its least bound is its full bound.
MIN_OUTPUT_TOKENS = 2_048


def _micros_ceil(scaled: int) -> int:
    """Micro-dollars × 1M (tokens × rate per 1M tokens) → micro-dollars, rounded up."""
    return -(-scaled // 1_000_000)


@dataclass(frozen=True)
class CallBound:
    """The most one model call may cost, and the least that is still worth starting."""

    model: str
    input_tokens: int  # estimated high (the request's whole body at chars / 4)
    max_tokens: int

    @property
    def _input_scaled(self) -> int:
        rates = rates_for(self.model)
        return self.input_tokens * max(rates.input, rates.cache_write_5m)

    def _with_output(self, output_tokens: int) -> int:
        return _micros_ceil(self._input_scaled + output_tokens * rates_for(self.model).output)

    @property
    def full_micros(self) -> int:
        """Every input token at the dearer input rate, every possible output token."""
        return self._with_output(self.max_tokens)

    @property
    def least_micros(self) -> int:
        """The same with the output capped at `MIN_OUTPUT_TOKENS`."""
        return self._with_output(min(self.max_tokens, MIN_OUTPUT_TOKENS))

    def output_tokens_for(self, held_micros: int) -> int:
        """The most output a hold of `held_micros` pays after the input (never more than the
        call asked for): its cost, rounded up, stays within the hold."""
        output_rate = rates_for(self.model).output
        if output_rate == 0:  # a free model (the offline demo): every token is paid for
            return self.max_tokens
        spare = held_micros * 1_000_000 - self._input_scaled
        return max(0, min(self.max_tokens, spare // output_rate))


def daily_budget_micros(tier_name: str) -> int:
    return tier(tier_name).daily_budget_micros


def metered(tier_name: str) -> bool:
    return daily_budget_micros(tier_name) != UNMETERED


def utc_today(now: datetime | None = None) -> date:
    return (now or datetime.now(UTC)).astimezone(UTC).date()


@dataclass(frozen=True)
class DailyCap:
    """Today's cap of one tier, as the rule's SQL reads it."""

    day: date
    cap_usd_micros: int  # UNMETERED: no cap

    @property
    def metered(self) -> bool:
        return self.cap_usd_micros != UNMETERED

    def params(self, org_id: UUID) -> dict[str, Any]:
        return {"org": org_id, "day": self.day, "cap": self.cap_usd_micros, "hold_ttl": HOLD_TTL}


def daily_cap(tier_name: str, now: datetime | None = None) -> DailyCap:
    return DailyCap(utc_today(now), daily_budget_micros(tier_name))


@dataclass(frozen=True)
class UsageSnapshot:
    day: date
    spent_usd_micros: int
    cap_usd_micros: int
    # of the spend, what the sweep charged at a dead run's holds (`cost.abandoned`): an estimate
    estimated_usd_micros: int = 0

    @property
    def unmetered(self) -> bool:
        return self.cap_usd_micros == UNMETERED

    @property
    def percent_used(self) -> float | None:
        if self.unmetered or self.cap_usd_micros <= 0:
            return None
        return round(self.spent_usd_micros / self.cap_usd_micros, 4)

    @property
    def remaining_usd_micros(self) -> int | None:
        return None if self.unmetered else max(0, self.cap_usd_micros - self.spent_usd_micros)

    @property
    def resets_at(self) -> datetime:
        return datetime.combine(self.day + timedelta(days=1), time.min, tzinfo=UTC)

    def over_cap(self, unrecorded_usd_micros: int = 0) -> bool:
        """An unmetered tier never is; otherwise spent (+ unrecorded) ≥ cap (`UNDER_CAP_SQL`'s
        negation)."""
        spent = self.spent_usd_micros + unrecorded_usd_micros
        return not self.unmetered and spent >= self.cap_usd_micros

    @property
    def exceeded(self) -> bool:
        return self.over_cap()


_SPENT_TODAY = f"""SELECT {SPENT_SQL}::bigint AS spent,
 (SELECT coalesce(sum(estimated_usd_micros), 0) FROM ai_usage_daily
   WHERE organization_id = %(org)s AND day = %(day)s)::bigint AS estimated"""


async def usage_snapshot(
    conn: Conn, org_id: UUID, tier: str, now: datetime | None = None
) -> UsageSnapshot:
    return await (await queue_usage_snapshot(conn, org_id, tier, now))()


async def queue_usage_snapshot(
    conn: Conn, org_id: UUID, tier: str, now: datetime | None = None
) -> Callable[[], Awaitable[UsageSnapshot]]:
    """The spend statement now, its snapshot when the returned function is awaited (in a
    pipelined transaction, statements queued meanwhile share the round trip)."""
    cap = daily_cap(tier, now)
    cur = await conn.execute(_SPENT_TODAY, cap.params(org_id))

    async def snapshot() -> UsageSnapshot:
        row = await cur.fetchone()
        spent, estimated = (int(row["spent"]), int(row["estimated"])) if row else (0, 0)
        return UsageSnapshot(cap.day, spent, cap.cap_usd_micros, estimated)

    return snapshot
