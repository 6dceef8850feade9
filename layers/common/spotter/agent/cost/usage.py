"""Usage of a run: each model call priced at its own model's rates, summed, and recorded per day.

`ai_usage_daily` is upserted with SQL increments keyed on (org, UTC day, user), so concurrent
runs of one person never lose each other's tokens or cost. A call that held its bound
(`cost.holds`) is recorded only by the statement that deletes its hold: the run's, or the
sweep's that charges a dead run's holds (`cost.abandoned`) — whichever claims the row first
counts the call, the other never does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any
from uuid import UUID

from spotter.agent import events as ev
from spotter.agent.cost.budget import utc_today
from spotter.agent.cost.holds import BudgetHold
from spotter.agent.cost.pricing import CallTokens, cost_usd_micros
from spotter.db import Conn

_TOKEN_COLUMNS = (
    "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_5m_tokens",
    "cache_write_1h_tokens",
)  # fmt: skip
# The holds go (the ended calls' own, and those of calls that failed or never ran); the calls
# whose hold this statement deleted, and those that held none, are added to the day's row.
_RECORD_SQL = """
WITH claimed AS (
  DELETE FROM ai_budget_holds WHERE organization_id = %(org)s AND id = ANY(%(holds)s::uuid[])
  RETURNING id
), calls AS (
  SELECT * FROM unnest(
    %(call_holds)s::uuid[], %(input_tokens)s::bigint[], %(output_tokens)s::bigint[],
    %(cache_read_tokens)s::bigint[], %(cache_write_5m_tokens)s::bigint[],
    %(cache_write_1h_tokens)s::bigint[], %(cost_usd_micros)s::bigint[]
  ) AS c(hold_id, input_tokens, output_tokens, cache_read_tokens, cache_write_5m_tokens,
         cache_write_1h_tokens, cost_usd_micros)
   WHERE c.hold_id IS NULL OR c.hold_id IN (SELECT id FROM claimed)
)
INSERT INTO ai_usage_daily AS d (organization_id, user_id, day, input_tokens, output_tokens,
  cache_read_tokens, cache_write_5m_tokens, cache_write_1h_tokens, cost_usd_micros, turns)
SELECT %(org)s, %(user)s, %(day)s, sum(input_tokens), sum(output_tokens),
       sum(cache_read_tokens), sum(cache_write_5m_tokens), sum(cache_write_1h_tokens),
       sum(cost_usd_micros), %(turns)s
  FROM calls HAVING count(*) > 0
ON CONFLICT (organization_id, day, user_id) DO UPDATE SET
  input_tokens = d.input_tokens + EXCLUDED.input_tokens,
  output_tokens = d.output_tokens + EXCLUDED.output_tokens,
  cache_read_tokens = d.cache_read_tokens + EXCLUDED.cache_read_tokens,
  cache_write_5m_tokens = d.cache_write_5m_tokens + EXCLUDED.cache_write_5m_tokens,
  cache_write_1h_tokens = d.cache_write_1h_tokens + EXCLUDED.cache_write_1h_tokens,
  cost_usd_micros = d.cost_usd_micros + EXCLUDED.cost_usd_micros,
  turns = d.turns + EXCLUDED.turns, updated_at = now()
