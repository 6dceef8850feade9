"""Who is calling: Clerk session verification, then an active membership in our database."""

from spotter.auth.caller import Caller, Role, resolve_caller
from spotter.auth.clerk import SessionClaims, TokenVerifier

__all__ = ["Caller", "Role", "SessionClaims", "TokenVerifier", "resolve_caller"]
