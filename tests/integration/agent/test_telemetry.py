"""Soft terminal errors and thrown failures reach Sentry (the real sentry-sdk, its envelopes kept
by a transport in the test: no network) with the spec's tags — `agent.endpoint`, `agent.code`,
`agent.trace_id`, `agent.org_id` and the run's ids — and nothing a person wrote."""

from __future__ import annotations

import io
import json
import logging
import sys
from dataclasses import replace
from typing import Any

import httpx2
import pytest
import sentry_sdk

from spotter.agent import events as ev
from spotter.agent.run import MAX_TURNS, Decision, resolve
from spotter.agent.telemetry import AgentTelemetry
from spotter.config import Settings
from spotter.db import Database
from spotter.observability import logger
from spotter.providers.fake import Reply, ScriptedModel, Text, ToolUse, tool_reply
from tests.support.agent import conversation_id_of, deps_for, run_turn
from tests.support.callers import caller_for
from tests.support.hitl import add_program, archive, suspend
from tests.support.sentry import fresh_sentry
from tests.support.world import Org

SENTRY = Settings(environment="test", sentry_dsn="https://key@sentry.test/1")
SECRET = "my-very-private-words"


def _tags(event: dict[str, Any]) -> dict[str, str]:
    tags = event["tags"]
    return dict(tags) if isinstance(tags, dict) else {k: v for k, v in tags}


BREAK = "(break)"


