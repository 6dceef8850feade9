"""A Messages request as sent: its JSON body serialized once, with what metering reads from it.

No SDK import here: metering (which the finish path loads) needs the request, not the client.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# The SDK's encoder settings (compact, UTF-8 kept, no NaN): the bytes it would have sent.
to_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
_STREAM_TAIL = ',"stream":true}'  # every call streams; `messages.stream` sends it too
_HEAD = frozenset({"model", "max_tokens", "stream"})


@dataclass(frozen=True)
class WireRequest:
    model: str
    max_tokens: int
    body: str  # the JSON text posted, `"stream":true` included

    @classmethod
    def of(cls, model: str, max_tokens: int, fields: Mapping[str, str]) -> WireRequest:
        """`fields` maps each other body key to its value's JSON text, in the order sent: a
        value serialized once and cached (the tools' definitions) is reused as is."""
        head = f'{{"model":{to_json(model)},"max_tokens":{max_tokens}'
        rest = "".join(f',"{key}":{text}' for key, text in fields.items())
        return cls(model, max_tokens, head + rest + _STREAM_TAIL)

    @classmethod
    def from_dict(cls, request: Mapping[str, Any]) -> WireRequest:
        """A request built as a dict, `model` and `max_tokens` among its keys."""
        fields = {k: to_json(v) for k, v in request.items() if k not in _HEAD}
        return cls.of(request["model"], request["max_tokens"], fields)
