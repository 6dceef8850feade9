"""Issue 26 item 4: migration 0048 rewrites the labels stored before they were plain past
tense, so the admin audit view shows one label per act."""

from __future__ import annotations

import re

import psycopg

from spotter.db.migrate import MIGRATIONS_DIR
from spotter.db.server import LOCAL_APP_PASSWORD, with_login
from spotter.tools.catalog import load_catalog
from tests.support.owner import MIGRATION_OWNER
from tests.support.world import Org

MIGRATION = MIGRATIONS_DIR / "0048_audit_labels_past_tense.sql"


def _renames() -> dict[str, str]:
    pairs = re.findall(r"\('([a-z_.]+)', '([a-z_.]+)'\)", MIGRATION.read_text())
    return dict(pairs)


def test_the_migration_maps_every_retired_label_to_one_the_tools_write() -> None:
    labels = {s.audit.action_label for s in load_catalog().specs.values() if s.audit is not None}
    renames = _renames()
    assert len(renames) == 9
    assert set(renames.values()) <= labels
    assert not set(renames) & labels


def test_stored_labels_are_rewritten_and_nothing_else_changes(clean_db: str, org: Org) -> None:
    with psycopg.connect(clean_db) as conn:
        for old in [*_renames(), "program.created"]:
            conn.execute(
                "INSERT INTO audit_logs (organization_id, actor_clerk_id, action, resource,"
                " resource_id, metadata) VALUES (%s, 'user_x', %s, %s, 'r1', '{\"tool\": \"t\"}')",
                (org.id, old, old.partition(".")[0]),
            )
    # as the migration runs in production: the schema's owner, bound by FORCE ROW LEVEL SECURITY
    with psycopg.connect(with_login(clean_db, MIGRATION_OWNER, LOCAL_APP_PASSWORD)) as owner:
        owner.execute(MIGRATION.read_text())
    with psycopg.connect(clean_db) as conn:
        rows = conn.execute(
            "SELECT action, resource, resource_id, metadata FROM audit_logs ORDER BY action"
        ).fetchall()
    assert sorted(r[0] for r in rows) == sorted([*_renames().values(), "program.created"])
    assert all(r[2] == "r1" and r[3] == {"tool": "t"} for r in rows)
    assert {r[1] for r in rows} == {label.partition(".")[0] for label, *_ in rows}
