"""The scheduled sweep's Lambda entry point, in process, against the test database."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import psycopg
import pytest

from spotter.config import get_settings
from tests.support.events import load_event
from tests.support.executions import pending_message, statuses
from tests.support.world import Org

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def sweep_function(clean_db: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    monkeypatch.setenv("DATABASE_URL", clean_db)
    monkeypatch.delenv("APP_DATABASE_URL", raising=False)
    get_settings.cache_clear()
    spec = importlib.util.spec_from_file_location("sweep_app", ROOT / "functions/sweep/app.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    module.handler.close()
    get_settings.cache_clear()


def test_the_scheduled_sweep_closes_abandoned_claims_once(
    sweep_function: ModuleType, org: Org, clean_db: str
) -> None:
    message = pending_message(clean_db, org, calls=2)
    with psycopg.connect(clean_db) as conn:
        conn.execute(
            "UPDATE ai_tool_executions SET status = CASE position WHEN 0 THEN 'succeeded'"
            " ELSE 'running' END, claimed_at = now() - interval '3 minutes' WHERE message_id = %s",
            (message.message_id,),
        )
    event = load_event("sweep-scheduled")
    assert sweep_function.handler(event, None) == {
        "orgs": 1,
        "messagesClosed": 1,
        "mcpExpired": 0,
        "holdsCharged": 0,
        "automationEmailsQueued": 0,
        "emailsDelivered": 0,
    }
    assert statuses(clean_db, message.execution_ids) == ["succeeded", "failed"]
    with psycopg.connect(clean_db) as conn:
        turns = conn.execute(
            "SELECT count(*) FROM ai_messages WHERE role = 'tool_result' AND conversation_id = %s",
            (message.conversation_id,),
        ).fetchone()
    assert turns == (1,)
    # a warm invocation reuses the container's pool and finds nothing left to do
    assert sweep_function.handler(event, None) == {
        "orgs": 0,
        "messagesClosed": 0,
        "mcpExpired": 0,
        "holdsCharged": 0,
        "automationEmailsQueued": 0,
        "emailsDelivered": 0,
    }


def test_the_scheduled_sweep_delivers_mail_left_queued_and_never_resends_an_interrupted_one(
    sweep_function: ModuleType, org: Org, clean_db: str
) -> None:
    with psycopg.connect(clean_db) as conn:
        for status, claimed in (("queued", None), ("sending", "now() - interval '10 minutes'")):
            conn.execute(
                "INSERT INTO outbox_messages (organization_id, source, to_address, subject, body,"
                f" status, claimed_at) VALUES (%s, 'test', 'a@example.com', 'S', 'B', %s, {claimed or 'NULL'})",
                (org.id, status),
            )
    event = load_event("sweep-scheduled")
    assert sweep_function.handler(event, None)["emailsDelivered"] == 1
    assert sweep_function.handler(event, None)["emailsDelivered"] == 0
    with psycopg.connect(clean_db) as conn:
        rows = conn.execute("SELECT status FROM outbox_messages ORDER BY status").fetchall()
    assert rows == [("delivered",), ("outcome_unknown",)]
