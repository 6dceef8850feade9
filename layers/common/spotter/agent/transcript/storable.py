"""What Postgres can hold of a model's reply: malformed output is stored, never fatal.

jsonb refuses the NUL character anywhere (strings and keys), UTF-8 has no lone surrogate, and a
tool input nested hundreds of levels deep is no input a tool takes. `storable_reply` repairs
text and thinking (`db.text.repaired_text`: each such character becomes U+FFFD; the one repair
of everything persisted), and turns a tool call whose input held one, or nested
`MAX_INPUT_DEPTH` levels or more, into a stored call with an emptied input plus a refusal the
batch answers with `invalid_args` — the call never runs (its input is not what the model
sent), the model reads why and may call again, and the history stays valid (every tool_use
keeps its id and answer). A tool_use id the conversation already used, or one a reply gives two
calls, is renamed (`distinct_tool_ids`): the ids are the calls' keys, unique in a conversation.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Set
from dataclasses import dataclass
from typing import Any

from spotter.db.text import REPLACEMENT, repaired_text, unstorable_text
from spotter.tools.errors import ToolError

__all__ = [
    "MAX_INPUT_DEPTH",
    "REPLACEMENT",
    "StorableReply",
    "distinct_tool_ids",
    "input_problem",
    "storable_reply",
    "tool_use_ids",
]

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
        if isinstance(item, str) and unstorable_text(item):
            return (
                "The tool input contains a NUL character (\\u0000) or an unpaired surrogate"
                " (\\ud800-\\udfff); send it without one."
            )
    return None


def storable_reply(content: list[dict[str, Any]]) -> StorableReply:
    stored: list[dict[str, Any]] = []
    refused: dict[str, ToolError] = {}
    repaired = 0
    for block in content:
        kind = block.get("type")
        if kind == "text" and unstorable_text(block["text"]):
            block, repaired = {**block, "text": repaired_text(block["text"])}, repaired + 1
        elif kind == "thinking" and unstorable_text(block["thinking"]):
            block, repaired = {**block, "thinking": repaired_text(block["thinking"])}, repaired + 1
        elif kind == "tool_use" and (problem := input_problem(block["input"])) is not None:
            refused[block["id"]] = ToolError("invalid_args", problem)
            block, repaired = {**block, "input": {}}, repaired + 1
        stored.append(block)
    return StorableReply(stored, refused, repaired)


def tool_use_ids(messages: list[dict[str, Any]]) -> set[str]:
    """Every tool_use id of these messages (API-shaped: what a replay sends)."""
    return {
        block["id"]
        for message in messages
        if isinstance(message.get("content"), list)
        for block in message["content"]
        if isinstance(block, dict) and block.get("type") == "tool_use"
    }


def distinct_tool_ids(
    content: list[dict[str, Any]], used: Set[str]
) -> tuple[list[dict[str, Any]], int]:
    """The reply with every tool_use id the conversation already `used`, or an earlier call of
    the same reply took, renamed to a fresh one (the call itself is kept: it runs and is answered
    under its new id, which is what the model replays); and how many were renamed."""
    taken = set(used)
    out: list[dict[str, Any]] = []
    renamed = 0
    for block in content:
        if block.get("type") == "tool_use":
            if block["id"] in taken:
                block, renamed = {**block, "id": f"toolu_{uuid.uuid4().hex}"}, renamed + 1
            taken.add(block["id"])
        out.append(block)
    return out, renamed
