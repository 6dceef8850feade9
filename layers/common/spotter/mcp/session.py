"""The `Mcp-Session-Id` of a 2025-11-25 (initialize-era) client: what the handshake negotiated,
carried by the client instead of remembered by the server.

On Lambda the next request of a session may reach any instance, so nothing of the handshake is
kept in memory: the session id IS the handshake's outcome — the protocol version, the client's
elicitation modes, whose session it is (our user and org ids), when it began and a random nonce —
sealed with AES-256-GCM (the SDK's request-state codec) under a key derived from
`MCP_STATE_KEY` for this one use. Any instance verifies it; a client can neither read nor forge
it, and it is bound to its principal: presented with another user's or org's token it is unknown.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import time
from dataclasses import dataclass
from uuid import UUID

from mcp.server.request_state import AESGCMRequestStateCodec, InvalidRequestState
from mcp_types import ClientCapabilities

from spotter.auth.caller import Caller

# A session older than this is unknown (404): the client initializes again.
SESSION_LIFETIME_SECONDS = 24 * 3600
_PURPOSE = b"spotter/mcp-session/v1"


@dataclass(frozen=True)
class McpSession:
    """One initialize handshake's outcome, as every later request of it carries it."""

    protocol_version: str
    form: bool  # the client declared form elicitation (an empty `elicitation` means form)
    url: bool  # the client declared URL elicitation
    org_id: UUID
    user_id: UUID
    issued_at: int
    nonce: str

    @property
    def can_elicit(self) -> bool:
        return self.form

    def belongs_to(self, caller: Caller) -> bool:
        return self.org_id == caller.org_id and self.user_id == caller.user_id


def elicitation_modes(capabilities: ClientCapabilities | None) -> tuple[bool, bool]:
    """(form, url) from declared capabilities: `elicitation: {}` is form (2025-06-18 clients)."""
    elicitation = capabilities.elicitation if capabilities is not None else None
    if elicitation is None:
        return False, False
    url = elicitation.url is not None
    form = elicitation.form is not None or not url
    return form, url


def session_hash(session_id: str) -> str:
    """What the database stores of a session id (never the id itself)."""
    return hashlib.sha256(session_id.encode()).hexdigest()


class SessionSealer:
    def __init__(self, state_key: str | None) -> None:
        secret = state_key.encode() if state_key else os.urandom(32)
        key = hmac.new(secret, _PURPOSE, hashlib.sha256).digest()
        self._codec = AESGCMRequestStateCodec([key])

    def mint(
        self, caller: Caller, protocol_version: str, capabilities: ClientCapabilities | None
    ) -> str:
        form, url = elicitation_modes(capabilities)
        payload = {
            "v": protocol_version,
            "f": form,
            "u": url,
            "o": str(caller.org_id),
            "p": str(caller.user_id),
            "t": int(time.time()),
            "n": secrets.token_urlsafe(16),
        }
        return self._codec.seal(json.dumps(payload, separators=(",", ":")).encode())

    def open(
        self, session_id: str, caller: Caller, *, now: float | None = None
    ) -> McpSession | None:
        """The session, if this id was minted here, is still alive and is the caller's."""
        if not session_id or len(session_id) > 1024 or not session_id.isascii():
            return None
        try:
            raw = json.loads(self._codec.unseal(session_id))
            session = McpSession(
                protocol_version=str(raw["v"]),
                form=bool(raw["f"]),
                url=bool(raw["u"]),
                org_id=UUID(raw["o"]),
                user_id=UUID(raw["p"]),
                issued_at=int(raw["t"]),
                nonce=str(raw["n"]),
            )
        except (InvalidRequestState, ValueError, KeyError, TypeError):
            return None
        age = (now if now is not None else time.time()) - session.issued_at
        # a minute of clock skew between instances either way
        if not -60 <= age < SESSION_LIFETIME_SECONDS or not session.belongs_to(caller):
            return None
        return session
