"""Member erasure: no personal field survives anywhere; the anonymous aggregates do."""

from __future__ import annotations

import uuid
from uuid import UUID

import psycopg
import pytest
from psycopg.types.json import Jsonb

import spotter.agent.erasure  # noqa: F401  (registers the assistant's records)
from spotter.db import Database
from spotter.db.scope import OrgScope
from spotter.domain import erasure, outbox
from spotter.domain.errors import DomainError
from tests.support.erasure import columns_mentioning
from tests.support.memberships import add_member, add_plan
from tests.support.world import Org, Person

NAME, EMAIL = "Zelda Quorrington", "zelda.q@example.com"


def _leave_traces(owner_url: str, org: Org, zelda: Person) -> None:
    """Everywhere a gym's records name a member, short of other helpers' areas."""
    owner = org["owner"]
    with psycopg.connect(owner_url) as conn:
        conn.execute(
            "INSERT INTO member_credit_ledger (organization_id, membership_id, delta, reason)"
            " VALUES (%s, %s, 10, %s), (%s, %s, -1, 'Class booking')",
            (org.id, zelda.membership_id, f"Gift for {NAME}", org.id, zelda.membership_id),
        )
        ct = conn.execute(
            "INSERT INTO class_types (organization_id, name) VALUES (%s, 'WOD') RETURNING id",
            (org.id,),
        ).fetchone()
        assert ct is not None
        session = conn.execute(
            "INSERT INTO class_sessions (organization_id, class_type_id, starts_at, ends_at)"
            " VALUES (%s, %s, now() - interval '2 days', now() - interval '2 days' + interval '1 hour')"
            " RETURNING id",
            (org.id, ct[0]),
        ).fetchone()
        assert session is not None
        conn.execute(
            "INSERT INTO bookings (organization_id, session_id, membership_id, status, booked_at,"
            " checked_in_at) VALUES (%s, %s, %s, 'checked_in', now(), now())",
            (org.id, session[0], zelda.membership_id),
        )
        group = conn.execute(
            "INSERT INTO member_groups (organization_id, name) VALUES (%s, 'Comp team') RETURNING id",
            (org.id,),
        ).fetchone()
        assert group is not None
        conn.execute(
            "INSERT INTO member_group_members (organization_id, group_id, membership_id)"
            " VALUES (%s, %s, %s)",
            (org.id, group[0], zelda.membership_id),
        )
        conn.execute(
            "INSERT INTO member_invitations (organization_id, email, full_name, status)"
            " VALUES (%s, %s, %s, 'accepted')",
            (org.id, EMAIL.upper(), NAME),
        )
        # a staff conversation about her, and one of her own
        staff_chat, her_chat, message = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
        conn.execute(
            "INSERT INTO ai_conversations (id, organization_id, user_id, title) VALUES"
            " (%s, %s, %s, %s), (%s, %s, %s, 'My bookings')",
            (staff_chat, org.id, owner.user_id, f"Pausing {NAME}", her_chat, org.id, zelda.user_id),
        )
        conn.execute(
            "INSERT INTO ai_messages (id, organization_id, conversation_id, run_id, ordinal, role,"
            " content) VALUES (%s, %s, %s, %s, 0, 'user', %s)",
            (message, org.id, staff_chat, uuid.uuid4(),
             Jsonb([{"type": "text", "text": f"Email {NAME.lower()} at {EMAIL} about \"her\" plan"}])),
        )  # fmt: skip
        conn.execute(
            "INSERT INTO ai_tool_executions (organization_id, conversation_id, message_id,"
            " position, tool_use_id, router, action, input, confirmation, output, status)"
            " VALUES (%s, %s, %s, 0, 'toolu_1', 'memberships', 'pause', %s, %s, %s, 'succeeded')",
            (org.id, staff_chat, message, Jsonb({"memberId": str(zelda.membership_id)}),
             Jsonb({"target": NAME}), Jsonb({"name": NAME, "email": EMAIL})),
        )  # fmt: skip


async def _erase(db: Database, org: Org, zelda: Person) -> dict[str, object]:
    assert zelda.membership_id is not None
    async with db.org_tx(org.id) as conn:
        scope = OrgScope(conn, org.id)
        await outbox.enqueue(
            scope,
            recipients=[outbox.Recipient(EMAIL, NAME, "member", zelda.membership_id)],
            subject=f"Hi {NAME}",
            body="Your plan renews soon.",
            source="test",
        )
    async with db.org_tx(org.id) as conn:
        return await erasure.erase_member(OrgScope(conn, org.id), zelda.membership_id)


