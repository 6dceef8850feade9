"""The demo seed's forms and attendance history: enough for the forms tools and every report
to say something real, and re-seeding changes nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from uuid import UUID

import psycopg
import pytest

from spotter.db import Database
from spotter.db.scope import OrgScope
from spotter.domain import forms
from spotter.domain.analytics import attendance, members
from spotter.domain.analytics.period import period_for
from spotter.seed.attendance import LAPSED, NEWCOMERS, WEEKS
from spotter.seed.demo import DEMO_CLERK_ORG_ID, seed_demo


def _demo_org(url: str) -> UUID:
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT id FROM organizations WHERE clerk_org_id = %s", (DEMO_CLERK_ORG_ID,)
        ).fetchone()
    assert row is not None
    return UUID(str(row[0]))


def _counts(url: str) -> tuple[object, ...]:
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT (SELECT count(*) FROM forms), (SELECT count(*) FROM form_versions),"
            " (SELECT count(*) FROM form_submissions), (SELECT count(*) FROM class_sessions),"
            " (SELECT count(*) FROM bookings)"
        ).fetchone()
    assert row is not None
    return tuple(row)


async def test_reseeding_adds_no_forms_sessions_or_bookings(clean_db: str) -> None:
    await seed_demo(clean_db)
    first = _counts(clean_db)
    await seed_demo(clean_db)
    assert _counts(clean_db) == first


async def test_the_waiver_is_in_its_second_version_with_members_left_to_sign(
    clean_db: str, db: Database
) -> None:
    await seed_demo(clean_db)
    async with db.org_tx(_demo_org(clean_db)) as conn:
        scope = OrgScope(conn, _demo_org(clean_db))
        listed = {f["name"]: f for f in await forms.list_forms(scope)}
        waiver = listed["Liability waiver"]
        status = await forms.unsigned_members(scope, waiver["id"])
    assert (waiver["published_version"], waiver["submissions"]) == (2, 27)
    assert listed["Health questionnaire (PAR-Q)"]["draft_version"] == 1
    assert listed["New member intake"]["submissions"] == 12
    older = [m for m in status["unsigned"] if m["signedOlderVersion"]]
    assert len(older) == 9 and len(status["unsigned"]) > len(older)


# (when the seed runs, when the reports read it): the clock, and the moments either side of the
# demo gym's midnight on 2026-12-02 (Asia/Jerusalem, UTC+2) when a drawn history once failed.
MOMENTS = {
    "now": (None, None),
    "seeded-before-midnight-read-after": (
        datetime(2026, 12, 1, 21, 30, tzinfo=UTC),
        datetime(2026, 12, 1, 22, 30, tzinfo=UTC),
    ),
    "seeded-after-midnight": (
        datetime(2026, 12, 1, 22, 30, tzinfo=UTC),
        datetime(2026, 12, 1, 22, 31, tzinfo=UTC),
    ),
}


@pytest.mark.parametrize("moment", MOMENTS)
async def test_the_history_gives_attendance_retention_and_inactive_members(
    clean_db: str, db: Database, moment: str
) -> None:
    seeded, read = MOMENTS[moment]
    await seed_demo(clean_db, now=seeded)
    org_id = _demo_org(clean_db)
    now = read or datetime.now(UTC)
    async with db.org_tx(org_id) as conn:
        scope = OrgScope(conn, org_id)
        period = await period_for(scope, None, None, now)
        weeks = await period_for(scope, (now - timedelta(days=7 * WEEKS - 1)).date(), None, now)
        seen = await attendance.attendance(scope, weeks, now=now, grain="week")
        kept = await members.retention(scope, period)
        quiet = await members.inactive_members(scope, period.last, period.tz, days=14)
    assert seen["totals"]["checkIns"] > 300 and seen["totals"]["noShows"] > 0
    assert len(seen["series"]) >= WEEKS
    assert kept["lapsed"] >= 1 and kept["newOrReturning"] >= 1
    assert set(LAPSED) <= {m["name"] for m in quiet["members"]}
    assert not set(NEWCOMERS) & {m["name"] for m in quiet["members"]}
