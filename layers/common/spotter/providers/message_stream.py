"""One Messages request, serialized once by us and streamed raw through the real SDK client.

`client.messages.stream()` copies the whole request body before sending it (`copy_tree`, ~100 KB
of tool definitions per call) and builds a pydantic snapshot of the message on every event;
we need neither. `open_stream` posts the body we serialized ourselves with the client's own
`post` (its headers, `anthropic-version`, auth, timeout, retries and status-error mapping all
apply) and reads the events as plain dicts (`cast_to=object`): a mid-stream `error` event is
still raised by the SDK as its `APIStatusError`. `providers.message_reply` folds the events.

Bedrock moves `model` and `stream` from the body into the URL in its `_prepare_options`, which
needs the body as a dict: that client is given the parsed body instead of our bytes.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from spotter.providers.wire_request import WireRequest

if TYPE_CHECKING:
    from anthropic import AsyncStream

    from spotter.providers.anthropic import ModelClient


@asynccontextmanager
async def open_stream(
    client: ModelClient, request: WireRequest
) -> AsyncIterator[AsyncStream[object]]:
    """The response's events as raw dicts; the response is closed on exit, however it ends
    (closing early is how a client disconnect stops the model)."""
    # The SDK is loaded by the client that was built (providers.anthropic): no cost here.
    from anthropic import AsyncAnthropicBedrock, AsyncStream

    if isinstance(client, AsyncAnthropicBedrock):
        stream = await client.post(
            "/v1/messages",
            body=json.loads(request.body),
            cast_to=object,
            stream=True,
            stream_cls=AsyncStream[object],
        )
    else:
        stream = await client.post(
            "/v1/messages",
            content=request.body.encode(),
            cast_to=object,
            stream=True,
            stream_cls=AsyncStream[object],
        )
    async with stream:
        yield stream
