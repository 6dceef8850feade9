"""The migration custom resource, invoked with each CloudFormation event; its answer goes to a
local HTTP server standing in for the pre-signed S3 ResponseURL."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import psycopg
import pytest

from spotter.aws.migration import PHYSICAL_RESOURCE_ID, handler
from spotter.db.migrate import available_migrations
from spotter.db.server import LOCAL_APP_PASSWORD, ensure_database, with_login
from tests.support.events import load_event


class _Context:
    log_stream_name = "2026/11/30/[$LATEST]0123456789abcdef"


class _CloudFormation:
    """Records every PUT it receives, as CloudFormation's S3 response bucket would."""

    def __init__(self) -> None:
        self.responses: list[dict[str, Any]] = []
        recorded = self.responses

        class Handler(BaseHTTPRequestHandler):
            def do_PUT(self) -> None:
                length = int(self.headers["content-length"])
                recorded.append(
                    {
                        "path": self.path,
                        "content_type": self.headers.get("content-type", ""),
                        "body": json.loads(self.rfile.read(length)),
                    }
                )
                self.send_response(200)
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = (
            f"http://127.0.0.1:{self.server.server_address[1]}/cfn-response?X-Amz-Signature=abc"
        )


@pytest.fixture
def cloudformation() -> Iterator[_CloudFormation]:
    cfn = _CloudFormation()
    thread = threading.Thread(target=cfn.server.serve_forever, daemon=True)
    thread.start()
    yield cfn
    cfn.server.shutdown()
    cfn.server.server_close()


@pytest.fixture
def empty_db(pg_server_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    url = ensure_database(pg_server_url, f"spotter_cr_{uuid.uuid4().hex[:10]}")
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.delenv("DATABASE_SECRET_ARN", raising=False)
    return url


def _run(name: str, cloudformation: _CloudFormation) -> dict[str, Any]:
    event = load_event(name)
    event["ResponseURL"] = cloudformation.url
    handler(event, _Context())
    assert len(cloudformation.responses) == 1, "exactly one answer per event"
    response = cloudformation.responses.pop()
    assert response["path"] == "/cfn-response?X-Amz-Signature=abc"
    # A pre-signed S3 PUT fails its signature check if a content type is sent.
    assert response["content_type"] == ""
    body: dict[str, Any] = response["body"]
    assert body["StackId"] == event["StackId"]
    assert body["RequestId"] == event["RequestId"]
    assert body["LogicalResourceId"] == "SchemaMigration"
    return body


def _applied_versions(url: str) -> list[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT version FROM schema_migrations ORDER BY version").fetchall()
    return [r[0] for r in rows]


def test_create_migrates_and_update_is_idempotent(
    empty_db: str, cloudformation: _CloudFormation
) -> None:
    every = [m.version for m in available_migrations()]
    created = _run("migrate-create", cloudformation)
    assert created["Status"] == "SUCCESS"
    assert created["PhysicalResourceId"] == PHYSICAL_RESOURCE_ID
    assert created["Data"] == {"Applied": ",".join(every)}
    assert _applied_versions(empty_db) == every

    updated = _run("migrate-update", cloudformation)
    assert updated["Status"] == "SUCCESS"
    assert updated["PhysicalResourceId"] == PHYSICAL_RESOURCE_ID, "same id: no replacement"
    assert updated["Data"] == {"Applied": "none"}
    assert _applied_versions(empty_db) == every


def test_delete_succeeds_without_touching_the_database(
    cloudformation: _CloudFormation, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A URL nothing listens on: Delete must not even try to connect.
    monkeypatch.setenv("DATABASE_URL", "postgresql://nobody:x@127.0.0.1:9/none")
    deleted = _run("migrate-delete", cloudformation)
    assert deleted["Status"] == "SUCCESS"
    assert deleted["PhysicalResourceId"] == PHYSICAL_RESOURCE_ID


def test_failure_is_reported_to_cloudformation_without_the_password(
    cloudformation: _CloudFormation, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql://owner:hunter2-secret@127.0.0.1:9/spotter")
    monkeypatch.delenv("DATABASE_SECRET_ARN", raising=False)
    failed = _run("migrate-create", cloudformation)
    assert failed["Status"] == "FAILED"
    assert failed["Reason"].startswith("OperationalError")
    assert _Context.log_stream_name in failed["Reason"]
    assert "hunter2-secret" not in json.dumps(failed)


def _scram_matches(verifier: str, password: str) -> bool:
    """Whether a stored SCRAM-SHA-256 verifier is `password`'s (RFC 5802's StoredKey)."""
    method, rest = verifier.split("$", 1)
    iterations_salt, keys = rest.split("$")
    iterations, salt = iterations_salt.split(":")
    stored_key = keys.split(":")[0]
    salted = hashlib.pbkdf2_hmac(
        "sha256", password.encode(), base64.b64decode(salt), int(iterations)
    )
    client_key = hmac.new(salted, b"Client Key", "sha256").digest()
    return (
        method == "SCRAM-SHA-256"
        and base64.b64encode(hashlib.sha256(client_key).digest()).decode() == stored_key
    )


def test_the_app_role_gets_its_secrets_password_never_sent_in_the_clear(
    empty_db: str, cloudformation: _CloudFormation, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("APP_DATABASE_URL", with_login(empty_db, "spotter_app", "from-the-secret"))
    try:
        assert _run("migrate-create", cloudformation)["Status"] == "SUCCESS"
        with psycopg.connect(empty_db) as conn:
            row = conn.execute(
                "SELECT rolcanlogin, rolpassword FROM pg_authid WHERE rolname = 'spotter_app'"
            ).fetchone()
        assert row is not None and row[0], "a login role"
        assert _scram_matches(row[1], "from-the-secret")
        assert not _scram_matches(row[1], LOCAL_APP_PASSWORD)
    finally:
        with psycopg.connect(empty_db, autocommit=True) as conn:
            conn.execute(f"ALTER ROLE spotter_app PASSWORD '{LOCAL_APP_PASSWORD}'")
