"""The buffered reads function, invoked in-process with its Function URL events through Mangum."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest
from mangum import Mangum

from spotter.aws.reads import BufferedHandler
from spotter.config import Settings
from spotter.db import Database, pool
from spotter.http.app import create_app
from tests.support.events import READS_EVENTS, load_event, with_bearer
from tests.support.tokens import TokenFactory
from tests.support.world import Org


class _Context:
    function_name = "spotter-reads"
    aws_request_id = "c6af9ac6-7b61-11e6-9a41-93e8deadbeef"


@pytest.fixture
def pool_calls(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Counts pools opened and closed from here on."""
    calls = {"open": 0, "close": 0}
    real_open, real_close = Database.open, Database.close

    async def counting_open(url: str, *, max_size: int = 10) -> Database:
        calls["open"] += 1
        return await real_open(url, max_size=max_size)

    async def counting_close(self: Database) -> None:
        calls["close"] += 1
        await real_close(self)

    monkeypatch.setattr(Database, "open", staticmethod(counting_open))
    monkeypatch.setattr(Database, "close", counting_close)
    return calls


READS_APP = "spotter-reads-test"


@pytest.fixture
def reads_settings(settings: Settings, clean_db: str) -> Settings:
    # Named, so a test can drop exactly this handler's connections and no other test's.
    return settings.model_copy(update={"database_url": f"{clean_db} application_name={READS_APP}"})


@pytest.fixture
def handler(reads_settings: Settings) -> Iterator[BufferedHandler]:
    reads = BufferedHandler(reads_settings)
    yield reads
    reads.close()


def _invoke(handler: Any, event: dict[str, Any]) -> tuple[int, dict[str, str], Any]:
    response = handler(event, _Context())
    return response["statusCode"], response["headers"], json.loads(response["body"])


def test_usage_event_answers_json_from_postgres(
    handler: BufferedHandler, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    with psycopg.connect(clean_db) as conn:
        conn.execute(
            "INSERT INTO ai_usage_daily (organization_id, user_id, day, cost_usd_micros, turns)"
            " VALUES (%s, %s, %s, 1250000, 1)",
            (org.id, org["coach"].user_id, datetime.now(UTC).date()),
        )
    token = tokens.token(org["coach"].clerk_user_id, org.clerk_org_id)
    status, headers, body = _invoke(handler, with_bearer(load_event("reads-usage"), token))
    assert status == 200
    assert headers["content-type"] == "application/json"
    assert body["spentUsdMicros"] == 1_250_000
    assert headers["x-trace-id"]


def test_conversation_events_read_the_callers_rows(
    handler: BufferedHandler, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    event = load_event("reads-conversation")
    conversation_id = uuid.UUID(event["rawPath"].rsplit("/", 1)[1])
    with psycopg.connect(clean_db) as conn:
        conn.execute(
            "INSERT INTO ai_conversations (id, organization_id, user_id, title) VALUES (%s, %s, %s, %s)",
            (conversation_id, org.id, org["owner"].user_id, "Open gym"),
        )
    token = tokens.token(org["owner"].clerk_user_id, org.clerk_org_id)
    status, _, listing = _invoke(handler, with_bearer(load_event("reads-conversations"), token))
    assert status == 200
    assert [c["id"] for c in listing["conversations"]] == [str(conversation_id)]
    status, _, detail = _invoke(handler, with_bearer(event, token))
    assert status == 200
    assert detail["id"] == str(conversation_id)


@pytest.mark.parametrize("name", READS_EVENTS)
def test_reads_refuse_unauthenticated_events_with_json_401(
    handler: BufferedHandler, name: str
) -> None:
    status, headers, body = _invoke(handler, with_bearer(load_event(name), None))
    assert status == 401
    assert body["code"] == "missing_token"
    assert body["traceId"] == headers["x-trace-id"]


def test_one_pool_per_container_across_invocations(
    handler: BufferedHandler, pool_calls: dict[str, int], tokens: TokenFactory, org: Org
) -> None:
    token = tokens.token(org["admin"].clerk_user_id, org.clerk_org_id)
    for _ in range(3):
        status, _, _ = _invoke(handler, with_bearer(load_event("reads-usage"), token))
        assert status == 200
    assert pool_calls == {"open": 1, "close": 0}


def test_mangum_lifespan_auto_would_open_a_pool_per_invocation(
    reads_settings: Settings, pool_calls: dict[str, int], tokens: TokenFactory, org: Org
) -> None:
    """Why BufferedHandler turns lifespan off: Mangum runs startup and shutdown per event."""
    naive = Mangum(create_app(reads_settings, streaming=False, mcp=False), lifespan="auto")
    token = tokens.token(org["admin"].clerk_user_id, org.clerk_org_id)
    for _ in range(2):
        status, _, _ = _invoke(naive, with_bearer(load_event("reads-usage"), token))
        assert status == 200
    assert pool_calls == {"open": 2, "close": 2}


def test_connections_dropped_while_frozen_are_replaced(
    handler: BufferedHandler,
    tokens: TokenFactory,
    org: Org,
    clean_db: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Between events Lambda freezes the container; a proxy or server may close idle connections
    meanwhile. The pool tests a connection idle longer than a few seconds before handing it out,
    so the next event still succeeds (here every connection counts as idle that long)."""
    monkeypatch.setattr(pool, "IDLE_BEFORE_CHECK_SECONDS", 0.0)
    token = tokens.token(org["admin"].clerk_user_id, org.clerk_org_id)
    event = with_bearer(load_event("reads-usage"), token)
    assert _invoke(handler, event)[0] == 200
    with psycopg.connect(clean_db, autocommit=True) as conn:
        killed = conn.execute(
            "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE application_name = %s) AS t",
            (READS_APP,),
        ).fetchone()
    assert killed is not None and killed[0] >= 1
    assert _invoke(handler, event)[0] == 200
