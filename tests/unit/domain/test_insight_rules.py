"""The insight rules that need no database: who sees which kind, the thresholds' defaults and
per-org overrides, the per-org cache, and a playbook for every kind."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime

from spotter.agent.prompting.playbooks import PLAYBOOKS, insight_playbook
from spotter.domain.insights import INSIGHT_KINDS, Insight, Thresholds, kinds_for_role
from spotter.domain.insights.cache import InsightCache
from spotter.domain.insights.kinds import COACH_KINDS, LEAD_KINDS
from spotter.domain.insights.settings import thresholds_of

NOW = datetime(2026, 12, 2, 8, 0, tzinfo=UTC)


def test_managers_see_every_kind_a_coach_the_class_ones_a_member_none() -> None:
    features = frozenset({"lead_management"})
    assert kinds_for_role("owner", features) == INSIGHT_KINDS
    assert kinds_for_role("admin", features) == INSIGHT_KINDS
    assert set(kinds_for_role("coach", features)) == COACH_KINDS
    assert kinds_for_role("member", features) == ()


def test_lead_insights_need_the_lead_feature() -> None:
    assert not set(kinds_for_role("owner", frozenset())) & LEAD_KINDS


def test_an_org_overrides_a_threshold_and_a_bad_value_keeps_the_default() -> None:
    mine = thresholds_of({"quietDaysUnlimited": 14, "lowFillRatio": 7, "noSuchKey": 1})
    assert mine.quiet_days_unlimited == 14
    assert mine.low_fill_ratio == Thresholds().low_fill_ratio == 0.12
    assert mine.quiet_days_class_plan == 21


def test_every_kind_has_a_playbook_naming_its_read() -> None:
    assert set(PLAYBOOKS) == set(INSIGHT_KINDS)
    for kind in INSIGHT_KINDS:
        text = insight_playbook({"insight": kind})
        assert text.startswith(f'<insight_playbook kind="{kind}">')
        assert f"analytics.insight with kind {kind}" in text
        assert "never estimate or invent" in text


class _Clock:
    def __init__(self) -> None:
        self.at = 0.0

    def __call__(self) -> float:
        return self.at


def test_the_cache_serves_an_org_until_its_entry_expires() -> None:
    clock, org = _Clock(), uuid.uuid4()
    cache = InsightCache(ttl=180, clock=clock)
    computed: list[int] = []

    async def compute() -> list[Insight]:
        computed.append(1)
        return [Insight("paused_memberships", [])]

    async def scenario() -> None:
        await cache.get(org, NOW, compute)
        clock.at = 179
        await cache.get(org, NOW, compute)
        assert len(computed) == 1
        clock.at = 181
        await cache.get(org, NOW, compute)
        assert len(computed) == 2
        await cache.get(uuid.uuid4(), NOW, compute)  # another org: its own entry
        assert len(computed) == 3

    asyncio.run(scenario())


def test_concurrent_misses_compute_once() -> None:
    cache, org = InsightCache(), uuid.uuid4()
    computed: list[int] = []

    async def compute() -> list[Insight]:
        computed.append(1)
        await asyncio.sleep(0.01)
        return []

    async def scenario() -> None:
        await asyncio.gather(*(cache.get(org, NOW, compute) for _ in range(5)))

    asyncio.run(scenario())
    assert computed == [1]
