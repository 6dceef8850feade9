"""What an approval is bound to: a fingerprint of the router, the action and the exact arguments.

The card carries it (`confirmation_pending.fingerprint`, the loader's pending call); a decision
that names another one was made on a card that no longer shows the call (a stale tab, an edit
made elsewhere) and is refused before anything is claimed.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any


def call_fingerprint(router: str, action: str, call_input: dict[str, Any]) -> str:
    # canonical JSON: the stored jsonb and a fresh dict of the same call hash alike
    canonical = json.dumps(
        {"router": router, "action": action, "input": call_input},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        default=str,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()[:32]
