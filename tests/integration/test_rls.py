"""Tenancy at the database: row-level security on every org-owned table, for the app role and,
forced, for the tables' owner; cross-org reads only through definer functions."""

from __future__ import annotations

import uuid

import psycopg
import pytest

from spotter.db import Database
from spotter.db.server import LOCAL_APP_PASSWORD, with_login
from tests.support.owner import MIGRATION_OWNER
from tests.support.world import Org


def _add_conversation(owner_url: str, org: Org) -> uuid.UUID:
    conversation_id = uuid.uuid4()
    with psycopg.connect(owner_url) as conn:
        conn.execute(
            "INSERT INTO ai_conversations (id, organization_id, user_id, title) VALUES (%s, %s, %s, 'x')",
            (conversation_id, org.id, org["owner"].user_id),
        )
    return conversation_id


def test_every_org_owned_table_has_row_level_security(clean_db: str) -> None:
    with psycopg.connect(clean_db) as conn:
        rows = conn.execute(
            "SELECT c.relname, c.relrowsecurity,"
            " (SELECT count(*) FROM pg_policy p WHERE p.polrelid = c.oid) AS policies"
            " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname = 'public' AND c.relkind = 'r'"
            " AND (EXISTS (SELECT 1 FROM information_schema.columns i WHERE i.table_name = c.relname"
            "              AND i.column_name = 'organization_id') OR c.relname IN ('organizations', 'users'))"
        ).fetchall()
    assert rows, "expected org-owned tables"
    unprotected = [name for name, enabled, policies in rows if not enabled or policies == 0]
    assert unprotected == []


async def test_app_role_is_not_a_superuser(db: Database) -> None:
    async with db.system_tx() as conn:
        cur = await conn.execute(
            "SELECT current_user AS who, rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user"
        )
        row = await cur.fetchone()
    assert row is not None
    assert row["who"] == "spotter_app"
    assert not row["rolsuper"] and not row["rolbypassrls"]


async def test_without_org_setting_queries_see_nothing(
    db: Database, org: Org, clean_db: str
) -> None:
    _add_conversation(clean_db, org)
    async with db.system_tx() as conn:
        for table in ("organizations", "users", "org_memberships", "ai_conversations"):
            cur = await conn.execute(f"SELECT count(*) AS n FROM {table}")
            row = await cur.fetchone()
            assert row is not None and row["n"] == 0, table


async def test_org_sees_its_own_rows(db: Database, org: Org, clean_db: str) -> None:
    conversation_id = _add_conversation(clean_db, org)
    async with db.org_tx(org.id) as conn:
        cur = await conn.execute("SELECT id FROM ai_conversations")
        assert [r["id"] for r in await cur.fetchall()] == [conversation_id]
        cur = await conn.execute("SELECT count(*) AS n FROM users")
        row = await cur.fetchone()
        assert row is not None and row["n"] == 4


async def test_org_cannot_read_another_orgs_rows(
    db: Database, org: Org, other_org: Org, clean_db: str
) -> None:
    _add_conversation(clean_db, other_org)
    async with db.org_tx(org.id) as conn:
        cur = await conn.execute(
            "SELECT count(*) AS n FROM ai_conversations WHERE organization_id = %s", (other_org.id,)
        )
        row = await cur.fetchone()
        assert row is not None and row["n"] == 0
        cur = await conn.execute(
            "SELECT count(*) AS n FROM users WHERE id = %s", (other_org["owner"].user_id,)
        )
        row = await cur.fetchone()
        assert row is not None and row["n"] == 0


async def test_org_cannot_insert_rows_for_another_org(
    db: Database, org: Org, other_org: Org
) -> None:
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        async with db.org_tx(org.id) as conn:
            await conn.execute(
                "INSERT INTO ai_conversations (organization_id, user_id) VALUES (%s, %s)",
                (other_org.id, other_org["owner"].user_id),
            )


