"""A Messages request as sent: its JSON body serialized once, with what metering reads from it.

No SDK import here: metering (which the finish path loads) needs the request, not the client.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# The SDK's encoder settings (compact, UTF-8 kept, no NaN): the bytes it would have sent.
to_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
_STREAM_TAIL = ',"stream":true}'  # every call streams; `messages.stream` sends it too
_HEAD = frozenset({"model", "max_tokens", "stream"})
# The API's least thinking budget; a budget must also stay below `max_tokens`.
MIN_THINKING_BUDGET = 1_024


@dataclass(frozen=True)
class WireRequest:
    model: str
    max_tokens: int
    body: str  # the JSON text posted, `"stream":true` included
    # each other body key and its value's JSON text, in the order sent (a capped copy reuses them)
    fields: tuple[tuple[str, str], ...] = field(default=(), repr=False, compare=False)

    @classmethod
    def of(cls, model: str, max_tokens: int, fields: Mapping[str, str]) -> WireRequest:
        """`fields` maps each other body key to its value's JSON text, in the order sent: a
        value serialized once and cached (the tools' definitions) is reused as is."""
        head = f'{{"model":{to_json(model)},"max_tokens":{max_tokens}'
        rest = "".join(f',"{key}":{text}' for key, text in fields.items())
        return cls(model, max_tokens, head + rest + _STREAM_TAIL, tuple(fields.items()))

    def capped(self, max_tokens: int) -> WireRequest:
        """The same request with a lower output cap (the budget's clamp); a fixed thinking
        budget (`{"type": "enabled", "budget_tokens": n}`) shrinks with it to half the cap, as
        the API requires it below `max_tokens`. Every other field's text is reused as is."""
        if max_tokens >= self.max_tokens:
            return self
        fields = dict(self.fields)
        if "thinking" in fields:
            thinking = json.loads(fields["thinking"])
            budget = thinking.get("budget_tokens")
            if isinstance(budget, int) and budget >= max_tokens // 2:
                thinking["budget_tokens"] = max(MIN_THINKING_BUDGET, max_tokens // 2)
                fields["thinking"] = to_json(thinking)
        return WireRequest.of(self.model, max_tokens, fields)

    @classmethod
    def from_dict(cls, request: Mapping[str, Any]) -> WireRequest:
        """A request built as a dict, `model` and `max_tokens` among its keys."""
        fields = {k: to_json(v) for k, v in request.items() if k not in _HEAD}
        return cls.of(request["model"], request["max_tokens"], fields)
