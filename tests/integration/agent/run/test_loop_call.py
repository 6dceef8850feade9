"""Issue 26 item 10: the loop call is chosen once per run, with the history it replays — the
org's override, the setting, the tier, ours; a resumed run continues on the model that wrote
the turn it resumes (Sonnet 4.5: 8,192 output tokens with a fixed thinking budget)."""

from __future__ import annotations

import uuid

import psycopg

from spotter.agent import events as ev
from spotter.agent.cost.model_policy import LOOP_MAX_TOKENS, LOOP_MODEL
from spotter.agent.run import resolve as resolution
from spotter.config import Settings
from spotter.db import Database
from spotter.providers.fake import Reply, ScriptedModel, Text, Thinking, ToolUse, tool_reply
from tests.support.agent import conversation_id_of, deps_for, run_turn
from tests.support.callers import caller_for
from tests.support.hitl import add_program, archive, collect, of_type
from tests.support.world import Org

SONNET_4_5 = "claude-sonnet-4-5-20250929"


def _override(url: str, org: Org, model: str | None) -> None:
    with psycopg.connect(url) as conn:
        conn.execute("UPDATE organizations SET ai_loop_model = %s WHERE id = %s", (model, org.id))


def _thinking_blocks(body: dict[str, object]) -> list[dict[str, object]]:
    messages = body["messages"]
    assert isinstance(messages, list)
    return [
        b for m in messages for b in m["content"] if b["type"] in ("thinking", "redacted_thinking")
    ]


async def test_the_loop_call_a_run_resumed_on_sonnet_4_5_caps_output_at_8192(
    db: Database, org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, org, "owner")
    program = add_program(clean_db, org, "Old")
    # the suspended turn was written (and its thinking signed) by Sonnet 4.5
    suspended_by_4_5 = Reply(
        [Thinking("archive it"), archive(program, "t_archive")], "tool_use", model=SONNET_4_5
    )
    model = ScriptedModel([suspended_by_4_5, Reply([Text("Archived.")]), Reply([Text("Hi.")])])
    deps = deps_for(db, model)
    events = await run_turn(deps, owner, "archive Old")
    cid = uuid.UUID(conversation_id_of(events))
    assert of_type(events, ev.ConfirmationPending)

    resumed = await collect(resolution.confirm(deps, owner, cid, "t_archive", True))
    assert not of_type(resumed, ev.Error)
    first, after_confirm = model.requests[:2]
    assert (first["model"], first["max_tokens"]) == (LOOP_MODEL, LOOP_MAX_TOKENS)
    # the tool-use turn continues on the model that signed its thinking, with that model's call
    assert (after_confirm["model"], after_confirm["max_tokens"]) == (SONNET_4_5, 8_192)
    assert after_confirm["thinking"] == {"type": "enabled", "budget_tokens": 4_096}
    assert [b["thinking"] for b in _thinking_blocks(after_confirm)] == ["archive it"]

    # a new message is a new turn: the configured model, Sonnet 4.5's thinking left out
    await run_turn(deps, owner, "thanks", conversation_id=cid)
    latest = model.requests[2]
    assert (latest["model"], latest["max_tokens"]) == (LOOP_MODEL, LOOP_MAX_TOKENS)
    assert latest["thinking"] == {"type": "adaptive"}
    assert _thinking_blocks(latest) == []


async def test_the_loop_call_per_org_override_beats_the_setting_for_that_org_only(
    db: Database, org: Org, other_org: Org, clean_db: str
) -> None:
    _override(clean_db, org, "claude-opus-5")
    model = ScriptedModel([Reply([Text("a")]), Reply([Text("b")]), Reply([Text("c")])])
    settings = Settings(environment="test", spotter_loop_model="claude-sonnet-5-5-20260801")
    deps = deps_for(db, model, settings=settings)
    events = await run_turn(deps, await caller_for(db, org, "owner"), "hi")
    await run_turn(deps, await caller_for(db, other_org, "owner"), "hi")
    mine, theirs = model.requests[:2]
    assert (mine["model"], mine["max_tokens"]) == ("claude-opus-5", LOOP_MAX_TOKENS)
    assert theirs["model"] == "claude-sonnet-5-5-20260801", "the setting, for everyone else"
    done = events[-1]
    assert isinstance(done, ev.Done) and done.usage.cost_usd_micros == 100 * 5 + 20 * 25
    # chosen per run: the override dropped, the org's next run takes the setting again
    _override(clean_db, org, None)
    await run_turn(
        deps, await caller_for(db, org, "owner"), "again", conversation_id=done.conversation_id
    )
    assert model.requests[2]["model"] == "claude-sonnet-5-5-20260801"


async def test_the_loop_call_is_chosen_once_per_run_whatever_the_replies_say(
    db: Database, org: Org, clean_db: str
) -> None:
    """A reply naming another model (a provider alias) does not move the run's next call."""
    owner = await caller_for(db, org, "owner")
    listing = tool_reply(
        ToolUse("programs", {"action": "list", "args": {}}, id="t_list"), model="claude-opus-5"
    )
    model = ScriptedModel([listing, Reply([Text("none")])])
    await run_turn(deps_for(db, model), owner, "list")
    assert [b["model"] for b in model.requests] == [LOOP_MODEL, LOOP_MODEL]
