"""help — answers from the product help corpus shipped with Spotter (`spotter.help`)."""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import Field

from spotter.config import get_settings
from spotter.help.search import search_help
from spotter.providers.embeddings import Embedder, embedder_for
from spotter.tools.args import Args
from spotter.tools.context import ToolContext
from spotter.tools.router import Router

help_router = Router(
    "help",
    "How to use the dashboard and Spotter: help articles to answer from.",
    quick_action=True,
)


@cache
def _embedder() -> Embedder | None:
    """Voyage when configured (semantic + lexical), else None (lexical only); built once."""
    return embedder_for(get_settings())


class AskArgs(Args):
    question: str = Field(min_length=2, max_length=500)


@help_router.read("ask", "Help articles for a how-to question (ask in English).")
async def ask(ctx: ToolContext, args: AskArgs) -> dict[str, Any]:
    hits = await search_help(ctx.conn, args.question, embedder=_embedder())
    if not hits:
        return {"articles": [], "note": "No help article matches; say so instead of guessing."}
    return {
        "articles": [
            {"slug": h.article.slug, "title": h.article.title, "body": h.article.body} for h in hits
        ]
    }
