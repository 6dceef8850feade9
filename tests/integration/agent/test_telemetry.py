"""Soft terminal errors reach Sentry explicitly, tagged with ids only; breadcrumbs are scrubbed."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from spotter.agent.run_state import MAX_TURNS
from spotter.config import Settings
from spotter.db import Database
from spotter.providers.fake import ScriptedModel, ToolUse, tool_reply
from tests.support.agent import deps_for, run_turn
from tests.support.callers import caller_for
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
