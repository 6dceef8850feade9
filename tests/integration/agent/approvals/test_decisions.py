"""Spec "Resolving a message": validate all decisions first, reading only; batch-level codes."""

from __future__ import annotations

import uuid

import psycopg
import pytest
from psycopg.types.json import Jsonb

from spotter.agent.approvals.decisions import validate_decisions, validate_pick
from spotter.agent.errors import DecisionError
from spotter.agent.executions import load_calls
from spotter.db import Database
from tests.support.executions import PendingMessage, pending_message
from tests.support.world import Org


def set_row(url: str, execution_id: uuid.UUID, **columns: object) -> None:
    assignments = ", ".join(f"{k} = %s" for k in columns)
    values = [Jsonb(v) if isinstance(v, dict) else v for v in columns.values()]
    with psycopg.connect(url) as conn:
        conn.execute(
            f"UPDATE ai_tool_executions SET {assignments} WHERE id = %s", (*values, execution_id)
        )


def tool_use_ids(url: str, message: PendingMessage) -> list[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT tool_use_id FROM ai_tool_executions WHERE message_id = %s ORDER BY position",
            (message.message_id,),
        ).fetchall()
    return [r[0] for r in rows]


async def check(
    db: Database, org: Org, conversation_id: uuid.UUID, ids: list[str], kind: str = "confirm"
) -> list[str]:
    async with db.org_tx(org.id) as conn:
        calls = await load_calls(conn, org.id, conversation_id, ids)
    return [c.tool_use_id for c in validate_decisions(calls, ids, kind)]  # type: ignore[arg-type]


async def test_decisions_come_back_in_the_messages_order_not_the_requests(
    db: Database, org: Org, clean_db: str
) -> None:
    message = pending_message(clean_db, org, calls=3)
    ids = tool_use_ids(clean_db, message)
    assert await check(db, org, message.conversation_id, [ids[2], ids[0], ids[1]]) == ids


@pytest.mark.parametrize(
    ("mutate", "code"),
    [
        ("missing", "tool_execution_not_found"),
        ("resolved", "tool_already_resolved"),
        ("held", "tool_not_awaiting_approval"),
        ("picker", "tool_not_awaiting_approval"),
        ("other_message", "confirm_batch_mixed_messages"),
    ],
)
async def test_each_batch_level_error(
    db: Database, org: Org, clean_db: str, mutate: str, code: str
) -> None:
    message = pending_message(clean_db, org, calls=2)
    ids = tool_use_ids(clean_db, message)
    conversation_id = message.conversation_id
    if mutate == "missing":
        ids.append("toolu_nope")
    elif mutate == "resolved":
        set_row(clean_db, message.execution_ids[1], status="succeeded")
    elif mutate == "held":
        set_row(clean_db, message.execution_ids[1], confirm_policy="never")
    elif mutate == "picker":
        set_row(clean_db, message.execution_ids[1], kind="user_picker", confirm_policy="never")
    elif mutate == "other_message":
        other = pending_message(clean_db, org, calls=1)
        with psycopg.connect(clean_db) as conn:
            conn.execute(
                "UPDATE ai_tool_executions SET conversation_id = %s WHERE id = %s",
                (message.conversation_id, other.execution_ids[0]),
            )
        ids.append(tool_use_ids(clean_db, other)[0])
    with pytest.raises(DecisionError) as info:
        await check(db, org, conversation_id, ids)
    assert info.value.code == code


async def test_another_orgs_calls_are_not_found(
    db: Database, org: Org, other_org: Org, clean_db: str
) -> None:
    theirs = pending_message(clean_db, other_org, calls=1)
    with pytest.raises(DecisionError) as info:
        await check(db, org, theirs.conversation_id, tool_use_ids(clean_db, theirs))
    assert info.value.code == "tool_execution_not_found"


async def test_a_pick_must_be_one_of_the_candidates(db: Database, org: Org, clean_db: str) -> None:
    message = pending_message(clean_db, org, calls=1)
    picker_input = {
        "action": "ask_user_to_pick",
        "args": {
            "kind": "member",
            "prompt": "Which Saar?",
            "candidates": [{"id": "m1", "label": "Saar Cohen"}, {"id": "m2", "label": "Saar Levi"}],
        },
    }
    set_row(
        clean_db,
        message.execution_ids[0],
        kind="user_picker",
        confirm_policy="never",
        input=picker_input,
    )
    ids = tool_use_ids(clean_db, message)
    assert await check(db, org, message.conversation_id, ids, kind="pick") == ids
    with pytest.raises(DecisionError) as info:
        await check(db, org, message.conversation_id, ids, kind="confirm")
    assert info.value.code == "tool_not_awaiting_approval"
    async with db.org_tx(org.id) as conn:
        call = (await load_calls(conn, org.id, message.conversation_id, ids))[ids[0]]
    assert validate_pick(call, "m2") == {
        "pickedId": "m2",
        "pickedLabel": "Saar Levi",
        "kind": "member",
    }
    with pytest.raises(DecisionError) as pick_info:
        validate_pick(call, "m3")
    assert pick_info.value.code == "invalid_pick"
