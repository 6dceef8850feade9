"""T0 seeding: the page's obvious read runs before the loop and is stored as a tool call pair."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

from spotter.agent.run.seeding import SEEDED_RESULTS_NOTE, seed_inputs
from spotter.db import Database
from spotter.providers.fake import Reply, ScriptedModel, Text
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

THURSDAY = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)


async def test_the_schedule_page_seeds_the_shown_week_before_the_first_call(
    db: Database, org: Org, clean_db: str
) -> None:
    model = ScriptedModel([Reply([Text("Your week is empty.")]), Reply([Text("Still empty.")])])
    owner = await caller_for(db, org, "owner")
    deps = deps_for(db, model, clock=lambda: THURSDAY)
    events = await run_turn(deps, owner, "what is on this week?", pathname="/schedule")
    assert kinds(events) == [
        "conversation_started", "tool_started", "tool_completed", "text_delta", "message_done",
        "done",
    ]  # fmt: skip
    sent = model.requests[0]
    seed_call, seed_results = sent["messages"][-2], sent["messages"][-1]
    [tool_use] = seed_call["content"]
    assert tool_use["name"] == "read" and tool_use["input"] == {
        "action": "schedule", "args": {"days": {"first": "2026-11-30", "last": "2026-12-06"}}
    }  # fmt: skip
    result, note = seed_results["content"]
    assert result["tool_use_id"] == tool_use["id"] and "sessions" in result["content"]
    assert note["text"] == SEEDED_RESULTS_NOTE
    # the tool list is the role's, unchanged by the seed
    assert sent["tools"] == json.loads(json.dumps(registry_for_caller(owner).definitions))
    cid = conversation_id_of(events)
    assert [r["role"] for r in stored_messages(clean_db, cid)] == [
        "user", "assistant", "tool_result", "assistant"
    ]  # fmt: skip
    [execution] = stored_executions(clean_db, cid)
    assert (execution["router"], execution["action"], execution["status"]) == (
        "read", "schedule", "succeeded"
    )  # fmt: skip
    # the same week already in the history is not fetched again
    events = await run_turn(deps, owner, "and now?", conversation_id=cid, pathname="/schedule")
    assert "tool_started" not in kinds(events)
    assert len(stored_executions(clean_db, cid)) == 1


async def test_a_selected_member_is_read_up_front_and_bad_ids_are_not_seeded(
    db: Database, org: Org, clean_db: str
) -> None:
    model = ScriptedModel([Reply([Text("That is you.")]), Reply([Text("Hm.")])])
    owner = await caller_for(db, org, "owner")
    membership = str(org["member"].membership_id)
    deps = deps_for(db, model)
    selection = {"membershipId": membership}
    events = await run_turn(deps, owner, "who is this?", pathname="/members", selection=selection)
    [execution] = stored_executions(clean_db, conversation_id_of(events))
    assert (execution["router"], execution["action"]) == ("read", "member")
    assert execution["input"]["args"] == {"membershipId": membership}
    events = await run_turn(
        deps, owner, "who is this?", pathname="/members", selection={"membershipId": "nope"}
    )
    assert "tool_started" not in kinds(events)
    assert len(model.requests[1]["messages"]) == 1


def test_pages_imply_their_reads() -> None:
    today = date(2026, 12, 3)
    assert seed_inputs("/dashboard", None, today) == []
    assert seed_inputs("/schedulers", None, today) == []
    [(router, week)] = seed_inputs("/dashboard/schedule/", {"weekStart": "2027-01-04"}, today)
    assert router == "read" and week["args"]["days"] == {
        "first": "2027-01-04",
        "last": "2027-01-10",
    }
    both = seed_inputs("/schedule", {"workoutId": "w", "sessionId": "s", "programId": "p"}, today)
    assert [i["action"] for _, i in both] == ["get", "session"]  # most specific, at most 2
    [(_, program)] = seed_inputs("/programs", {"programId": "p"}, today)
    assert program["args"] == {"programId": "p", "from": "2026-12-03", "to": "2026-12-16"}
