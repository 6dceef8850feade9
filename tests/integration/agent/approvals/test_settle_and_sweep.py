"""Abandoned claims are closed (never re-run) and their messages settled, by the sweep too."""

from __future__ import annotations

import asyncio
import json
import uuid

import psycopg
from psycopg.rows import dict_row

from spotter.agent.approvals.resolution import REJECTED
from spotter.agent.approvals.settle import settle_message, sweep
from spotter.agent.executions import NOT_APPLIED, claim_all, finish_claimed
from spotter.db import Database
from spotter.tools.calls import ToolOutcome
from tests.support.executions import PendingMessage, pending_message, statuses
from tests.support.world import Org


def age_claims(url: str, ids: list[uuid.UUID], minutes: int = 3) -> None:
    with psycopg.connect(url) as conn:
        conn.execute(
            "UPDATE ai_tool_executions SET claimed_at = claimed_at - make_interval(mins => %s) WHERE id = ANY(%s)",
            (minutes, ids),
        )


def tool_result_turns(url: str, message: PendingMessage) -> list[list[dict[str, object]]]:
    with psycopg.connect(url, row_factory=dict_row) as conn:
        rows = conn.execute(
            "SELECT content FROM ai_messages WHERE conversation_id = %s AND role = 'tool_result' ORDER BY ordinal",
            (message.conversation_id,),
        ).fetchall()
    return [r["content"] for r in rows]


async def finish(db: Database, org: Org, ids: list[uuid.UUID], *, declined: bool = False) -> None:
    claims = await claim_all(db, org.id, ids)
    assert claims is not None
    async with db.org_tx(org.id) as conn:
        for claim in claims:
            outcome = (
                ToolOutcome.failed(REJECTED)
                if declined
                else ToolOutcome.succeeded({"id": str(claim.execution_id)})
            )
            assert await finish_claimed(conn, org.id, claim, outcome)


async def test_a_complete_message_gets_one_merged_turn_in_tool_order(
    db: Database, org: Org, clean_db: str
) -> None:
    message = pending_message(clean_db, org, calls=3)
    await finish(db, org, list(reversed(message.execution_ids)))
    async with db.org_tx(org.id) as conn:
        assert await settle_message(conn, org.id, message.message_id)
        assert not await settle_message(conn, org.id, message.message_id)
    [turn] = tool_result_turns(clean_db, message)
    assert [json.loads(str(b["content"]))["id"] for b in turn] == [
        str(i) for i in message.execution_ids
    ]


async def test_an_incomplete_message_is_not_settled(db: Database, org: Org, clean_db: str) -> None:
    message = pending_message(clean_db, org, calls=2)
    await finish(db, org, message.execution_ids[:1])
    async with db.org_tx(org.id) as conn:
        assert not await settle_message(conn, org.id, message.message_id)
    assert tool_result_turns(clean_db, message) == []


async def test_sweep_closes_stale_claims_settles_and_never_reruns(
    db: Database, org: Org, clean_db: str
) -> None:
    message = pending_message(clean_db, org, calls=2)
    await finish(db, org, message.execution_ids[:1])
    claims = await claim_all(db, org.id, message.execution_ids[1:])
    assert claims is not None
    age_claims(clean_db, message.execution_ids[1:])
    report = await sweep(db)
    assert (report.orgs, report.messages_closed) == (1, 1)
    assert statuses(clean_db, message.execution_ids) == ["succeeded", "failed"]
    [turn] = tool_result_turns(clean_db, message)
    assert turn[1]["is_error"] is True
    assert json.loads(str(turn[1]["content"]))["code"] == NOT_APPLIED
    again = await sweep(db)
    assert (again.orgs, again.messages_closed) == (0, 0)


async def test_fresh_claims_are_left_to_their_live_stream(
    db: Database, org: Org, clean_db: str
) -> None:
    message = pending_message(clean_db, org, calls=1)
    assert await claim_all(db, org.id, message.execution_ids) is not None
    report = await sweep(db)
    assert report.messages_closed == 0
    assert statuses(clean_db, message.execution_ids) == ["running"]


async def test_two_sweeps_and_a_live_resolution_at_once_settle_exactly_once(
    db: Database, org: Org, other_org: Org, clean_db: str
) -> None:
    message = pending_message(clean_db, org, calls=2)
    elsewhere = pending_message(clean_db, other_org, calls=1)
    stale = await claim_all(db, org.id, message.execution_ids[:1])
    other_stale = await claim_all(db, other_org.id, elsewhere.execution_ids)
    assert stale is not None and other_stale is not None
    age_claims(clean_db, [*message.execution_ids[:1], *elsewhere.execution_ids])

    async def resolve_the_other_call() -> None:
        await finish(db, org, message.execution_ids[1:], declined=True)
        async with db.org_tx(org.id) as conn:
            await settle_message(conn, org.id, message.message_id)

    await asyncio.gather(sweep(db), sweep(db), resolve_the_other_call())
    assert statuses(clean_db, message.execution_ids) == ["failed", "rejected_by_user"]
    assert len(tool_result_turns(clean_db, message)) == 1
    assert len(tool_result_turns(clean_db, elsewhere)) == 1
