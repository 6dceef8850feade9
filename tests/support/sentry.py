"""The real sentry-sdk with a transport that keeps its envelopes: what Sentry would receive,
read in the test, with no network."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import sentry_sdk
from sentry_sdk.envelope import Envelope
from sentry_sdk.transport import Transport


class KeptEnvelopes(Transport):
    def __init__(self) -> None:
        super().__init__()
        self.envelopes: list[Envelope] = []

    def capture_envelope(self, envelope: Envelope) -> None:
        self.envelopes.append(envelope)

    def flush(self, timeout: float, callback: Any = None) -> None:
        pass

    def kill(self) -> None:
        pass

    @property
    def events(self) -> list[dict[str, Any]]:
        """Every error or message event sent, as Sentry would read it."""
        return [
            item.payload.json
            for envelope in self.envelopes
            for item in envelope.items
            if item.headers.get("type") == "event" and item.payload.json is not None
        ]

    def raw(self) -> str:
        """Everything sent, serialized: what a scrubbing assertion searches."""
        return "".join(e.serialize().decode("utf-8", "replace") for e in self.envelopes)


@contextmanager
def fresh_sentry() -> Iterator[KeptEnvelopes]:
    """No Sentry client before (so the telemetry's own `init` runs) and none after."""
    sentry_sdk.get_global_scope().set_client(None)
    kept = KeptEnvelopes()
    try:
        yield kept
    finally:
        sentry_sdk.get_global_scope().set_client(None)
