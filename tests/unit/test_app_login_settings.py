"""Which login the app's pool uses: APP_DATABASE_URL; outside production, the app role on the
owner's server with the local password; in production never the owner's."""

from __future__ import annotations

import pytest
from psycopg.conninfo import conninfo_to_dict

from spotter.config import Settings
from spotter.db.server import LOCAL_APP_PASSWORD

OWNER = "postgresql://spotter_owner:owner-pass@db.internal:5432/spotter"


def test_the_apps_own_url_wins() -> None:
    app = "postgresql://spotter_app:s3cret@proxy.internal:5432/spotter"
    settings = Settings(environment="production", database_url=OWNER, app_database_url=app)
    assert settings.app_pool_url() == app
    assert settings.app_login_password() == "s3cret"


def test_production_never_falls_back_to_the_owners_login() -> None:
    settings = Settings(environment="production", database_url=OWNER, app_database_url=None)
    with pytest.raises(RuntimeError, match="never as the owner"):
        settings.app_pool_url()
    assert settings.app_login_password() is None


def test_outside_production_the_app_role_logs_in_on_the_owners_server() -> None:
    settings = Settings(environment="dev", database_url=OWNER, app_database_url=None)
    login = conninfo_to_dict(settings.app_pool_url())
    assert (login["user"], login["password"]) == ("spotter_app", LOCAL_APP_PASSWORD)
    assert (login["host"], login["dbname"]) == ("db.internal", "spotter")
    assert settings.app_login_password() == LOCAL_APP_PASSWORD