async def test_org_cannot_update_or_delete_another_orgs_rows(
    db: Database, org: Org, other_org: Org, clean_db: str
) -> None:
    theirs = _add_conversation(clean_db, other_org)
    async with db.org_tx(org.id) as conn:
        cur = await conn.execute(
            "UPDATE ai_conversations SET title = 'pwned' WHERE id = %s", (theirs,)
        )
        assert cur.rowcount == 0
        cur = await conn.execute("DELETE FROM ai_conversations WHERE id = %s", (theirs,))
        assert cur.rowcount == 0
    with psycopg.connect(clean_db) as conn:
        row = conn.execute("SELECT title FROM ai_conversations WHERE id = %s", (theirs,)).fetchone()
    assert row == ("x",)


async def test_org_cannot_move_its_row_into_another_org(
    db: Database, org: Org, other_org: Org, clean_db: str
) -> None:
    mine = _add_conversation(clean_db, org)
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        async with db.org_tx(org.id) as conn:
            await conn.execute(
                "UPDATE ai_conversations SET organization_id = %s WHERE id = %s",
                (other_org.id, mine),
            )


async def test_org_setting_does_not_leak_past_its_transaction(
    db: Database, org: Org, clean_db: str
) -> None:
    _add_conversation(clean_db, org)
    async with db.org_tx(org.id):
        pass
    # The pool may hand back the very same connection: it must see nothing now.
    async with db.system_tx() as conn:
        cur = await conn.execute("SELECT count(*) AS n FROM ai_conversations")
        row = await cur.fetchone()
        assert row is not None and row["n"] == 0


async def test_app_role_cannot_read_migration_history(db: Database) -> None:
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        async with db.system_tx() as conn:
            await conn.execute("SELECT * FROM schema_migrations")


def test_every_org_owned_table_forces_row_level_security_on_its_owner(clean_db: str) -> None:
    with psycopg.connect(clean_db) as conn:
        rows = conn.execute(
            "SELECT c.relname, c.relrowsecurity, c.relforcerowsecurity"
            " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname = 'public' AND c.relkind = 'r'"
            " AND (EXISTS (SELECT 1 FROM information_schema.columns i WHERE i.table_name = c.relname"
            "              AND i.column_name = 'organization_id') OR c.relname IN ('organizations', 'users'))"
        ).fetchall()
    assert len(rows) > 20
    assert [name for name, enabled, forced in rows if not (enabled and forced)] == []


def test_the_owner_sees_no_orgs_rows_unless_one_is_bound(
    org: Org, other_org: Org, clean_db: str
) -> None:
    mine = _add_conversation(clean_db, org)
    _add_conversation(clean_db, other_org)
    owner = with_login(clean_db, MIGRATION_OWNER, LOCAL_APP_PASSWORD)
    with psycopg.connect(owner) as conn:
        assert conn.execute("SELECT current_user").fetchone() == (MIGRATION_OWNER,)
        assert conn.execute("SELECT count(*) FROM ai_conversations").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM organizations").fetchone() == (0,)
        conn.execute("SELECT set_config('app.org_id', %s, true)", (str(org.id),))
        assert conn.execute("SELECT id FROM ai_conversations").fetchall() == [(mine,)]


def test_definer_functions_belong_to_a_role_nobody_logs_in_as_or_is_a_member_of(
    clean_db: str,
) -> None:
    with psycopg.connect(clean_db) as conn:
        owners = conn.execute(
            "SELECT p.proname, p.proowner::regrole::text FROM pg_proc p"
            " WHERE p.pronamespace = 'public'::regnamespace AND p.prosecdef"
        ).fetchall()
        definer = conn.execute(
            "SELECT rolcanlogin, rolsuper, rolbypassrls,"
            " (SELECT count(*) FROM pg_auth_members m WHERE m.roleid = r.oid"
            "   AND (m.inherit_option OR m.set_option))"
            " FROM pg_roles r WHERE rolname = 'spotter_definer'"
        ).fetchone()
    assert len(owners) >= 8
    assert {owner for _, owner in owners} == {"spotter_definer"}
    assert definer == (False, False, False, 0)


async def test_the_app_login_cannot_become_the_owner(db: Database) -> None:
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        async with db.system_tx() as conn:
            await conn.execute(f"SET LOCAL ROLE {MIGRATION_OWNER}")
