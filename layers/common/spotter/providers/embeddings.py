"""Embeddings for ambient RAG: Voyage `voyage-multilingual-2` (1024 dimensions) when configured.

`voyageai` is imported on the first `embed` call, not when the app or an embedder is built: a
container that never embeds never pays for it, and the functions without the embedding layer
(docs/deploy.md) can build the same settings-driven deps.

The vectors come back as base64 float32 (what voyageai asks for by default, a quarter of the JSON
floats' size), requested explicitly so that voyageai hands the strings back as they are instead of
decoding them with numpy: they are decoded here with the standard library, and the embedding layer
ships no numpy (layers/embedding/standins).
"""

from __future__ import annotations

import base64
import struct
from collections.abc import Awaitable, Callable
from typing import Any, Literal, Protocol

from spotter.config import Settings

EMBEDDING_MODEL = "voyage-multilingual-2"
EMBEDDING_DIMENSIONS = 1024

InputType = Literal["query", "document"]


class Embedder(Protocol):
    async def embed(self, texts: list[str], input_type: InputType) -> list[list[float]]: ...


class VoyageEmbedder:
    """Voyage's embeddings endpoint through `voyageai` (its `Embedding` resource: the request
    `voyageai.AsyncClient.embed` makes, with the encoding named so the vectors stay base64)."""

    def __init__(self, create: Callable[..., Awaitable[Any]]) -> None:
        self._create = create

    @classmethod
    def from_settings(
        cls, api_key: str, base_url: str | None = None, timeout: float = 5.0
    ) -> VoyageEmbedder:
        async def create(**params: Any) -> Any:
            from voyageai.api_resources.embedding import Embedding

            acreate: Any = Embedding.acreate  # the SDK is untyped
            return await acreate(
                api_key=api_key, base_url=base_url, request_timeout=timeout, **params
            )

        return cls(create)

    async def embed(self, texts: list[str], input_type: InputType) -> list[list[float]]:
        response = await self._create(
            input=texts,
            model=EMBEDDING_MODEL,
            input_type=input_type,
            truncation=True,
            encoding_format="base64",
        )
        return [decode_float32(item["embedding"]) for item in response.data]


def decode_float32(encoded: str) -> list[float]:
    """A base64 vector of little-endian float32s, as Voyage sends it."""
    raw = base64.b64decode(encoded)
    return list(struct.unpack(f"<{len(raw) // 4}f", raw))


def embedder_for(settings: Settings) -> Embedder | None:
    """Voyage when `VOYAGE_API_KEY` is set; None otherwise (ambient RAG runs lexical-only)."""
    if not settings.voyage_api_key:
        return None
    return VoyageEmbedder.from_settings(settings.voyage_api_key, settings.voyage_base_url)


def vector_literal(vector: list[float]) -> str:
    """pgvector's text form, so no extra adapter is needed: `[0.1,0.2,...]`."""
    return "[" + ",".join(f"{x:.7g}" for x in vector) + "]"
