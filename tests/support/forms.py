"""Forms test helpers: a publishable waiver, an org scope, submissions as the member app writes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from uuid import UUID

import psycopg

from spotter.db import Database
from spotter.db.scope import OrgScope
from spotter.domain import forms
from tests.support.world import Org

TERMS = (
    "I understand that training involves risk of injury and I release the gym, its owners and"
    " coaches from liability for injuries sustained during classes and open gym."
)
WAIVER_FIELDS: list[dict[str, Any]] = [
    {"key": "emergency_contact", "label": "Emergency contact", "type": "short_text",
     "required": True},
    {"key": "injuries", "label": "Any injuries?", "type": "yes_no", "required": True},
    {"key": "signature", "label": "Signature", "type": "signature", "required": True},
]  # fmt: skip
WAIVER_ANSWERS = {"emergency_contact": "Avi 050-5550101", "injuries": False, "signature": "signed"}


@asynccontextmanager
async def scope_of(db: Database, org: Org) -> AsyncIterator[OrgScope]:
    async with db.org_tx(org.id) as conn:
        yield OrgScope(conn, org.id)


def set_org_type(owner_url: str, org: Org, org_type: str) -> None:
    with psycopg.connect(owner_url) as conn:
        conn.execute("UPDATE organizations SET org_type = %s WHERE id = %s", (org_type, org.id))


async def published_waiver(db: Database, org: Org, name: str = "Liability waiver") -> UUID:
    async with scope_of(db, org) as scope:
        form = await forms.create_form(
            scope, kind="waiver", name=name, body=TERMS, fields=WAIVER_FIELDS, required=True
        )
        await forms.publish(scope, form["id"], published_by=None)
    return UUID(str(form["id"]))


async def sign(db: Database, org: Org, form_id: UUID, membership_id: UUID | None) -> UUID:
    assert membership_id is not None
    async with scope_of(db, org) as scope:
        row = await forms.record_submission(scope, form_id, membership_id, WAIVER_ANSWERS)
    return UUID(str(row["id"]))
