"""Embeddings for ambient RAG: Voyage `voyage-multilingual-2` (1024 dimensions) when configured.

`voyageai` (with numpy and pillow, which it imports) is imported on the first `embed` call, not
when the app or an embedder is built: a container that never embeds never pays for it, and the
functions without the embedding layer (docs/deploy.md) can build the same settings-driven deps.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, Protocol

from spotter.config import Settings

EMBEDDING_MODEL = "voyage-multilingual-2"
EMBEDDING_DIMENSIONS = 1024

InputType = Literal["query", "document"]


class Embedder(Protocol):
    async def embed(self, texts: list[str], input_type: InputType) -> list[list[float]]: ...


class VoyageEmbedder:
    """Wraps `voyageai.AsyncClient` (or anything with its `embed` signature), built on first use."""

    def __init__(self, make_client: Callable[[], Any]) -> None:
        self._make_client = make_client
        self._client: Any = None

    @classmethod
    def from_settings(
        cls, api_key: str, base_url: str | None = None, timeout: float = 5.0
    ) -> VoyageEmbedder:
        def make_client() -> Any:
            from voyageai.client_async import AsyncClient

            return AsyncClient(api_key=api_key, base_url=base_url, timeout=timeout)

        return cls(make_client)

    async def embed(self, texts: list[str], input_type: InputType) -> list[list[float]]:
        if self._client is None:
            self._client = self._make_client()
        result = await self._client.embed(texts, model=EMBEDDING_MODEL, input_type=input_type)
        return [[float(x) for x in vector] for vector in result.embeddings]


def embedder_for(settings: Settings) -> Embedder | None:
    """Voyage when `VOYAGE_API_KEY` is set; None otherwise (ambient RAG runs lexical-only)."""
    if not settings.voyage_api_key:
        return None
    return VoyageEmbedder.from_settings(settings.voyage_api_key, settings.voyage_base_url)


def vector_literal(vector: list[float]) -> str:
    """pgvector's text form, so no extra adapter is needed: `[0.1,0.2,...]`."""
    return "[" + ",".join(f"{x:.7g}" for x in vector) + "]"
