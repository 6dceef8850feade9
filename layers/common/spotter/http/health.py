"""Readiness: whether the database answers, within a bound that never makes /healthz hang."""

from __future__ import annotations

import asyncio

from spotter.db import Database
from spotter.db.errors import is_unavailable

READY_TIMEOUT_SECONDS = 2.0


async def database_reachable(db: Database | None) -> bool:
    if db is None:
        return False
    try:
        async with asyncio.timeout(READY_TIMEOUT_SECONDS):
            async with db.system_tx() as conn:
                await conn.execute("SELECT 1")
    except TimeoutError:
        return False
    except Exception as exc:
        if is_unavailable(exc):
            return False
        raise
    return True
