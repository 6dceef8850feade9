"""Triggers keep one search document per program, workout, exercise and active gym member."""

from __future__ import annotations

import uuid

import psycopg

from tests.support.world import Org, add_person


def docs(url: str, org: Org) -> set[tuple[str, str]]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT entity, label FROM search_documents WHERE organization_id = %s", (org.id,)
        ).fetchall()
    return {(r[0], r[1]) for r in rows}


def test_entities_get_documents_when_created(clean_db: str, org: Org) -> None:
    add_person(clean_db, org, "Saar Cohen")
    with psycopg.connect(clean_db) as conn:
        conn.execute(
            "INSERT INTO programs (organization_id, name) VALUES (%s, 'Engine')", (org.id,)
        )
        conn.execute(
            "INSERT INTO exercises (organization_id, name, aliases) VALUES (%s, 'Back Squat', '{BS,סקוואט}')",
            (org.id,),
        )
        conn.execute("INSERT INTO workouts (organization_id, title) VALUES (%s, 'Fran')", (org.id,))
    assert {
        ("program", "Engine"),
        ("exercise", "Back Squat"),
        ("workout", "Fran"),
        ("member", "Saar Cohen"),
    } <= docs(clean_db, org)


def test_only_gym_members_are_indexed_not_staff(clean_db: str, org: Org) -> None:
    # the org fixture has one person of each role
    assert [entity for entity, _ in docs(clean_db, org)] == ["member"]


def test_soft_deleted_and_archived_entities_leave_the_index(clean_db: str, org: Org) -> None:
    with psycopg.connect(clean_db) as conn:
        conn.execute(
            "INSERT INTO programs (organization_id, name) VALUES (%s, 'Engine')", (org.id,)
        )
        conn.execute("INSERT INTO workouts (organization_id, title) VALUES (%s, 'Fran')", (org.id,))
        conn.execute("UPDATE programs SET status = 'archived'")
        conn.execute("UPDATE workouts SET deleted_at = now()")
    assert {entity for entity, _ in docs(clean_db, org)} == {"member"}


def test_renaming_a_user_renames_their_member_document(clean_db: str, org: Org) -> None:
    saar = add_person(clean_db, org, "Saar Cohen")
    with psycopg.connect(clean_db) as conn:
        conn.execute(
            "UPDATE users SET full_name = 'Saar Cohen-Levi' WHERE id = %s", (saar.user_id,)
        )
    assert ("member", "Saar Cohen-Levi") in docs(clean_db, org)


def test_a_changed_text_makes_the_embedding_stale(clean_db: str, org: Org) -> None:
    program_id = uuid.uuid4()
    with psycopg.connect(clean_db) as conn:
        conn.execute(
            "INSERT INTO programs (id, organization_id, name) VALUES (%s, %s, 'Engine')",
            (program_id, org.id),
        )
        conn.execute("UPDATE search_documents SET embedded_hash = content_hash")
        conn.execute(
            "UPDATE programs SET description = 'Aerobic capacity work' WHERE id = %s", (program_id,)
        )
        stale = conn.execute(
            "SELECT embedded_hash IS DISTINCT FROM content_hash FROM search_documents WHERE entity_id = %s",
            (program_id,),
        ).fetchone()
    assert stale == (True,)
