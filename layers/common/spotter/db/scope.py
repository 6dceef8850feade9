"""One organization's view of the database: the connection and the org every query is scoped to.

Domain functions take an `OrgScope` first instead of `(conn, org_id)`, so the tenant can never be
passed apart from the connection whose transaction set `app.org_id`.
"""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from spotter.db.pool import Conn


@dataclass(frozen=True, slots=True)
class OrgScope:
    conn: Conn
    org_id: UUID
