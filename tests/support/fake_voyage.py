"""A local server speaking Voyage's embeddings API, so tests drive the real `voyageai` client.

Embeddings are deterministic: words that name the same movement in English, Hebrew or Russian
share a concept direction (what a multilingual model does), plus a small hashed trigram part.
As Voyage does, `encoding_format: "base64"` returns each vector as base64 of its little-endian
float32s (what the voyageai SDK asks for unless told otherwise), none (or null) a list of floats,
anything else 400.
"""

from __future__ import annotations

import base64
import hashlib
import math
import struct
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from aiohttp import web

from spotter.providers.embeddings import EMBEDDING_DIMENSIONS

CONCEPTS: dict[str, tuple[str, ...]] = {
    "squat": ("squat", "squats", "סקוואט", "приседания", "присед"),
    "pullup": ("pull-up", "pullup", "pull-ups", "מתח", "подтягивания"),
    "row": ("row", "rowing", "חתירה", "гребля"),
    "engine": ("engine", "endurance", "cardio", "סיבולת", "выносливость"),
}


def _bucket(key: str) -> int:
    return int(hashlib.sha256(key.encode()).hexdigest(), 16) % (EMBEDDING_DIMENSIONS - 16) + 16


def fake_embedding(text: str) -> list[float]:
    vector = [0.0] * EMBEDDING_DIMENSIONS
    lowered = text.lower()
    for index, words in enumerate(CONCEPTS.values()):
        if any(word in lowered for word in words):
            vector[index] += 3.0
    for i in range(len(lowered) - 2):
        vector[_bucket(lowered[i : i + 3])] += 0.05
    norm = math.sqrt(sum(x * x for x in vector)) or 1.0
    return [x / norm for x in vector]


def _encoded(vector: list[float], encoding: str | None) -> list[float] | str:
    if encoding is None:
        return vector
    return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode()


@asynccontextmanager
async def fake_voyage_server() -> AsyncIterator[tuple[str, list[dict[str, object]]]]:
    """Yields (base_url, requests seen)."""
    seen: list[dict[str, object]] = []

    async def embeddings(request: web.Request) -> web.Response:
        body = await request.json()
        seen.append(body)
        encoding = body.get("encoding_format")
        if encoding not in (None, "base64"):
            detail = f"encoding_format must be null or 'base64', got {encoding!r}"
            return web.json_response({"detail": detail}, status=400)
        data = [
            {
                "object": "embedding",
                "embedding": _encoded(fake_embedding(text), encoding),
                "index": i,
            }
            for i, text in enumerate(body["input"])
        ]
        total = sum(len(t) // 4 + 1 for t in body["input"])
        return web.json_response(
            {
                "object": "list",
                "data": data,
                "model": body["model"],
                "usage": {"total_tokens": total},
            }
        )

    app = web.Application()
    app.router.add_post("/v1/embeddings", embeddings)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield f"http://127.0.0.1:{port}/v1", seen
    finally:
        await runner.cleanup()
