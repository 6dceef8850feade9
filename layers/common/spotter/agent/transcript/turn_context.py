"""The one place that knows how a stored user turn is laid out.

content = [the user's text block, then a text block starting with `<turn_context>`]. Every reader
that shows or summarizes a message goes through `visible_text`, never through raw blocks.
"""

from __future__ import annotations

from typing import Any

TURN_CONTEXT_TAG = "<turn_context>"
# A dashboard-seeded opener: the user's words, this line, then what the page tells Spotter.
SEEDED_CONTEXT_MARKER = "--- context for Spotter ---"


def is_turn_context(block: dict[str, Any]) -> bool:
    text = block.get("text")
    return (
        block.get("type") == "text" and isinstance(text, str) and text.startswith(TURN_CONTEXT_TAG)
    )


def strip_turn_context(content: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [block for block in content if not is_turn_context(block)]


def has_turn_context(content: list[dict[str, Any]]) -> bool:
    return any(is_turn_context(block) for block in content)


def visible_user_text(text: str) -> str:
    """What the user typed of a message: the text before a seeded opener's context marker."""
    return text.partition(SEEDED_CONTEXT_MARKER)[0].strip()


def visible_text(content: list[dict[str, Any]]) -> str:
    """What a person reads of a message: its text blocks, without the turn context."""
    return "\n\n".join(
        str(block["text"])
        for block in strip_turn_context(content)
        if block.get("type") == "text" and block.get("text")
    )
