"""An ASGI app served by uvicorn on a loopback port, inside the test's event loop: for what the
in-process transport cannot do (it buffers a response to its end) or a real client must reach."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import uvicorn


@asynccontextmanager
async def on_loopback(app: Any) -> AsyncIterator[str]:
    """Yields the server's origin (`http://127.0.0.1:<port>`) once it accepts connections."""
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")
    )
    task = asyncio.create_task(server.serve())
    for _ in range(500):
        if server.started or task.done():
            break
        await asyncio.sleep(0.02)
    if not server.started:
        server.should_exit = True
        await task  # raises what stopped it
        raise RuntimeError("the loopback server did not start")
    try:
        yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    finally:
        server.should_exit = True
        await task