async def test_no_personal_field_survives_erasure(db: Database, org: Org, clean_db: str) -> None:
    zelda = add_member(clean_db, org, NAME, EMAIL, plan_id=add_plan(clean_db, org))
    _leave_traces(clean_db, org, zelda)
    before = set(columns_mentioning(clean_db, NAME, EMAIL))  # the traces are really there
    assert before >= {
        "ai_conversations.title", "ai_messages.content", "ai_tool_executions.confirmation",
        "ai_tool_executions.output", "member_credit_ledger.reason", "member_invitations.email",
        "search_documents.body", "users.email", "users.full_name",
    }  # fmt: skip
    await _erase(db, org, zelda)
    assert columns_mentioning(clean_db, NAME, EMAIL) == []


async def test_erasure_keeps_the_anonymous_aggregates(
    db: Database, org: Org, clean_db: str
) -> None:
    zelda = add_member(clean_db, org, NAME, EMAIL, plan_id=add_plan(clean_db, org))
    _leave_traces(clean_db, org, zelda)
    await _erase(db, org, zelda)
    with psycopg.connect(clean_db) as conn:
        kept = conn.execute(
            "SELECT (SELECT count(*) FROM bookings WHERE membership_id = %(m)s),"
            " (SELECT count(*) FROM member_subscriptions WHERE membership_id = %(m)s"
            "   AND status = 'cancelled'),"
            " (SELECT sum(delta) FROM member_credit_ledger WHERE membership_id = %(m)s),"
            " (SELECT status FROM org_memberships WHERE id = %(m)s),"
            " (SELECT count(*) FROM outbox_messages WHERE recipient_id = %(m)s),"
            " (SELECT count(*) FROM search_documents WHERE entity_id = %(m)s),"
            " (SELECT count(*) FROM ai_conversations WHERE user_id = %(u)s)",
            {"m": zelda.membership_id, "u": zelda.user_id},
        ).fetchone()
    assert kept == (1, 1, 9, "removed", 1, 0, 0)


async def test_erasure_leaves_the_person_to_another_gym_that_still_has_them(
    db: Database, org: Org, other_org: Org, clean_db: str
) -> None:
    zelda = add_member(clean_db, org, NAME, EMAIL)
    with psycopg.connect(clean_db) as conn:
        conn.execute(
            "INSERT INTO org_memberships (organization_id, user_id, role) VALUES (%s, %s, 'member')",
            (other_org.id, zelda.user_id),
        )
    await _erase(db, org, zelda)
    with psycopg.connect(clean_db) as conn:
        row = conn.execute(
            "SELECT u.full_name, m.status FROM users u JOIN org_memberships m ON m.user_id = u.id"
            " WHERE u.id = %s ORDER BY m.organization_id = %s",
            (zelda.user_id, org.id),
        ).fetchall()
    assert row == [(NAME, "active"), (NAME, "removed")]


async def test_erasing_another_orgs_member_is_not_found(
    db: Database, org: Org, other_org: Org, clean_db: str
) -> None:
    zelda = add_member(clean_db, other_org, NAME, EMAIL)
    assert zelda.membership_id is not None
    async with db.org_tx(org.id) as conn:
        with pytest.raises(DomainError) as info:
            await erasure.erase_member(OrgScope(conn, org.id), UUID(str(zelda.membership_id)))
    assert info.value.code == "not_found"
    assert columns_mentioning(clean_db, NAME) != []


async def test_another_areas_erase_person_runs_as_a_step_with_the_user_id(
    db: Database, org: Org, clean_db: str
) -> None:
    zelda = add_member(clean_db, org, NAME, EMAIL)
    seen: list[UUID] = []

    async def erase_person(scope: OrgScope, user_id: UUID) -> None:
        seen.append(user_id)

    async with db.org_tx(org.id) as conn:
        await erasure.by_user(erase_person)(
            OrgScope(conn, org.id),
            erasure.ErasedPerson(UUID(str(zelda.membership_id)), zelda.user_id, NAME, EMAIL),
        )
    assert seen == [zelda.user_id]
