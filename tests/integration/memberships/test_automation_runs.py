"""Active automations mail each triggering event once, after its delay, never a backlog from
before activation, and only where the tier (or flag) allows."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

import psycopg
import pytest

from spotter.db import Database
from spotter.domain.automation_runs import run_due
from tests.support.memberships import add_member, add_plan
from tests.support.world import Org, create_org


def now() -> datetime:
    return datetime.now(UTC)


@pytest.fixture
def box(clean_db: str) -> Org:
    return create_org(clean_db, name="Scale Box", tier="scale")


def automation(
    url: str, org: Org, trigger: str, *, delay_hours: int = 0, status: str = "active",
    activated: datetime | None = None,
) -> UUID:  # fmt: skip
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "INSERT INTO email_automations (organization_id, name, trigger, delay_hours,"
            " subject_template, body_template, status, activated_at)"
            " VALUES (%s, %s, %s, %s, 'Hi {{first_name}}', %s, %s, %s) RETURNING id",
            (org.id, trigger, trigger, delay_hours,
             "{{full_name}} at {{gym_name}} on {{plan_name}}", status,
             activated or now() - timedelta(days=30)),
        ).fetchone()  # fmt: skip
    assert row is not None
    return UUID(str(row[0]))


def sql(url: str, query: str, *params: Any) -> None:
    with psycopg.connect(url) as conn:
        conn.execute(query, params)


def mail(url: str) -> list[tuple[str, str, str]]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT to_address, subject, body FROM outbox_messages ORDER BY to_address"
        ).fetchall()
    return [(r[0], r[1], r[2]) for r in rows]


async def test_a_welcome_goes_to_a_new_member_once_rendered_for_them(
    db: Database, box: Org, clean_db: str
) -> None:
    automation(clean_db, box, "member_joined")
    add_member(
        clean_db, box, "Ann Bar", "ann@example.com", plan_id=add_plan(clean_db, box, "Unlimited")
    )
    assert (await run_due(db, now())).queued == 1
    assert (await run_due(db, now() + timedelta(minutes=1))).queued == 0
    assert mail(clean_db) == [("ann@example.com", "Hi Ann", "Ann Bar at Scale Box on Unlimited")]


async def test_nothing_goes_before_the_delay_has_passed(
    db: Database, box: Org, clean_db: str
) -> None:
    automation(clean_db, box, "member_joined", delay_hours=24)
    add_member(clean_db, box, "Ann Bar", "ann@example.com")
    assert (await run_due(db, now())).queued == 0
    assert (await run_due(db, now() + timedelta(hours=25))).queued == 1


async def test_members_who_joined_before_activation_get_no_backlog(
    db: Database, box: Org, clean_db: str
) -> None:
    add_member(clean_db, box, "Ann Bar", "ann@example.com")
    automation(clean_db, box, "member_joined", activated=now())
    assert (await run_due(db, now() + timedelta(hours=1))).queued == 0


@pytest.mark.parametrize("status", ["draft", "inactive"])
async def test_drafts_and_inactive_automations_never_send(
    db: Database, box: Org, clean_db: str, status: str
) -> None:
    automation(clean_db, box, "member_joined", status=status)
    add_member(clean_db, box, "Ann Bar", "ann@example.com")
    assert (await run_due(db, now())).queued == 0


async def test_an_org_below_the_tier_is_not_run(db: Database, org: Org, clean_db: str) -> None:
    automation(clean_db, org, "member_joined")  # the default test org is on growth
    add_member(clean_db, org, "Ann Bar", "ann@example.com")
    assert (await run_due(db, now())).queued == 0
    sql(clean_db, "UPDATE organizations SET feature_flags = '{\"email_automations\": true}'")
    assert (await run_due(db, now())).queued == 1


async def test_a_pause_and_a_cancellation_each_mail_once_but_a_plan_change_does_not(
    db: Database, box: Org, clean_db: str
) -> None:
    automation(clean_db, box, "membership_paused")
    automation(clean_db, box, "membership_cancelled")
    plan = add_plan(clean_db, box)
    add_member(clean_db, box, "Ann Bar", "ann@example.com", plan_id=plan, subscription="paused")
    ben = add_member(clean_db, box, "Ben Gal", "ben@example.com", plan_id=plan)
    cat = add_member(clean_db, box, "Cat Dor", "cat@example.com", plan_id=plan)
    sql(clean_db, "UPDATE member_subscriptions SET status = 'cancelled', cancelled_at = now(),"
        " cancel_reason = 'Moving' WHERE membership_id = %s", ben.membership_id)  # fmt: skip
    sql(clean_db, "UPDATE member_subscriptions SET status = 'cancelled', cancelled_at = now(),"
        " cancel_reason = 'plan change' WHERE membership_id = %s", cat.membership_id)  # fmt: skip
    sql(clean_db, "INSERT INTO member_subscriptions (organization_id, membership_id, user_id,"
        " plan_id, status) VALUES (%s, %s, %s, %s, 'active')",
        box.id, cat.membership_id, cat.user_id, plan)  # fmt: skip
    assert (await run_due(db, now() + timedelta(minutes=1))).queued == 2
    assert [m[0] for m in mail(clean_db)] == ["ann@example.com", "ben@example.com"]
    assert (await run_due(db, now() + timedelta(minutes=2))).queued == 0


async def test_a_member_silent_for_the_delay_is_mailed_once_per_silence(
    db: Database, box: Org, clean_db: str
) -> None:
    automation(clean_db, box, "member_inactive", delay_hours=24 * 14)
    ann = add_member(clean_db, box, "Ann Bar", "ann@example.com")
    with psycopg.connect(clean_db) as conn:
        ct = conn.execute(
            "INSERT INTO class_types (organization_id, name) VALUES (%s, 'WOD') RETURNING id",
            (box.id,),
        ).fetchone()
        assert ct is not None
        session = conn.execute(
            "INSERT INTO class_sessions (organization_id, class_type_id, starts_at, ends_at)"
            " VALUES (%s, %s, now() - interval '20 days', now() - interval '20 days' + interval '1 hour')"
            " RETURNING id",
            (box.id, ct[0]),
        ).fetchone()
        assert session is not None
        conn.execute(
            "INSERT INTO bookings (organization_id, session_id, membership_id, status, checked_in_at)"
            " VALUES (%s, %s, %s, 'checked_in', now() - interval '20 days')",
            (box.id, session[0], ann.membership_id),
        )
    assert (await run_due(db, now())).queued == 1
    assert (await run_due(db, now() + timedelta(days=1))).queued == 0


async def test_a_pending_invitation_is_reminded_after_the_delay(
    db: Database, box: Org, clean_db: str
) -> None:
    automation(clean_db, box, "invitation_pending", delay_hours=48)
    sql(clean_db, "INSERT INTO member_invitations (organization_id, email, full_name, last_sent_at)"
        " VALUES (%s, 'avi@example.com', 'Avi N', now())", box.id)  # fmt: skip
    assert (await run_due(db, now() + timedelta(hours=47))).queued == 0
    assert (await run_due(db, now() + timedelta(hours=49))).queued == 1
    assert mail(clean_db)[0][:2] == ("avi@example.com", "Hi Avi")


async def test_concurrent_runs_mail_an_event_once(db: Database, box: Org, clean_db: str) -> None:
    automation(clean_db, box, "member_joined")
    add_member(clean_db, box, "Ann Bar", "ann@example.com")
    reports = await asyncio.gather(*(run_due(db, now()) for _ in range(4)))
    assert sum(r.queued for r in reports) == 1
    assert len(mail(clean_db)) == 1
