"""Text Postgres can hold, and UTF-8 can carry: no NUL (text and jsonb refuse it anywhere) and
no lone surrogate (a code point UTF-8 cannot encode, which JSON's `\\ud800` escape produces).

One check and one repair for every JSON value we persist or send, keys included:
- `unstorable(value)`: whether input holds such a character — a request body is refused with
  400 before anything is written (`http.bodies`);
- `repaired(value)`: each such character replaced with U+FFFD (a surrogate pair split into two
  code points is joined) — what the model wrote is kept, visibly repaired: its streamed text
  (`providers.message_reply`), its stored reply (`agent.transcript.storable`), every event a
  run streams and persists (`agent.stream.log.wire`).
"""

from __future__ import annotations

import re
from typing import Any

REPLACEMENT = "\ufffd"
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def unstorable_text(text: str) -> bool:
    return _UNSTORABLE.search(text) is not None


def repaired_text(text: str) -> str:
    """`text` with every NUL and lone surrogate replaced by U+FFFD (the same object when clean)."""
    if _UNSTORABLE.search(text) is None:
        return text
    # UTF-16 joins a pair given as two code points and replaces what stays lone
    joined = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return joined.replace("\x00", REPLACEMENT)


def unstorable(value: Any) -> bool:
    """Whether a NUL or lone surrogate hides anywhere in a JSON value, keys included."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _UNSTORABLE.search(item) is not None:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def repaired(value: Any) -> Any:
    """A JSON value with every string (keys included) repaired; the same object when clean, so
    the common case allocates nothing."""
    if not unstorable(value):
        return value
    return _rebuilt(value)


def _rebuilt(value: Any) -> Any:
    if isinstance(value, str):
        return repaired_text(value)
    if isinstance(value, dict):
        return {_rebuilt(k): _rebuilt(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rebuilt(v) for v in value]
    return value
