"""A gym rule that says no: the stable `conflict` code, with the rule named in `reason`.

The model reads `{code: conflict, message, details: {reason, ...}}`: the message says what to do,
the reason (e.g. `duplicate_lead`, `stage_has_leads`) is stable for tests and clients.
"""

from __future__ import annotations

from typing import Any

from spotter.domain.errors import DomainError


def refused(reason: str, message: str, **details: Any) -> DomainError:
    return DomainError("conflict", message, reason=reason, **details)
