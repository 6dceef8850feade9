"""The caller of a request: an active member of one organization, with our role for them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal
from uuid import UUID

from spotter.auth.clerk import SessionClaims
from spotter.db import Database
from spotter.errors import ForbiddenError
from spotter.i18n import Locale

Role = Literal["owner", "admin", "coach", "member"]
STAFF_ROLES: frozenset[Role] = frozenset({"owner", "admin", "coach"})


@dataclass(frozen=True)
class Caller:
    """Everything the rest of Spotter may know about who is asking; ids are ours, not Clerk's."""

    org_id: UUID
    user_id: UUID
    clerk_user_id: str
    clerk_org_id: str
    role: Role
    full_name: str
    org_name: str
    org_timezone: str
    platform_tier: str
    org_type: str
    day_grain_programming: bool
    locale: Locale = "en"
    feature_flags: dict[str, Any] = field(default_factory=dict)

    @property
    def is_staff(self) -> bool:
        return self.role in STAFF_ROLES


async def resolve_caller(db: Database, claims: SessionClaims, locale: Locale) -> Caller:
    """Require an active membership for the token's org and user; reads only, writes nothing."""
    assert claims.clerk_org_id is not None  # TokenVerifier guarantees an active org
    # one statement, no transaction around it: every request starts here
    rows = await db.one_statement(
        "SELECT * FROM spotter_resolve_caller(%s, %s)",
        (claims.clerk_org_id, claims.clerk_user_id),
    )
    row = rows[0] if rows else None
    if row is None:
        raise ForbiddenError("not_a_member", "You are not a member of this organization.")
    if row["membership_status"] != "active":
        raise ForbiddenError("membership_inactive", "Your membership here is not active.")
    return Caller(
        org_id=row["organization_id"],
        user_id=row["user_id"],
        clerk_user_id=claims.clerk_user_id,
        clerk_org_id=claims.clerk_org_id,
        role=row["role"],
        full_name=row["full_name"],
        org_name=row["org_name"],
        org_timezone=row["org_timezone"],
        platform_tier=row["platform_tier"],
        org_type=row["org_type"],
        day_grain_programming=row["day_grain_programming"],
        locale=locale,
        feature_flags=row["feature_flags"],
    )
