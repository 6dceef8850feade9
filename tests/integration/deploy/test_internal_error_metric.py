"""The `internal` alarm counts log lines by a CloudWatch metric filter; the app must log what that
filter matches. This pins the filter in template.yaml to the app's actual log format."""

from __future__ import annotations

import io
import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from spotter.config import Settings
from spotter.db import Database
from spotter.http.app import create_app
from spotter.observability import logger

TEMPLATE = Path(__file__).resolve().parents[3] / "template.yaml"
FILTER = """{ ($.message = "http.internal") || ($.code = "internal") }"""


def _matches_filter(line: dict[str, Any]) -> bool:
    return line.get("message") == "http.internal" or line.get("code") == "internal"


@pytest.fixture
def log_output() -> Iterator[io.StringIO]:
    """What the app logs during the test (powertools writes JSON lines to stdout)."""
    handler = logger().logger_handler
    assert isinstance(handler, logging.StreamHandler)
    buffer = io.StringIO()
    previous = handler.setStream(buffer)
    yield buffer
    handler.setStream(previous)


def test_every_api_log_group_uses_the_same_filter() -> None:
    patterns = re.findall(r"FilterPattern: '(.+)'", TEMPLATE.read_text())
    assert patterns == [FILTER] * 8  # send, confirm, pick, undo, chat, mcp, stream, reads


async def test_an_unexpected_error_logs_a_line_the_filter_counts(
    settings: Settings, db: Database, log_output: io.StringIO
) -> None:
    app = create_app(settings, db=db)

    @app.get("/boom")
    async def boom() -> None:
        raise ValueError("kaboom")

    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://spotter.test") as client:
        response = await client.get("/boom")
        healthy = await client.get("/healthz")
    assert response.status_code == 500
    assert response.json()["code"] == "internal"
    assert healthy.status_code == 200
    lines = [json.loads(line) for line in log_output.getvalue().splitlines()]
    counted = [line for line in lines if _matches_filter(line)]
    assert len(counted) == 1, "one internal error, one counted line"
    assert counted[0]["trace_id"] == response.json()["traceId"]
