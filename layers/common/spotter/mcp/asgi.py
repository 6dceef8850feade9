"""Rewriting a response's start from its first body chunk, for answers the SDK writes.

The SDK sends `http.response.start` before the body that says what the start should have been
(the endpoint's outage status, legacy's session id): `rewrite_start` holds the start until the
first body chunk and sends what the rewrite makes of the two, then the chunk and the rest as
they come.
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.types import Message, Send

# (the held start, the first body chunk) → the start to send
StartRewrite = Callable[[Message, Message], Message]


def rewrite_start(send: Send, rewrite: StartRewrite) -> Send:
    start: Message | None = None

    async def sending(event: Message) -> None:
        nonlocal start
        if event["type"] == "http.response.start":
            start = event
            return
        if start is None:  # the start was sent already (or never came): pass on
            await send(event)
            return
        held, start = start, None
        await send(rewrite(held, event))
        await send(event)

    return sending
