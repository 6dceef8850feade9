"""Which login the app's pool uses: APP_DATABASE_URL; outside production, the app role on the
owner's server with the local password; in production never the owner's."""

from __future__ import annotations

import pytest
from psycopg.conninfo import conninfo_to_dict

from spotter.config import Settings
from spotter.db.server import LOCAL_APP_PASSWORD, app_login_password, app_pool_url

OWNER = "postgresql://spotter_owner:owner-pass@db.internal:5432/spotter"


def test_the_apps_own_url_wins() -> None:
    app = "postgresql://spotter_app:s3cret@proxy.internal:5432/spotter"
    settings = Settings(environment="production", database_url=OWNER, app_database_url=app)
    assert app_pool_url(settings) == app
    assert app_login_password(settings) == "s3cret"


def test_production_never_falls_back_to_the_owners_login() -> None:
    settings = Settings(environment="production", database_url=OWNER, app_database_url=None)
    with pytest.raises(RuntimeError, match="never as the owner"):
        app_pool_url(settings)
    assert app_login_password(settings) is None


def test_outside_production_the_app_role_logs_in_on_the_owners_server() -> None:
    settings = Settings(environment="dev", database_url=OWNER, app_database_url=None)
    login = conninfo_to_dict(app_pool_url(settings))
    assert (login["user"], login["password"]) == ("spotter_app", LOCAL_APP_PASSWORD)
    assert (login["host"], login["dbname"]) == ("db.internal", "spotter")
    assert app_login_password(settings) == LOCAL_APP_PASSWORD
