"""When the database is the reason a request failed: an outage, a full pool, a timed-out wait.

Each is answered 503 `service_unavailable` with `Retry-After` (or, on a stream, an `error` event
with that code), never 500 `internal`: the request was fine and may simply be sent again.
"""

from __future__ import annotations

import psycopg

# psycopg_pool's PoolTimeout and psycopg's QueryCanceled (statement_timeout) are both
# OperationalErrors, as are a refused connection and a server that went away mid-query.
UNAVAILABLE_ERRORS: tuple[type[Exception], ...] = (psycopg.OperationalError,)
RETRY_AFTER_SECONDS = 5


def is_unavailable(exc: BaseException) -> bool:
    return isinstance(exc, UNAVAILABLE_ERRORS)
