"""What the model is told around the history: the static and org system blocks, the
`<turn_context>` block, the cache markers, and the title prompt."""

from spotter.agent.prompting.context import (
    CACHE_5M,
    build_turn_context,
    system_blocks,
    user_turn,
    with_cached_tail,
)
from spotter.agent.prompting.titles import TITLE_SYSTEM, clean_title, title_request

__all__ = [
    "CACHE_5M",
    "TITLE_SYSTEM",
    "build_turn_context",
    "clean_title",
    "system_blocks",
    "title_request",
    "user_turn",
    "with_cached_tail",
]
