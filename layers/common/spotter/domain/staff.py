"""Staff as the CRM refers to them: tools speak membership ids, CRM rows store user ids."""

from __future__ import annotations

from uuid import UUID

from spotter.db.scope import OrgScope
from spotter.domain.errors import not_found
from spotter.domain.people import STAFF_ROLES


async def staff_user_id(scope: OrgScope, membership_id: UUID) -> UUID:
    """The user behind an active staff membership of this org; anyone else is `not_found`."""
    cur = await scope.conn.execute(
        "SELECT user_id FROM org_memberships WHERE id = %s AND organization_id = %s"
        " AND status = 'active' AND role = ANY(%s)",
        (membership_id, scope.org_id, list(STAFF_ROLES)),
    )
    row = await cur.fetchone()
    if row is None:
        raise not_found("staff member")
    user_id: UUID = row["user_id"]
    return user_id
