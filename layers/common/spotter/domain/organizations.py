"""The caller's organization: its settings as the gym sees them."""

from __future__ import annotations

from typing import Any

from spotter.db.scope import OrgScope
from spotter.domain.errors import DomainError


async def get_organization(scope: OrgScope) -> dict[str, Any]:
    cur = await scope.conn.execute(
        "SELECT name, timezone, default_locale, platform_tier, org_type, day_grain_programming,"
        " feature_flags FROM organizations WHERE id = %s",
        (scope.org_id,),
    )
    row = await cur.fetchone()
    if row is None:
        raise DomainError("not_found", "No such organization.")
    return row
