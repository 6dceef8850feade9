"""Issue 26 item 11: a run whose stored user turn has no `<turn_context>` (written before turn
contexts existed) gets one built once on resume — stored onto that turn, replayed by every call
of the resumed run and by every later resume, never built again."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import psycopg

from spotter.agent import events as ev
from spotter.agent.run import resolve as resolution
from spotter.agent.transcript.turn_context import is_turn_context
from spotter.db import Database
from spotter.providers.fake import Reply, ScriptedModel, Text, ToolUse, tool_reply
from tests.support.agent import conversation_id_of, deps_for, run_turn, stored_messages
from tests.support.callers import caller_for
from tests.support.hitl import add_program, archive, collect, of_type
from tests.support.world import Org

ASKED = "archive Old and then Older"
FIRST_RESUME = datetime(2026, 12, 2, 9, 30, tzinfo=UTC)
SECOND_RESUME = datetime(2026, 12, 5, 18, 0, tzinfo=UTC)


def _contexts(content: list[dict[str, Any]]) -> list[str]:
    return [str(b["text"]) for b in content if is_turn_context(b)]


def _sent_user_turn(body: dict[str, Any]) -> list[dict[str, Any]]:
    first = body["messages"][0]
    assert first["role"] == "user" and first["content"][0]["text"] == ASKED
    return list(first["content"])


async def test_the_turn_context_built_for_old_runs_once_on_resume(
    db: Database, org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, org, "owner")
    old, older = add_program(clean_db, org, "Old"), add_program(clean_db, org, "Older")
    listing = ToolUse("programs", {"action": "list", "args": {}}, id="t_list")
    model = ScriptedModel(
        [
            tool_reply(archive(old, "t_old")),
            tool_reply(listing),  # the first resumed run: a read, then another confirmation
            tool_reply(archive(older, "t_older")),
            Reply([Text("Both archived.")]),  # the second resumed run
        ]
    )
    events = await run_turn(deps_for(db, model), owner, ASKED)
    cid = uuid.UUID(conversation_id_of(events))
    # the run's user turn as a Spotter before turn contexts stored it: the words alone
    with psycopg.connect(clean_db) as conn:
        conn.execute(
            "UPDATE ai_messages SET content = jsonb_build_array(content -> 0)"
            " WHERE conversation_id = %s AND role = 'user'",
            (cid,),
        )

    first = deps_for(db, model, clock=lambda: FIRST_RESUME)
    resumed = await collect(resolution.confirm(first, owner, cid, "t_old", True))
    assert of_type(resumed, ev.ConfirmationPending), "suspended again at the second archive"
    [user_row] = [m for m in stored_messages(clean_db, str(cid)) if m["role"] == "user"]
    [built] = _contexts(user_row["content"])
    assert "2026-12-02" in built and user_row["content"][0] == {"type": "text", "text": ASKED}
    # both calls of the resumed run replay the one turn context, as stored
    after_confirm, after_read = model.requests[1:3]
    assert _contexts(_sent_user_turn(after_confirm)) == [built]
    assert _contexts(_sent_user_turn(after_read)) == [built]

    second = deps_for(db, model, clock=lambda: SECOND_RESUME)
    await collect(resolution.confirm(second, owner, cid, "t_older", True))
    assert _contexts(_sent_user_turn(model.requests[3])) == [built], "never built again"
    [user_row] = [m for m in stored_messages(clean_db, str(cid)) if m["role"] == "user"]
    assert _contexts(user_row["content"]) == [built]


async def test_a_resumed_run_whose_turn_has_its_context_replays_it_untouched(
    db: Database, org: Org, clean_db: str
) -> None:
    owner = await caller_for(db, org, "owner")
    old = add_program(clean_db, org, "Old")
    model = ScriptedModel([tool_reply(archive(old, "t_old")), Reply([Text("Archived.")])])
    events = await run_turn(deps_for(db, model), owner, ASKED)
    cid = uuid.UUID(conversation_id_of(events))
    [before] = [m for m in stored_messages(clean_db, str(cid)) if m["role"] == "user"]
    later = deps_for(db, model, clock=lambda: SECOND_RESUME)
    await collect(resolution.confirm(later, owner, cid, "t_old", True))
    [after] = [m for m in stored_messages(clean_db, str(cid)) if m["role"] == "user"]
    assert after["content"] == before["content"]
    assert _sent_user_turn(model.requests[1]) == before["content"]
