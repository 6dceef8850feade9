"""The provider's prompt cache, for the scripted model: usage as the API would report it.

A request's prefix — its parts in render order (tools, system blocks, message blocks) up to
the last one carrying `cache_control` — is read from the cache when an earlier request wrote the
same bytes, and written when it is at least the model's caching minimum (Haiku 4.5: 4,096
tokens; the others 1,024), counted offline with ctok for the model's tokenizer. A shorter prefix
is ignored by the cache (the marker is a no-op) and billed as plain input, like the rest.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from spotter.providers.fake import FakeUsage, Reply, Text
from spotter.tools.token_count import HAIKU_CACHE_MINIMUM, claude_tokens, tokenizer_family


def _bare(block: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in block.items() if k != "cache_control"}


def _parts(body: dict[str, Any]) -> list[tuple[dict[str, Any], bool]]:
    parts = [(_bare(t), "cache_control" in t) for t in body.get("tools", [])]
    system = body.get("system", [])
    blocks = [{"type": "text", "text": system}] if isinstance(system, str) else system
    parts += [(_bare(b), "cache_control" in b) for b in blocks]
    for message in body["messages"]:
        parts += [({"role": message["role"], **_bare(b)}, "cache_control" in b)
                  for b in message["content"]]  # fmt: skip
    return parts


def _text(parts: list[tuple[dict[str, Any], bool]]) -> str:
    return json.dumps([p for p, _ in parts], ensure_ascii=False, separators=(",", ":"))


@dataclass
class PromptCache:
    entries: set[str] = field(default_factory=set)
    output_tokens: int = 5
    reported: list[FakeUsage] = field(default_factory=list)  # every usage it answered, in order

    def usage(self, body: dict[str, Any]) -> FakeUsage:
        parts = _parts(body)
        family = tokenizer_family(body["model"])
        minimum = HAIKU_CACHE_MINIMUM if family == "3.0" else 1_024
        marked = [i for i, (_, is_marked) in enumerate(parts) if is_marked]
        cut = marked[-1] + 1 if marked else 0
        prefix = _text(parts[:cut]) if cut else ""
        prefix_tokens = claude_tokens(prefix, family) if prefix else 0
        rest_tokens = claude_tokens(_text(parts[cut:]), family)
        if prefix_tokens < minimum:
            return FakeUsage(
                input_tokens=prefix_tokens + rest_tokens, output_tokens=self.output_tokens
            )
        if prefix in self.entries:
            return FakeUsage(
                input_tokens=rest_tokens, cache_read_input_tokens=prefix_tokens,
                output_tokens=self.output_tokens,
            )  # fmt: skip
        self.entries.add(prefix)
        return FakeUsage(
            input_tokens=rest_tokens, cache_write_5m_tokens=prefix_tokens,
            output_tokens=self.output_tokens,
        )  # fmt: skip

    def answering(self, text: str) -> Callable[[dict[str, Any]], Reply]:
        """A scripted step that answers `text` with this cache's usage for its request."""

        def answer(body: dict[str, Any]) -> Reply:
            self.reported.append(usage := self.usage(body))
            return Reply([Text(text)], usage=usage)

        return answer
