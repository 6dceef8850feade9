"""Soft terminal errors reach Sentry explicitly, tagged with ids only; breadcrumbs are scrubbed."""

from __future__ import annotations

import io
import json
import logging
import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import httpx2
import pytest

from spotter.agent.run import MAX_TURNS, resolve
from spotter.config import Settings
from spotter.db import Database
from spotter.observability import logger
from spotter.providers.fake import Reply, ScriptedModel, Text, ToolUse, tool_reply
from tests.support.agent import deps_for, run_turn
from tests.support.callers import caller_for
from tests.support.hitl import add_program, archive, suspend
from tests.support.world import Org


class FakeSentry(types.ModuleType):
    def __init__(self) -> None:
        super().__init__("sentry_sdk")
        self.inits: list[dict[str, Any]] = []
        self.breadcrumbs: list[dict[str, Any]] = []
        self.messages: list[tuple[str, dict[str, str]]] = []
        self._tags: dict[str, str] = {}

    def is_initialized(self) -> bool:
        return bool(self.inits)

    def init(self, **kw: Any) -> None:
        self.inits.append(kw)

    def add_breadcrumb(self, **kw: Any) -> None:
        self.breadcrumbs.append(kw)

    @contextmanager
    def new_scope(self) -> Iterator[Any]:
        self._tags = {}
        yield types.SimpleNamespace(set_tag=self._tags.__setitem__)

    def capture_message(self, message: str, level: str) -> None:
        self.messages.append((message, dict(self._tags)))


async def test_max_turns_is_reported_to_sentry_with_ids_only(
    db: Database, org: Org, monkeypatch: pytest.MonkeyPatch
) -> None:
    sentry = FakeSentry()
    monkeypatch.setitem(sys.modules, "sentry_sdk", sentry)
    secret = "my-very-private-words"
    calls = [
        ToolUse("programs", {"action": "list", "args": {"query": secret}}) for _ in range(MAX_TURNS)
    ]
    model = ScriptedModel([tool_reply(call) for call in calls])
    settings = Settings(environment="test", sentry_dsn="https://key@sentry.test/1")
    events = await run_turn(
        deps_for(db, model, settings=settings), await caller_for(db, org, "owner"), secret
    )
    assert events[-2].type == "error"
    assert sentry.inits[0]["include_local_variables"] is False
    [(message, tags)] = sentry.messages
    assert message == "agent max_turns_reached"
    assert tags["agent.code"] == "max_turns_reached"
    assert tags["agent.org_id"] == str(org.id) and tags["agent.turn_count"] == str(MAX_TURNS)
    assert tags["agent.trace_id"] == events[-2].trace_id  # type: ignore[union-attr]
    assert {"agent.conversation_id", "agent.model"} <= set(tags)
    assert {b["message"] for b in sentry.breadcrumbs} >= {
        "agent.tool.executed",
        "agent.turn.finished",
    }
    assert secret not in repr(sentry.breadcrumbs) + repr(sentry.messages)


async def test_without_a_dsn_sentry_is_never_imported(
    db: Database, org: Org, monkeypatch: pytest.MonkeyPatch
) -> None:
    sentry = FakeSentry()
    monkeypatch.setitem(sys.modules, "sentry_sdk", sentry)
    model = ScriptedModel(
        [tool_reply(ToolUse("programs", {"action": "list", "args": {}})) for _ in range(MAX_TURNS)]
    )
    await run_turn(deps_for(db, model), await caller_for(db, org, "owner"), "hi")
    assert sentry.inits == [] and sentry.messages == [] and sentry.breadcrumbs == []


def _posthog(sent: list[dict[str, Any]], status: int = 200) -> httpx2.MockTransport:
    def handle(request: httpx2.Request) -> httpx2.Response:
        sent.append({"url": str(request.url), "body": json.loads(request.content)})
        return httpx2.Response(status, json={"status": 1})

    return httpx2.MockTransport(handle)


async def test_production_sends_scrubbed_events_to_posthog_after_done(
    db: Database, org: Org
) -> None:
    sent: list[dict[str, Any]] = []
    secret = "my-very-private-words"
    model = ScriptedModel(
        [
            tool_reply(ToolUse("programs", {"action": "list", "args": {"query": secret}})),
            Reply([Text(secret)]),
        ]
    )
    settings = Settings(
        environment="production", posthog_api_key="phc_test", posthog_host="https://ph.test"
    )
    deps = replace(deps_for(db, model, settings=settings), analytics_transport=_posthog(sent))
    owner = await caller_for(db, org, "owner")
    events = await run_turn(deps, owner, secret)
    assert events[-1].type == "done"
    [request] = sent
    assert request["url"] == "https://ph.test/batch/"
    assert request["body"]["api_key"] == "phc_test"
    batch = request["body"]["batch"]
    assert [e["event"] for e in batch] == ["agent.tool.executed", "agent.turn.finished"]
    assert {e["distinct_id"] for e in batch} == {str(owner.user_id)}
    assert batch[1]["properties"]["cost_usd_micros"] == events[-1].usage.cost_usd_micros  # type: ignore[union-attr]
    assert secret not in json.dumps(request)


async def test_posthog_is_quiet_outside_production_and_its_failures_never_break_a_run(
    db: Database, org: Org
) -> None:
    sent: list[dict[str, Any]] = []
    owner = await caller_for(db, org, "owner")
    dev = Settings(environment="dev", posthog_api_key="phc_test")
    model = ScriptedModel([Reply([Text("a")]), Reply([Text("b")])])
    await run_turn(
        replace(deps_for(db, model, settings=dev), analytics_transport=_posthog(sent)), owner
    )
    assert sent == []
    prod = Settings(environment="production", posthog_api_key="phc_test")
    failing = replace(deps_for(db, model, settings=prod), analytics_transport=_posthog(sent, 500))
    events = await run_turn(failing, owner)
    assert events[-1].type == "done" and len(sent) == 1


async def test_a_refused_resolution_is_logged_with_its_code_and_never_reaches_sentry(
    db: Database, org: Org, clean_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    sentry = FakeSentry()
    monkeypatch.setitem(sys.modules, "sentry_sdk", sentry)
    owner = await caller_for(db, org, "owner")
    program = add_program(clean_db, org, "A")
    model = ScriptedModel([])
    conversation, _ = await suspend(db, owner, model, archive(program, "t1"))
    settings = Settings(environment="test", sentry_dsn="https://key@sentry.test/1")
    someone_else = await caller_for(db, org, "admin")  # the call is the owner's, not theirs
    handler = logger().registered_handler
    assert isinstance(handler, logging.StreamHandler)
    lines = io.StringIO()
    previous = handler.setStream(lines)
    try:
        stream = resolve.confirm(
            deps_for(db, model, settings=settings), someone_else, conversation, "t1", True
        )
        events = [event async for event in stream]
    finally:
        handler.setStream(previous)
    assert [e.code for e in events if e.type == "error"] == ["not_found"]  # type: ignore[union-attr]
    records = [json.loads(line) for line in lines.getvalue().splitlines() if line.strip()]
    assert not [r for r in records if r["level"] == "ERROR"], "a refusal is not a server fault"
    [refused] = [r for r in records if r["message"] == "agent.request_refused"]
    assert refused["code"] == "not_found" and refused["level"] == "INFO"
    assert not sentry.messages
