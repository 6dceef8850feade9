"""Callers for tests that drive tools and the agent directly, resolved as HTTP would."""

from __future__ import annotations

from spotter.auth import Caller, resolve_caller
from spotter.auth.clerk import SessionClaims
from spotter.db import Database
from spotter.i18n import Locale
from tests.support.world import Org


async def caller_for(db: Database, org: Org, role: str, locale: Locale = "en") -> Caller:
    person = org[role]
    claims = SessionClaims(person.clerk_user_id, org.clerk_org_id, None, None)
    return await resolve_caller(db, claims, locale)
