"""Insights cached per org for a few minutes: the dashboard asks on every page load, and the
answer changes with check-ins and leads, not by the second. One entry per org holds every kind
the org's features allow; each caller's role filters it on the way out. Per process (a Lambda
container keeps its own), so a cold container computes once and then serves from memory."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from spotter.domain.insights.compute import Insight

TTL_SECONDS = 180.0
MAX_ORGS = 1024


@dataclass(frozen=True)
class Computed:
    insights: list[Insight]
    computed_at: datetime
    expires: float  # on the cache's monotonic clock


class InsightCache:
    def __init__(
        self, ttl: float = TTL_SECONDS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._ttl = ttl
        self._clock = clock
        self._entries: dict[UUID, Computed] = {}
        self._locks: dict[UUID, asyncio.Lock] = {}

    async def get(
        self,
        org_id: UUID,
        now: datetime,
        compute: Callable[[], Awaitable[list[Insight]]],
    ) -> Computed:
        """The org's fresh entry, or one computed now (concurrent misses compute once)."""
        entry = self._entries.get(org_id)
        if entry is not None and entry.expires > self._clock():
            return entry
        lock = self._locks.setdefault(org_id, asyncio.Lock())
        async with lock:
            entry = self._entries.get(org_id)
            if entry is not None and entry.expires > self._clock():
                return entry
            found = await compute()
            if len(self._entries) >= MAX_ORGS:
                self._entries.clear()  # bounded memory; every org recomputes once
            entry = Computed(found, now, self._clock() + self._ttl)
            self._entries[org_id] = entry
            return entry

    def forget(self, org_id: UUID) -> None:
        self._entries.pop(org_id, None)
