"""A second wall that cannot be lost silently: the pool serves only as the app role, and only
while row-level security binds it (no superuser, no BYPASSRLS, no ownership, not even by
membership); any other login is refused when the pool opens, with a reason that says so."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from spotter.db import Database
from spotter.db.pool import UnsafeLogin
from spotter.db.server import LOCAL_APP_PASSWORD, with_login
from tests.support.owner import MIGRATION_OWNER


async def test_the_app_role_is_served(direct_app_url: str) -> None:
    db = await Database.open(direct_app_url, max_size=1)
    try:
        async with db.system_tx() as conn:
            cur = await conn.execute("SELECT current_user AS who")
            assert await cur.fetchone() == {"who": "spotter_app"}
    finally:
        await db.close()


async def test_a_superuser_login_is_refused(owner_url: str) -> None:
    with pytest.raises(UnsafeLogin, match="'postgres', not 'spotter_app'"):
        await Database.open(owner_url, max_size=1)


async def test_the_owners_login_is_refused(owner_url: str) -> None:
    owner = with_login(owner_url, MIGRATION_OWNER, LOCAL_APP_PASSWORD)
    with pytest.raises(UnsafeLogin, match="for migrations only"):
        await Database.open(owner, max_size=1)


@pytest.fixture
def altered_app_role(owner_url: str) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    """The server's superuser, to give the app role what it must never have; undone after."""
    with psycopg.connect(owner_url, autocommit=True) as admin:
        try:
            yield admin
        finally:
            admin.execute("ALTER ROLE spotter_app NOSUPERUSER NOBYPASSRLS")
            admin.execute("DROP TABLE IF EXISTS spotter_probe")
            admin.execute("DROP ROLE IF EXISTS spotter_probe_owner")


@pytest.mark.parametrize(
    ("grants", "reason"),
    [
        (["ALTER ROLE spotter_app BYPASSRLS"], "bypasses row-level security"),
        (["ALTER ROLE spotter_app SUPERUSER"], "bypasses row-level security"),
        (["CREATE TABLE spotter_probe ()", "ALTER TABLE spotter_probe OWNER TO spotter_app"],
         "owns tables"),
        (["CREATE ROLE spotter_probe_owner", "CREATE TABLE spotter_probe ()",
          "ALTER TABLE spotter_probe OWNER TO spotter_probe_owner",
          "GRANT spotter_probe_owner TO spotter_app"], "owns tables"),
    ],
    ids=["bypassrls", "superuser", "owner", "member-of-an-owner"],
)  # fmt: skip
async def test_an_app_role_that_rls_does_not_bind_is_refused(
    altered_app_role: psycopg.Connection[tuple[object, ...]],
    direct_app_url: str,
    grants: list[str],
    reason: str,
) -> None:
    for grant in grants:
        altered_app_role.execute(grant)
    with pytest.raises(UnsafeLogin, match=reason):
        await Database.open(direct_app_url, max_size=1)
