"""The schema's owner as Aurora has it: the tests migrate as `spotter_owner`, a login with the
attributes of Aurora's master user (NOSUPERUSER NOBYPASSRLS, CREATEDB CREATEROLE), so FORCE ROW
LEVEL SECURITY binds the owner and the definer functions run as they do in production. The
fixtures keep writing any org's rows through the server's superuser (the god view a test needs).
"""

from __future__ import annotations

import asyncio

import psycopg
from psycopg import sql

from spotter.cli import cmd_agent_switch
from spotter.config import Settings
from spotter.db.migrate import migrate
from spotter.db.pool import APP_ROLE
from spotter.db.server import LOCAL_APP_PASSWORD, with_login

MIGRATION_OWNER = "spotter_owner"
DEFINER_ROLE = "spotter_definer"
# Aurora's administrators create these (rds_superuser may); the owner cannot create vector.
_EXTENSIONS = ("vector", "pg_trgm")


def migrate_as_owner(superuser_url: str) -> list[str]:
    """Make `superuser_url`'s database the RDS-like owner's and migrate it as that owner."""
    with psycopg.connect(superuser_url, autocommit=True) as conn:
        if not conn.execute(
            "SELECT 1 FROM pg_roles WHERE rolname = %s", (MIGRATION_OWNER,)
        ).fetchone():
            conn.execute(
                sql.SQL("CREATE ROLE {} LOGIN CREATEDB CREATEROLE PASSWORD {}").format(
                    sql.Identifier(MIGRATION_OWNER), sql.Literal(LOCAL_APP_PASSWORD)
                )
            )
        database = conn.info.dbname
        conn.execute(
            sql.SQL("ALTER DATABASE {} OWNER TO {}").format(
                sql.Identifier(database), sql.Identifier(MIGRATION_OWNER)
            )
        )
        for extension in _EXTENSIONS:
            conn.execute(
                sql.SQL("CREATE EXTENSION IF NOT EXISTS {}").format(sql.Identifier(extension))
            )
        # Roles are the server's: another database's migration (as the superuser) may have made
        # them. The owner administers them as if it had (a creator gets ADMIN, no inheritance).
        for role in (APP_ROLE, DEFINER_ROLE):
            administered = conn.execute(
                "SELECT pg_has_role(%s, r.oid, 'MEMBER WITH ADMIN OPTION') FROM pg_roles r"
                " WHERE r.rolname = %s",
                (MIGRATION_OWNER, role),
            ).fetchone()
            if administered is not None and not administered[0]:
                conn.execute(
                    sql.SQL("GRANT {} TO {} WITH ADMIN OPTION, INHERIT FALSE, SET FALSE").format(
                        sql.Identifier(role), sql.Identifier(MIGRATION_OWNER)
                    )
                )
    owner = with_login(superuser_url, MIGRATION_OWNER, LOCAL_APP_PASSWORD)
    return asyncio.run(migrate(owner, app_password=LOCAL_APP_PASSWORD))


def switch_agent(superuser_url: str, state: str, org_clerk_id: str | None = None) -> None:
    """`spotter agent-switch` as an operator runs it: logged in as the schema's owner, whom
    FORCE ROW LEVEL SECURITY binds like the app (it sees no organization's rows)."""
    owner = with_login(superuser_url, MIGRATION_OWNER, LOCAL_APP_PASSWORD)
    cmd_agent_switch(
        Settings(environment="test", database_url=owner), state, org_clerk_id, "incident 42"
    )
