"""The demo seed's CRM: leads in two pipelines, inbox threads with leads and members, tasks."""

from __future__ import annotations

import psycopg

from spotter.seed.crm import LEADS, TASKS, THREADS
from spotter.seed.demo import seed_demo


def _crm(url: str) -> dict[str, object]:
    with psycopg.connect(url) as conn:
        by_pipeline = conn.execute(
            "SELECT p.name, count(l.id) FROM lead_pipelines p LEFT JOIN leads l ON l.pipeline_id = p.id"
            " GROUP BY p.name ORDER BY p.name"
        ).fetchall()
        threads = conn.execute(
            "SELECT t.subject, t.lead_id IS NOT NULL, t.membership_id IS NOT NULL,"
            " (SELECT count(*) FROM inbox_messages x WHERE x.thread_id = t.id)"
            " FROM inbox_threads t ORDER BY t.subject"
        ).fetchall()
        tasks = conn.execute(
            "SELECT status, count(*) FROM staff_tasks GROUP BY 1 ORDER BY 1"
        ).fetchall()
        default = conn.execute("SELECT name FROM lead_pipelines WHERE is_default").fetchall()
        activity = conn.execute("SELECT count(*) FROM lead_activities").fetchone()
    return {
        "pipelines": by_pipeline,
        "threads": threads,
        "tasks": tasks,
        "default": default,
        "activity": activity,
    }


async def test_seed_crm_once_with_leads_threads_and_tasks(clean_db: str) -> None:
    await seed_demo(clean_db)
    first = _crm(clean_db)
    assert first["pipelines"] == [("Corporate", 2), ("Trials", len(LEADS) - 2)]
    assert first["default"] == [("Trials",)]
    assert first["threads"] == [
        ("Freezing my membership", False, True, 1),
        ("Lost water bottle", False, True, 2),
        ("Team plan for our office", True, False, 1),
        ("Trial class question", True, False, 1),
    ]
    assert len(THREADS) == 4
    assert first["tasks"] == [("done", 1), ("open", len(TASKS) - 1)]
    await seed_demo(clean_db)
    assert _crm(clean_db) == first
