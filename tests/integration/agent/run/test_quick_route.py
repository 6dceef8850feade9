"""T1 quick route: a Haiku router answers, runs one quick action, or declines to the loop."""

from __future__ import annotations

import json

from spotter.agent import events as ev
from spotter.agent.cost.model_policy import FAST_MODEL
from spotter.agent.run.quick_lane import QUICK_ROUTE_MAX_CHARS, router_system
from spotter.db import Database
from spotter.providers.fake import (
    FakeUsage,
    ProviderError,
    Reply,
    ScriptedModel,
    Text,
    ToolUse,
    tool_reply,
)
from spotter.tools.registry import registry_for_caller
from tests.support.agent import (
    conversation_id_of,
    deps_for,
    kinds,
    run_turn,
    stored_executions,
    stored_messages,
)
from tests.support.callers import caller_for
from tests.support.world import Org

ROUTER_USAGE = FakeUsage(input_tokens=200, output_tokens=5, cache_read_input_tokens=5_000)
ANSWER_USAGE = FakeUsage(input_tokens=300, output_tokens=40)
# Haiku 4.5 per 1M: $1 in, $5 out, $0.10 cache read
ROUTER_COST = 200 * 1 + 5 * 5 + 5_000 * 0.1
ANSWER_COST = 300 * 1 + 40 * 5


def model_with(router: Reply | ProviderError, *answers: Reply) -> ScriptedModel:
    model = ScriptedModel()
    model.lanes["quick_route"] = [router]
    model.lanes["quick_answer"] = list(answers)
    return model


async def test_a_greeting_is_answered_by_the_quick_answer_role_without_the_loop(
    db: Database, org: Org, other_org: Org, clean_db: str
) -> None:
    model = model_with(
        Reply([Text("ANSWER")], usage=ROUTER_USAGE),
        Reply([Text("Hi! Ask me about your schedule.")], usage=ANSWER_USAGE),
    )
    owner = await caller_for(db, org, "owner")
    events = await run_turn(deps_for(db, model), owner, "hi spotter!")
    assert kinds(events) == ["conversation_started", "text_delta", "message_done", "done"]
    assert model.requests == []  # the loop never ran
    done = events[-1]
    assert isinstance(done, ev.Done)
    assert done.usage.input_tokens == 500 and done.usage.cache_read_tokens == 5_000
    assert done.usage.cost_usd_micros == ROUTER_COST + ANSWER_COST  # priced at Haiku's rates
    rows = stored_messages(clean_db, conversation_id_of(events))
    assert [r["role"] for r in rows] == ["user", "assistant"]
    assert rows[1]["content"] == [{"type": "text", "text": "Hi! Ask me about your schedule."}]
    assert rows[1]["model"] == FAST_MODEL and rows[1]["usage"] is None  # never an anchor
    [router] = model.lane_requests["quick_route"]
    assert router["model"] == FAST_MODEL
    assert router["system"] == [
        {
            "type": "text",
            "text": router_system(registry_for_caller(owner)),
            "cache_control": {"type": "ephemeral", "ttl": "5m"},
        }
    ]
    assert router["tools"] == json.loads(json.dumps(registry_for_caller(owner).quick_definitions))
    user_text = router["messages"][0]["content"][0]["text"]
    assert "Current date & time in org timezone" in user_text
    assert user_text.endswith("<message>\nhi spotter!\n</message>")
    # the cached prefix (tools + system) holds no org or user data: another org's is identical
    other = model_with(Reply([Text("LOOP")]))
    other.script = [Reply([Text("ok")])]
    await run_turn(deps_for(db, other), await caller_for(db, other_org, "owner"), "hi spotter!")
    [theirs] = other.lane_requests["quick_route"]
    assert (theirs["tools"], theirs["system"]) == (router["tools"], router["system"])


