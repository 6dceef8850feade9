"""Issue 26 item 6: a stored history that repair cannot make valid stops the run with
`replay_integrity_violation` instead of sending the model's API a request it would refuse; what
repair can fix (a result answering nothing, a call answered nowhere) is fixed and the run goes on."""

from __future__ import annotations

import json
import uuid
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb

from spotter.agent import events as ev
from spotter.db import Database
from spotter.i18n import error_message
from spotter.providers.fake import Reply, ScriptedModel, Text
from tests.support.agent import deps_for, kinds, run_turn
from tests.support.callers import caller_for
from tests.support.world import Org, sync_next_ordinals

pytestmark = pytest.mark.damaged_history


def _text(text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text}]


def _call(tool_use_id: str) -> list[dict[str, Any]]:
    args = {"action": "list", "args": {}}
    return [{"type": "tool_use", "id": tool_use_id, "name": "programs", "input": args}]


def _result(tool_use_id: str) -> list[dict[str, Any]]:
    return [{"type": "tool_result", "tool_use_id": tool_use_id, "content": '{"programs": []}'}]


def _stored(clean_db: str, org: Org, rows: list[tuple[str, list[dict[str, Any]]]]) -> uuid.UUID:
    """A conversation whose stored rows are exactly these (role, content)."""
    cid, run = uuid.uuid4(), uuid.uuid4()
    with psycopg.connect(clean_db) as conn:
        conn.execute(
            "INSERT INTO ai_conversations (id, organization_id, user_id) VALUES (%s, %s, %s)",
            (cid, org.id, org["owner"].user_id),
        )
        for ordinal, (role, content) in enumerate(rows):
            conn.execute(
                "INSERT INTO ai_messages (organization_id, conversation_id, run_id, ordinal,"
                " role, content, model) VALUES (%s, %s, %s, %s, %s, %s, %s)",
                (org.id, cid, run, ordinal, role, Jsonb(content),
                 "claude-sonnet-5-5" if role == "assistant" else None),
            )  # fmt: skip
        sync_next_ordinals(conn)
    return cid


async def test_a_history_repair_cannot_fix_stops_the_run_with_replay_integrity_violation(
    db: Database, org: Org, clean_db: str
) -> None:
    # the model once reused a tool_use id: the API refuses a request holding it twice, and no
    # synthesized result can tell the two calls apart
    cid = _stored(
        clean_db,
        org,
        [
            ("user", _text("list programs")),
            ("assistant", _call("toolu_same")),
            ("tool_result", _result("toolu_same")),
            ("assistant", _call("toolu_same")),
            ("tool_result", _result("toolu_same")),
        ],
    )
    model = ScriptedModel([Reply([Text("never asked")])])
    owner = await caller_for(db, org, "owner")
    events = await run_turn(deps_for(db, model), owner, "and now?", conversation_id=cid)
    assert kinds(events) == ["error", "done"]
    error = events[0]
    assert isinstance(error, ev.Error) and error.code == "replay_integrity_violation"
    assert error.message == error_message("replay_integrity_violation", "en")
    assert model.requests == []  # no request the API would refuse was sent
    # the conversation is free again: the next send says the same, it is not stuck "busy"
    again = await run_turn(deps_for(db, model), owner, "hello?", conversation_id=cid)
    assert [e.code for e in again if isinstance(e, ev.Error)] == ["replay_integrity_violation"]


async def test_a_result_that_answers_nothing_is_dropped_and_the_run_goes_on(
    db: Database, org: Org, clean_db: str
) -> None:
    cid = _stored(
        clean_db,
        org,
        [
            ("user", _text("hi")),
            ("assistant", _text("Hello.")),
            ("tool_result", _result("toolu_stray")),  # answers no call of the turn before
        ],
    )
    model = ScriptedModel([Reply([Text("Still here.")])])
    owner = await caller_for(db, org, "owner")
    events = await run_turn(deps_for(db, model), owner, "are you there?", conversation_id=cid)
    assert kinds(events) == ["text_delta", "message_done", "done"]
    [request] = model.requests
    assert "toolu_stray" not in json.dumps(request["messages"])
    assert [m["role"] for m in request["messages"]] == ["user", "assistant", "user"]
