"""The proxy between the tests' pools and Postgres (tests/conftest.py starts it per worker)."""

from __future__ import annotations

from spotter.db.bouncer import BouncerConfig

# Small and short-lived: a worker's many pools share 4 backends, each closed 3 s after it was
# opened (once released), so a test's transactions land on several backends in turn.
TEST_PROXY = BouncerConfig(server_pool=4, server_lifetime_s=3, server_idle_timeout_s=5)
