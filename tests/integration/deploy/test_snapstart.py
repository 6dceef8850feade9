"""SnapStart: the hooks each function registers, run in-process around a simulated snapshot
(tests/integration/deploy/snapstart_copies.py): nothing is connected before the snapshot, and
two instances restored from one snapshot open their own pools and generate different ids."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from psycopg.conninfo import make_conninfo

from spotter.aws.snapstart import LifecycleApp
from tests.support.tokens import TEST_ISSUER, TokenFactory

PROBE = Path(__file__).with_name("snapstart_copies.py")
ROOT = Path(__file__).resolve().parents[3]


def _copies(kind: str, url: str, tokens: TokenFactory, **extra: str) -> dict[str, Any]:
    name = f"snapstart-{uuid.uuid4().hex[:12]}"
    env = {
        **{k: v for k, v in os.environ.items() if not k.endswith("_SECRET_ARN")},
        "DATABASE_URL": make_conninfo(url, application_name=name),
        "PROBE_URL": url,
        "PROBE_APPLICATION_NAME": name,
        "ENVIRONMENT": "test",
        "CLERK_JWT_KEY": tokens.public_pem,
        "CLERK_ISSUER": TEST_ISSUER,
        "PYTHONPATH": str(ROOT),
        **extra,
    }
    result = subprocess.run(
        [sys.executable, str(PROBE), kind],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    report: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return report


def _assert_restored_apart(report: dict[str, Any]) -> None:
    assert report["snapshot"] == {"pool": False, "connections": 0}
    first, second = report["restored"]
    assert first["pool"] and second["pool"]
    assert first["connections"] >= 1
    assert second["connections"] >= 1
    assert first["uuid"] != second["uuid"]
    # `random` was cloned into both: only the after-restore reseed sets them apart
    assert first["random"] != second["random"]


@pytest.mark.parametrize("function", ["reads", "sweep"])
def test_plain_handlers_connect_only_after_restore_and_restored_copies_differ(
    function: str, owner_url: str, tokens: TokenFactory
) -> None:
    _assert_restored_apart(_copies(function, owner_url, tokens))


@pytest.mark.parametrize("app", ["streaming", "mcp"])
def test_web_adapter_apps_connect_only_after_restore_and_restored_copies_differ(
    app: str, owner_url: str, tokens: TokenFactory
) -> None:
    report = _copies(
        app,
        owner_url,
        tokens,
        AWS_LAMBDA_INITIALIZATION_TYPE="snap-start",
        AWS_LWA_SNAPSTART_BEFORE_CHECKPOINT_PATH="/_snapstart/before",
        AWS_LWA_SNAPSTART_AFTER_RESTORE_PATH="/_snapstart/after",
    )
    _assert_restored_apart(report)


async def _post(app: Any, path: str) -> int:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app({"type": "http", "method": "POST", "path": path, "headers": []}, receive, send)
    return int(sent[0]["status"])


async def test_the_hook_paths_answer_only_the_adapters_one_call_each_in_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AWS_LWA_SNAPSTART_BEFORE_CHECKPOINT_PATH", "/_snapstart/before")
    monkeypatch.setenv("AWS_LWA_SNAPSTART_AFTER_RESTORE_PATH", "/_snapstart/after")
    warmed: list[bool] = []
    app = LifecycleApp(FastAPI(), warm=lambda: warmed.append(True))
    assert await _post(app, "/_snapstart/after") == 404  # nothing to restore yet
    assert await _post(app, "/_snapstart/before") == 200
    assert await _post(app, "/_snapstart/before") == 404  # a second snapshot is no one's call
    assert warmed == [True]
    assert app.phase == "snapshot"
