"""Confirmation targets name things as a person would: bare names, local time, never ids."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import psycopg
import pytest

from spotter.db import Database
from spotter.db.scope import OrgScope
from spotter.domain import names
from spotter.domain.errors import DomainError
from tests.support.world import Org, add_person


def _session(owner_url: str, org: Org, class_name: str, starts_at: datetime) -> uuid.UUID:
    session_id, type_id = uuid.uuid4(), uuid.uuid4()
    with psycopg.connect(owner_url) as conn:
        conn.execute(
            "INSERT INTO class_types (id, organization_id, name) VALUES (%s, %s, %s)",
            (type_id, org.id, class_name),
        )
        conn.execute(
            "INSERT INTO class_sessions (id, organization_id, class_type_id, starts_at, ends_at)"
            " VALUES (%s, %s, %s, %s, %s + interval '1 hour')",
            (session_id, org.id, type_id, starts_at, starts_at),
        )
    return session_id


@pytest.mark.parametrize(
    ("locale", "expected"),
    [
        ("en", "Open Gym · Tue 1 Dec 13:00"),
        ("he", "Open Gym · יום ג׳ 1 בדצמ׳ 13:00"),
        ("ru", "Open Gym · вт 1 дек. 13:00"),
    ],
)
async def test_session_is_named_by_class_and_local_time(
    db: Database, org: Org, clean_db: str, locale: str, expected: str
) -> None:
    # 11:00 UTC is 13:00 in Jerusalem in December
    session_id = _session(clean_db, org, "Open Gym", datetime(2026, 12, 1, 11, 0, tzinfo=UTC))
    async with db.org_tx(org.id) as conn:
        label = await names.session_label(
            OrgScope(conn, org.id), session_id, ZoneInfo("Asia/Jerusalem"), locale
        )  # type: ignore[arg-type]
    assert label == expected


async def test_member_is_named_by_full_name(db: Database, org: Org, clean_db: str) -> None:
    dana = add_person(clean_db, org, "Dana Levi")
    assert dana.membership_id is not None
    async with db.org_tx(org.id) as conn:
        assert await names.member_name(OrgScope(conn, org.id), dana.membership_id) == "Dana Levi"


async def test_another_orgs_entities_are_not_found(
    db: Database, org: Org, other_org: Org, clean_db: str
) -> None:
    theirs = add_person(clean_db, other_org, "Saar Cohen")
    session_id = _session(clean_db, other_org, "Open Gym", datetime(2026, 12, 1, 11, 0, tzinfo=UTC))
    assert theirs.membership_id is not None
    async with db.org_tx(org.id) as conn:
        with pytest.raises(DomainError, match="No such member"):
            await names.member_name(OrgScope(conn, org.id), theirs.membership_id)
        with pytest.raises(DomainError, match="No such class session"):
            await names.session_label(OrgScope(conn, org.id), session_id, ZoneInfo("UTC"), "en")
