"""Every insight kind on the seeded demo gym, with the members, leads and classes it names.

The seed places its history relative to one `now` in the gym's zone, so the same answers hold
whenever it runs: here on the clock, either side of the gym's midnight, and on each weekday (the
drawn history depends on the date only through the weekday; those seeds run in the past, since
the CRM's rows are written at the database's clock).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from uuid import UUID
from zoneinfo import ZoneInfo

import psycopg
import pytest

from spotter.db import Database
from spotter.db.scope import OrgScope
from spotter.domain.insights import INSIGHT_KINDS, Insight, Thresholds, compute_insights
from spotter.seed.attendance import LAPSED
from spotter.seed.demo import DEMO_CLERK_ORG_ID, DEMO_TIMEZONE, seed_demo
from spotter.seed.insights import NEW_MEMBER
from spotter.seed.memberships import PAUSED

TZ = ZoneInfo(DEMO_TIMEZONE)
# (when the seed runs, when the insights are read)
MOMENTS = {
    "clock": (None, None),
    "seeded-before-midnight-read-after": (
        datetime(2026, 12, 1, 21, 30, tzinfo=UTC),
        datetime(2026, 12, 1, 22, 30, tzinfo=UTC),
    ),
    **{
        f"weekday-{n}": (
            datetime(2026, 11, 16, 9, 0, tzinfo=UTC) + timedelta(days=n),
            datetime(2026, 11, 16, 15, 0, tzinfo=UTC) + timedelta(days=n),
        )
        for n in range(7)
    },
}


def _demo_org(url: str) -> UUID:
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT id FROM organizations WHERE clerk_org_id = %s", (DEMO_CLERK_ORG_ID,)
        ).fetchone()
    assert row is not None
    return UUID(str(row[0]))


async def _insights(clean_db: str, db: Database, moment: str) -> dict[str, Insight]:
    seeded, read = MOMENTS[moment]
    await seed_demo(clean_db, now=seeded)
    org_id = _demo_org(clean_db)
    async with db.org_tx(org_id) as conn:
        found = await compute_insights(
            OrgScope(conn, org_id), INSIGHT_KINDS, now=read or datetime.now(UTC), tz=TZ,
            limits=Thresholds(),
        )  # fmt: skip
    return {insight.kind: insight for insight in found}


def _names(insight: Insight) -> list[str]:
    return [s["name"] for s in insight.subjects]


@pytest.mark.parametrize("moment", MOMENTS)
async def test_the_demo_gym_shows_every_insight_kind_with_its_known_answer(
    clean_db: str, db: Database, moment: str
) -> None:
    found = await _insights(clean_db, db, moment)
    assert sorted(_names(found["members_at_risk"])) == sorted(LAPSED)
    assert _names(found["new_members_no_second_week"]) == [NEW_MEMBER]
    assert _names(found["leads_not_contacted"]) == ["Eyal Gross", "Noa Shalev"]
    assert _names(found["trials_not_converted"]) == ["Yoav Peled"]
    assert sorted(_names(found["low_fill_slots"])) == ["Kids 16:30", "Open Gym 12:00"]
    (waiting,) = found["waitlisted_slots"].subjects
    assert waiting["name"].startswith("CrossFit") and waiting["waitlisted"] == 3
    assert sorted(_names(found["paused_memberships"])) == sorted(PAUSED)
    assert [(s["name"], s["creditsLeft"]) for s in found["credits_running_low"].subjects] == [
        ("Maya Rosen", 2)
    ]
    assert all(found[kind].count > 0 for kind in INSIGHT_KINDS)


async def test_the_members_at_risk_rest_on_their_visits(clean_db: str, db: Database) -> None:
    found = await _insights(clean_db, db, "seeded-before-midnight-read-after")
    at_risk = found["members_at_risk"]
    # the longest gone first: each stopped a week after the previous one (seed.attendance)
    assert _names(at_risk) == list(reversed(LAPSED))
    for member in at_risk.subjects:
        assert member["daysSinceLastVisit"] >= member["quietLimitDays"] == 21
        assert "gone_quiet" in member["reasons"] and member["lastVisit"] is not None
        assert member["inFirstDays"] and member["riskScore"] >= 2  # first 90 days weigh double
    assert at_risk.out()["pageContext"] == {
        "pathname": "/dashboard",
        "selection": {"insight": "members_at_risk"},
    }