async def test_one_quick_action_runs_through_the_tool_runner_and_is_phrased(
    db: Database, org: Org, clean_db: str
) -> None:
    router = tool_reply(ToolUse("read", {"action": "coaches", "args": {}}), usage=ROUTER_USAGE)
    model = model_with(router, Reply([Text("Your coach is Olga.")], usage=ANSWER_USAGE))
    model.script = [Reply([Text("Later.")])]
    owner = await caller_for(db, org, "owner")
    deps = deps_for(db, model)
    events = await run_turn(deps, owner, "who are our coaches?")
    assert kinds(events) == [
        "conversation_started", "message_done", "tool_started", "tool_completed", "text_delta",
        "message_done", "done",
    ]  # fmt: skip
    cid = conversation_id_of(events)
    rows = stored_messages(clean_db, cid)
    assert [r["role"] for r in rows] == ["user", "assistant", "tool_result", "assistant"]
    [execution] = stored_executions(clean_db, cid)
    assert (execution["router"], execution["action"], execution["status"]) == (
        "read", "coaches", "succeeded"
    )  # fmt: skip
    [answer] = model.lane_requests["quick_answer"]
    assert "<tool_result>" in answer["messages"][0]["content"][0]["text"]
    # the next run's loop replays the quick lane's turns as ordinary, valid history
    long_message = "please plan next week in detail " * 10
    await run_turn(deps, owner, long_message, conversation_id=cid)
    replayed = model.requests[0]["messages"]
    assert [m["role"] for m in replayed] == ["user", "assistant", "user", "assistant", "user"]
    assert len(model.lane_requests["quick_route"]) == 1  # a long message skips the router


async def test_declines_and_non_quick_tools_go_to_the_loop_with_the_router_billed(
    db: Database, org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, org, "owner")
    for router in (
        Reply([Text("LOOP")], usage=ROUTER_USAGE),
        # not a quick action: the router may not run it, whatever it asks
        tool_reply(
            ToolUse("programs", {"action": "update", "args": {"programId": "x"}}),
            usage=ROUTER_USAGE,
        ),
    ):
        model = model_with(router)
        model.script = [Reply([Text("The loop answers.")])]
        events = await run_turn(deps_for(db, model), owner, "rename the program")
        assert kinds(events) == ["conversation_started", "text_delta", "message_done", "done"]
        done = events[-1]
        assert isinstance(done, ev.Done) and done.usage.input_tokens == 200 + 100
        rows = stored_messages(clean_db, conversation_id_of(events))
        assert [r["role"] for r in rows] == ["user", "assistant"]
        assert stored_executions(clean_db, conversation_id_of(events)) == []


async def test_a_failed_quick_action_hands_its_call_to_the_loop(
    db: Database, org: Org, clean_db: str
) -> None:
    missing = "00000000-0000-4000-8000-000000000000"
    router = tool_reply(
        ToolUse("read", {"action": "member", "args": {"membershipId": missing}}),
        usage=ROUTER_USAGE,
    )
    model = model_with(router)
    model.script = [Reply([Text("I could not find that person.")])]
    owner = await caller_for(db, org, "owner")
    events = await run_turn(deps_for(db, model), owner, "show member 0000")
    assert "tool_completed" in kinds(events) and kinds(events)[-1] == "done"
    sent = model.requests[0]["messages"]
    assert sent[-1]["content"][0]["is_error"] is True  # the loop sees the failed call
    assert "quick_answer" not in model.lane_requests


async def test_a_router_failure_or_a_long_message_means_the_loop(
    db: Database, org: Org, clean_db: str
) -> None:
    model = model_with(ProviderError(529, "overloaded_error"))
    model.script = [Reply([Text("Loop.")]), Reply([Text("Loop again.")])]
    owner = await caller_for(db, org, "owner")
    events = await run_turn(deps_for(db, model), owner, "hello")
    assert kinds(events)[-2:] == ["message_done", "done"] and len(model.requests) == 1
    await run_turn(deps_for(db, model), owner, "x" * (QUICK_ROUTE_MAX_CHARS + 1))
    assert len(model.lane_requests["quick_route"]) == 1 and len(model.requests) == 2


async def test_a_send_opened_from_an_insight_card_goes_to_the_loop_without_the_router(
    db: Database, org: Org, clean_db: str
) -> None:
    # the playbook asks for reads, an explanation and drafted actions: no one-call lane's work
    model = model_with(Reply([Text("ANSWER")], usage=ROUTER_USAGE))
    model.script = [Reply([Text("Three members are at risk.")])]
    owner = await caller_for(db, org, "owner")
    events = await run_turn(
        deps_for(db, model), owner, "who is at risk?", selection={"insight": "members_at_risk"}
    )
    assert kinds(events)[-2:] == ["message_done", "done"]
    assert model.lane_requests.get("quick_route", []) == [] and len(model.requests) == 1
    # the same short message without the card is the router's to take
    await run_turn(deps_for(db, model), owner, "who is at risk?")
    assert len(model.lane_requests["quick_route"]) == 1
