"""`spotter dev`'s app served for a browser test: its settings (the offline demo model, the local
dev signing key, the app's own login through the tests' PgBouncer) and a uvicorn server in a
thread of its own."""

from __future__ import annotations

import asyncio
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn

from spotter.auth.devkeys import DEV_ISSUER, ensure_dev_key, public_pem
from spotter.config import Settings
from spotter.db.bouncer import PgBouncer
from spotter.db.migrate import migrate
from spotter.db.server import LOCAL_APP_PASSWORD, app_login_url, ensure_database
from spotter.seed.demo import seed_demo


def dev_settings(database_url: str, data_dir: Path, proxy: PgBouncer, **overrides: Any) -> Settings:
    """What `spotter dev` runs with, on this database: no key, so the offline demo model; the
    app logs in as itself through `proxy` (transaction pooling, as RDS Proxy in production)."""
    fields: dict[str, Any] = {
        "environment": "dev",
        "database_url": database_url,
        "app_database_url": proxy.url(app_login_url(database_url)),
        "data_dir": data_dir,
        "clerk_jwt_key": public_pem(ensure_dev_key(data_dir)),
        "clerk_issuer": DEV_ISSUER,
        "clerk_jwks_url": None,
        "clerk_authorized_parties": "",
        "anthropic_api_key": None,
        "model_provider": "anthropic",
        "spotter_fake_model": True,
        "voyage_api_key": None,
        "sentry_dsn": None,
        "posthog_api_key": None,
    }
    return Settings(**(fields | overrides))


def demo_database(server_url: str, name: str) -> str:
    """A database of its own (per pytest worker), migrated and seeded with the demo gym: other
    tests truncate theirs between tests."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    url = ensure_database(server_url, f"{name}_{worker}", recreate=True)
    asyncio.run(migrate(url, app_password=LOCAL_APP_PASSWORD))
    asyncio.run(seed_demo(url))
    return url


def local_socket() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    return sock


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """The app on a free port of 127.0.0.1 until the block ends; yields its base URL."""
    sock = local_socket()
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the dev server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