"""


def call_tokens(usage: Mapping[str, Any]) -> CallTokens:
    """The API's `usage` object as the stream reported it (a mapping; absent or null fields
    count 0)."""
    writes = usage.get("cache_creation_input_tokens") or 0
    split = usage.get("cache_creation")
    write_1h = (split.get("ephemeral_1h_input_tokens") or 0) if split else 0
    # Without the split the API wrote 5-minute entries (the only TTL we ask for).
    write_5m = (split.get("ephemeral_5m_input_tokens") or 0) if split else writes
    return CallTokens(
        input_tokens=usage.get("input_tokens") or 0,
        output_tokens=usage.get("output_tokens") or 0,
        cache_read_tokens=usage.get("cache_read_input_tokens") or 0,
        cache_write_5m_tokens=write_5m,
        cache_write_1h_tokens=write_1h,
    )


@dataclass(frozen=True)
class CallUsage:
    model: str
    tokens: CallTokens
    cost_usd_micros: int
    hold_id: UUID | None = None  # the call's row in `ai_budget_holds` (`RunUsage.add`)

    @classmethod
    def of(cls, model: str, usage: Mapping[str, Any]) -> CallUsage:
        tokens = call_tokens(usage)
        return cls(model, tokens, cost_usd_micros(model, tokens))

    def as_json(self) -> dict[str, Any]:
        t = self.tokens
        return {
            "model": self.model,
            "inputTokens": t.input_tokens,
            "outputTokens": t.output_tokens,
            "cacheReadTokens": t.cache_read_tokens,
            "cacheWrite5mTokens": t.cache_write_5m_tokens,
            "cacheWrite1hTokens": t.cache_write_1h_tokens,
            "costUsdMicros": self.cost_usd_micros,
        }


@dataclass(frozen=True)
class Settlement:
    """What one transaction recorded: the watermark of calls and how many ended holds it drops."""

    watermark: int
    holds: int


@dataclass
class RunUsage:
    """The run's tallied calls, and how many of them are in `ai_usage_daily`: each call is
    recorded by the run's next transaction after it ended (a run killed later keeps it, or the
    sweep charges its hold), never twice; the budget holds of ended calls are dropped in that
    same statement."""

    calls: list[CallUsage] = field(default_factory=list)
    recorded_calls: int = 0  # calls[:recorded_calls] are in `ai_usage_daily`
    ended_holds: list[BudgetHold] = field(default_factory=list)  # still in `ai_budget_holds`

    @property
    def settled(self) -> bool:
        return self.recorded and not self.ended_holds

    @property
    def durable(self) -> bool:
        """Whether everything not yet settled is kept by a row of its own until the run's next
        write: every unrecorded call held its bound (a hold the sweep charges if the run dies
        first, `cost.abandoned`), and every ended hold is such a call's — a hold with no call
        to record (a call that failed, one never made) is dropped before the next call rather
        than charged. So it may wait past the next call's start (the quick route's usage rides
        with the loop's reply)."""
        held = {call.hold_id for call in self.calls[self.recorded_calls :]}
        return None not in held and held == {hold.id for hold in self.ended_holds}

    async def queue_settle(
        self, conn: Conn, org_id: UUID, user_id: UUID, now: datetime
    ) -> Settlement:
        """Record the ended calls and drop their holds in `conn`'s transaction (one statement,
        no result read: free in a pipelined one); `mark_settled` once it committed."""
        holds = list(self.ended_holds)
        watermark = await self.record_pending(conn, org_id, user_id, now, holds)
        return Settlement(watermark, len(holds))

    def mark_settled(self, settlement: Settlement) -> None:
        self.mark_recorded(settlement.watermark)
        del self.ended_holds[: settlement.holds]

    @property
    def recorded(self) -> bool:
        return self.recorded_calls == len(self.calls)

    @property
    def unrecorded_cost_usd_micros(self) -> int:
        return sum(c.cost_usd_micros for c in self.calls[self.recorded_calls :])

    def add(self, call: CallUsage, hold: BudgetHold | None = None) -> None:
        """`hold`: the call's own (`run.metering`): the call is recorded only by the statement
        that deletes it."""
        self.calls.append(call if hold is None else replace(call, hold_id=hold.id))

    def _sum(self, name: str) -> int:
        return sum(getattr(c.tokens, name) for c in self.calls)

    @property
    def cost_usd_micros(self) -> int:
        return sum(c.cost_usd_micros for c in self.calls)

    @property
    def cache_hit_ratio(self) -> float | None:
        """cacheRead / (cacheRead + input): healthy at 0.85-0.95 in steady state."""
        read, fresh = self._sum("cache_read_tokens"), self._sum("input_tokens")
        return round(read / (read + fresh), 4) if read + fresh else None

    def event(self) -> ev.Usage:
        return ev.Usage(
            input_tokens=self._sum("input_tokens"),
            output_tokens=self._sum("output_tokens"),
            cache_read_tokens=self._sum("cache_read_tokens"),
            cache_write_tokens=self._sum("cache_write_5m_tokens")
            + self._sum("cache_write_1h_tokens"),
            cost_usd_micros=self.cost_usd_micros,
        )

    async def record_pending(
        self,
        conn: Conn,
        org_id: UUID,
        user_id: UUID,
        now: datetime,
        ended_holds: Sequence[BudgetHold] = (),
    ) -> int:
        """Add the calls not yet recorded to today's (UTC) row with SQL increments, and delete
        `ended_holds` and the calls' own holds, in ONE statement (no read): a call with a hold
        counts only if this statement deleted it (the sweep may have charged it, `cost.abandoned`).
        The run counts as one turn with its first recorded call. Returns the new watermark: pass
        it to `mark_recorded` once the transaction committed."""
        pending = self.calls[self.recorded_calls :]
        holds = {hold.id for hold in ended_holds} | {call.hold_id for call in pending}
        holds.discard(None)
        if not pending and not holds:
            return self.recorded_calls
        columns = {name: [getattr(c.tokens, name) for c in pending] for name in _TOKEN_COLUMNS}
        await conn.execute(
            _RECORD_SQL,
            {
                "org": org_id,
                "user": user_id,
                "day": utc_today(now),
                "holds": list(holds),
                "call_holds": [c.hold_id for c in pending],
                **columns,
                "cost_usd_micros": [c.cost_usd_micros for c in pending],
                "turns": 1 if self.recorded_calls == 0 else 0,
            },
        )
        return len(self.calls)

    def mark_recorded(self, watermark: int) -> None:
        self.recorded_calls = max(self.recorded_calls, watermark)
