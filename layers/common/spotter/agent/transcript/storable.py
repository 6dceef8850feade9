"""What Postgres can hold of a model's reply: malformed output is stored, never fatal.

jsonb refuses the NUL character anywhere (strings and keys), and a tool input nested hundreds of
levels deep is no input a tool takes. `storable_reply` replaces each NUL with U+FFFD in text
and thinking, and turns a tool call whose input held a NUL or nested `MAX_INPUT_DEPTH` levels
or more into a stored call with an emptied input plus a refusal the batch answers with
`invalid_args` — the call never runs (its input is not what the model sent), the model reads
why and may call again, and the history stays valid (every tool_use keeps its id and answer).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from spotter.tools.errors import ToolError

NUL = "\x00"
REPLACEMENT = "\ufffd"
MAX_INPUT_DEPTH = 256


@dataclass(frozen=True)
class StorableReply:
    content: list[dict[str, Any]]
    refused: dict[str, ToolError]  # tool_use id → the invalid_args result it gets
    repaired: int  # blocks changed to be stored (counted for observability)


def _walk(value: Any) -> Iterator[tuple[Any, int]]:
    """Every value under `value` with its depth, iteratively (no recursion limit to hit)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        yield item, depth
        if isinstance(item, dict):
            stack.extend((k, depth) for k in item)
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)


def input_problem(value: Any) -> str | None:
    """Why a tool input cannot be stored or run as sent, or None."""
    for item, depth in _walk(value):
        if depth >= MAX_INPUT_DEPTH:
            return f"The tool input is nested {MAX_INPUT_DEPTH} or more levels deep; send it flat."
        if isinstance(item, str) and NUL in item:
            return "The tool input contains a NUL character (\\u0000); send it without one."
    return None


def storable_text(text: str) -> str:
    """`text` as jsonb holds it: each NUL replaced with U+FFFD (a streamed delta is said as
    the reply is stored, and the event log's batch that carries it can commit)."""
    return text.replace(NUL, REPLACEMENT)


def storable_reply(content: list[dict[str, Any]]) -> StorableReply:
    stored: list[dict[str, Any]] = []
    refused: dict[str, ToolError] = {}
    repaired = 0
    for block in content:
        kind = block.get("type")
        if kind == "text" and NUL in block["text"]:
            block, repaired = {**block, "text": storable_text(block["text"])}, repaired + 1
        elif kind == "thinking" and NUL in block["thinking"]:
            block, repaired = {**block, "thinking": storable_text(block["thinking"])}, repaired + 1
        elif kind == "tool_use" and (problem := input_problem(block["input"])) is not None:
            refused[block["id"]] = ToolError("invalid_args", problem)
            block, repaired = {**block, "input": {}}, repaired + 1
        stored.append(block)
    return StorableReply(stored, refused, repaired)