class BrokenStream(ScriptedModel):
    """A provider stream that breaks the protocol where a reply says BREAK: a text delta with
    no text, for a block that was started — our reducer fails, a fault of ours to look at."""

    def events(self, reply: Reply, body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        out = super().events(reply, body)
        for _, data in out:
            if data.get("delta", {}).get("text") == BREAK:
                data["delta"] = {"type": "text_delta", "txt": SECRET}
        return out


async def test_max_turns_is_reported_to_sentry_with_the_specs_tags(db: Database, org: Org) -> None:
    calls = [
        ToolUse("programs", {"action": "list", "args": {"query": SECRET}}) for _ in range(MAX_TURNS)
    ]
    model = ScriptedModel([tool_reply(call) for call in calls])
    with fresh_sentry() as sentry:
        deps = replace(deps_for(db, model, settings=SENTRY), sentry_transport=sentry)
        events = await run_turn(deps, await caller_for(db, org, "owner"), SECRET)
        options = sentry_sdk.get_client().options
    assert events[-2].type == "error"
    assert options["include_local_variables"] is False and not options["send_default_pii"]
    assert options["default_integrations"] is False  # no logging or framework hooks
    [event] = sentry.events
    assert (event["message"], event["level"]) == ("agent max_turns_reached", "warning")
    tags = _tags(event)
    assert tags["agent.endpoint"] == "send"
    assert tags["agent.code"] == "max_turns_reached"
    assert tags["agent.org_id"] == str(org.id) and tags["agent.turn_count"] == str(MAX_TURNS)
    assert tags["agent.trace_id"] == events[-2].trace_id  # type: ignore[union-attr]
    assert {"agent.conversation_id", "agent.model", "agent.run_id"} <= set(tags)
    crumbs = [b["message"] for b in event["breadcrumbs"]["values"]]
    assert crumbs[-2:] == ["agent.tool.executed", "agent.terminal_error"]
    assert SECRET not in sentry.raw()


async def test_a_thrown_failure_carries_the_endpoint_and_org_id(db: Database, org: Org) -> None:
    """Issue 26 item 7: a fault has the same tags as a soft error, org id included."""
    model = BrokenStream([Reply([Text(BREAK)])])
    owner = await caller_for(db, org, "owner")
    with fresh_sentry() as sentry:
        deps = replace(deps_for(db, model, settings=SENTRY), sentry_transport=sentry)
        events = await run_turn(deps, owner, SECRET)
    error = events[-2]
    assert isinstance(error, ev.Error) and error.code == "internal"
    [event] = sentry.events
    tags = _tags(event)
    assert tags["agent.endpoint"] == "send"
    assert (tags["agent.code"], tags["agent.org_id"]) == ("internal", str(org.id))
    assert tags["agent.trace_id"] == error.trace_id
    assert tags["agent.conversation_id"] == conversation_id_of(events)
    [exception] = event["exception"]["values"]
    assert exception["type"] == "KeyError" and exception["value"] == ""
    assert SECRET not in sentry.raw()


async def test_a_fault_while_resolving_is_tagged_with_that_endpoint(
    db: Database, org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, org, "owner")
    program = add_program(clean_db, org, "A")
    model = BrokenStream([])
    conversation, _ = await suspend(db, owner, model, archive(program, "t1"))
    model.script.append(Reply([Text(BREAK)]))  # the resumed call's stream breaks
    with fresh_sentry() as sentry:
        deps = replace(deps_for(db, model, settings=SENTRY), sentry_transport=sentry)
        events = [e async for e in resolve.confirm(deps, owner, conversation, "t1", True)]
        batch = [
            e
            async for e in resolve.confirm_batch(deps, owner, conversation, [Decision("t1", True)])
        ]
    assert [e.code for e in events if isinstance(e, ev.Error)] == ["internal"]
    assert [e.code for e in batch if isinstance(e, ev.Error)] == ["tool_already_resolved"]
    [event] = sentry.events  # the refused batch is not a fault: nothing sent
    assert _tags(event)["agent.endpoint"] == "confirm"
    assert _tags(event)["agent.org_id"] == str(org.id)


def test_each_event_carries_its_own_runs_breadcrumbs_and_no_exception_message() -> None:
    with fresh_sentry() as sentry:
        first = AgentTelemetry(SENTRY, endpoint="send", sentry_transport=sentry)
        second = AgentTelemetry(SENTRY, endpoint="pick", sentry_transport=sentry)
        first.emit("agent.tool.executed", router="programs", input={"query": SECRET})
        second.emit("agent.side_call", role="spotterTitle")
        try:
            raise ValueError(f"duplicate key: ({SECRET})")
        except ValueError as exc:
            second.failure(exc, "internal", org_id="org-2")
        first.terminal_error("max_turns_reached", org_id="org-1")
    failure, soft = sentry.events
    assert [b["message"] for b in failure["breadcrumbs"]["values"]] == [
        "agent.side_call",
        "agent.turn_failed",
    ]
    assert [b["message"] for b in soft["breadcrumbs"]["values"]] == [
        "agent.tool.executed",
        "agent.terminal_error",
    ]
    assert (_tags(failure)["agent.endpoint"], _tags(soft)["agent.endpoint"]) == ("pick", "send")
    assert failure["exception"]["values"][0]["value"] == ""
    assert SECRET not in sentry.raw()


async def test_without_a_dsn_sentry_is_never_imported(
    db: Database, org: Org, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "sentry_sdk", None)  # importing it would raise
    model = ScriptedModel(
        [tool_reply(ToolUse("programs", {"action": "list", "args": {}})) for _ in range(MAX_TURNS)]
    )
    events = await run_turn(deps_for(db, model), await caller_for(db, org, "owner"), "hi")
    assert [e.code for e in events if isinstance(e, ev.Error)] == ["max_turns_reached"]


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
    db: Database, org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, org, "owner")
    program = add_program(clean_db, org, "A")
    model = ScriptedModel([])
    conversation, _ = await suspend(db, owner, model, archive(program, "t1"))
    someone_else = await caller_for(db, org, "admin")  # the call is the owner's, not theirs
    handler = logger().registered_handler
    assert isinstance(handler, logging.StreamHandler)
    lines = io.StringIO()
    previous = handler.setStream(lines)
    try:
        with fresh_sentry() as sentry:
            deps = replace(deps_for(db, model, settings=SENTRY), sentry_transport=sentry)
            stream = resolve.confirm(deps, someone_else, conversation, "t1", True)
            events = [event async for event in stream]
    finally:
        handler.setStream(previous)
    assert [e.code for e in events if e.type == "error"] == ["not_found"]  # type: ignore[union-attr]
    records = [json.loads(line) for line in lines.getvalue().splitlines() if line.strip()]
    assert not [r for r in records if r["level"] == "ERROR"], "a refusal is not a server fault"
    [refused] = [r for r in records if r["message"] == "agent.request_refused"]
    assert refused["code"] == "not_found" and refused["level"] == "INFO"
    assert sentry.envelopes == []
