"""Over HTTP: confirm / confirm-batch / pick stream the resolution; undo runs an inverse once."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import psycopg

from spotter.providers.fake import Reply, ScriptedModel, Text, ToolUse, tool_reply
from tests.support.agent import sse_payloads
from tests.support.hitl import add_program, archive, ask, create, program_status
from tests.support.tokens import TokenFactory
from tests.support.world import Org


def _auth(tokens: TokenFactory, org: Org, role: str = "owner") -> dict[str, str]:
    return {"authorization": f"Bearer {tokens.token(org[role].clerk_user_id, org.clerk_org_id)}"}


async def _send(
    agent_client: httpx.AsyncClient, headers: dict[str, str]
) -> tuple[str, list[dict[str, Any]]]:
    body = {"text": "go", "pageContext": {"pathname": "/dashboard"}}
    response = await agent_client.post("/agent/messages", json=body, headers=headers)
    events = sse_payloads(response.text)
    return events[-1]["conversationId"], events


def _audits(url: str) -> list[tuple[str, Any, Any]]:
    with psycopg.connect(url) as conn:
        return conn.execute(
            "SELECT action, id, reverses_audit_log_id FROM audit_logs ORDER BY created_at"
        ).fetchall()


async def test_confirm_pick_and_batch_stream_over_http(
    agent_client: httpx.AsyncClient,
    model: ScriptedModel,
    tokens: TokenFactory,
    org: Org,
    clean_db: str,
) -> None:
    a = add_program(clean_db, org, "A")
    model.script += [tool_reply(ask("p1", "X", "Y"), archive(a, "t1")), Reply([Text("Done.")])]
    headers = _auth(tokens, org)
    cid, events = await _send(agent_client, headers)
    assert [e["type"] for e in events][-3:] == [
        "disambiguation_pending", "confirmation_pending", "done",
    ]  # fmt: skip
    base = f"/agent/conversations/{cid}"
    unknown = await agent_client.post(
        f"{base}/confirm-batch",
        json={"decisions": [{"toolUseId": "nope", "approved": True}]},
        headers=headers,
    )
    assert [(e["type"], e.get("code")) for e in sse_payloads(unknown.text)] == [
        ("error", "tool_execution_not_found"), ("done", None),
    ]  # fmt: skip
    picked = sse_payloads(
        (await agent_client.post(f"{base}/pick/p1", json={"id": "id_X"}, headers=headers)).text
    )
    assert [e["type"] for e in picked] == ["tool_completed", "done"]
    confirmed = await agent_client.post(
        f"{base}/confirm/t1", json={"approved": True}, headers=headers
    )
    assert [e["type"] for e in sse_payloads(confirmed.text)] == [
        "tool_started", "tool_completed", "text_delta", "message_done", "done",
    ]  # fmt: skip
    assert program_status(clean_db, a) == "archived"


async def test_undo_runs_the_inverse_once_linked_in_the_audit_log(
    agent_client: httpx.AsyncClient,
    model: ScriptedModel,
    tokens: TokenFactory,
    org: Org,
    clean_db: str,
) -> None:
    model.script += [tool_reply(create("Engine", "t1")), Reply([Text("Created.")])]
    headers = _auth(tokens, org)
    cid, events = await _send(agent_client, headers)
    created = next(e for e in events if e["type"] == "tool_completed")
    assert created["inverseAvailable"] is True
    response = await agent_client.post(f"/agent/conversations/{cid}/undo/t1", headers=headers)
    assert response.status_code == 200
    undone = sse_payloads(response.text)
    assert [e["type"] for e in undone] == ["tool_started", "tool_completed", "done"]
    assert undone[1]["toolUseId"] == "undo:t1" and undone[1]["ok"] is True
    assert undone[1]["inverseAvailable"] is False, "an undo is not undone"
    assert (undone[1]["router"], undone[1]["action"]) == ("programs", "archive")
    with psycopg.connect(clean_db) as conn:
        assert conn.execute("SELECT status FROM programs").fetchone() == ("archived",)
    [(_, original, _), (action, _, reverses)] = _audits(clean_db)
    assert (action, reverses) == ("program.archived", original)

    twice = await agent_client.post(f"/agent/conversations/{cid}/undo/t1", headers=headers)
    assert (twice.status_code, twice.json()["code"]) == (422, "undo_already_done")
    assert len(_audits(clean_db)) == 2


async def test_a_reloaded_conversation_offers_undo_until_it_is_used(
    agent_client: httpx.AsyncClient,
    model: ScriptedModel,
    tokens: TokenFactory,
    org: Org,
    clean_db: str,
) -> None:
    listing = ToolUse("programs", {"action": "list", "args": {}}, id="t_read")
    model.script += [tool_reply(create("Engine", "t1"), listing), Reply([Text("Created.")])]
    headers = _auth(tokens, org)
    cid, _ = await _send(agent_client, headers)

    async def loaded() -> dict[str, dict[str, Any]]:
        response = await agent_client.get(f"/agent/conversations/{cid}", headers=headers)
        return {t["toolUseId"]: t for t in response.json()["toolExecutions"]}

    before = await loaded()
    assert before["t1"]["inverseAvailable"] is True
    assert before["t_read"]["inverseAvailable"] is False, "a read has no inverse"
    with psycopg.connect(clean_db) as conn:
        row = conn.execute("SELECT id FROM ai_tool_executions WHERE tool_use_id = 't1'").fetchone()
    assert row is not None and before["t1"]["executionId"] == str(row[0])
    await agent_client.post(f"/agent/conversations/{cid}/undo/t1", headers=headers)
    after = (await loaded())["t1"]
    assert (after["undone"], after["inverseAvailable"]) == (True, False)


async def test_a_double_tapped_undo_runs_once(
    agent_client: httpx.AsyncClient,
    model: ScriptedModel,
    tokens: TokenFactory,
    org: Org,
    clean_db: str,
) -> None:
    model.script += [tool_reply(create("Engine", "t1")), Reply([Text("Created.")])]
    headers = _auth(tokens, org)
    cid, _ = await _send(agent_client, headers)
    url = f"/agent/conversations/{cid}/undo/t1"
    responses = await asyncio.gather(*(agent_client.post(url, headers=headers) for _ in range(5)))
    assert sorted(r.status_code for r in responses) == [200, 422, 422, 422, 422]
    assert [a[0] for a in _audits(clean_db)] == ["program.created", "program.archived"]


async def test_undo_refuses_what_cannot_be_undone_and_foreign_conversations(
    agent_client: httpx.AsyncClient,
    model: ScriptedModel,
    tokens: TokenFactory,
    org: Org,
    other_org: Org,
    clean_db: str,
) -> None:
    a = add_program(clean_db, org, "A")
    listing = ToolUse("programs", {"action": "list", "args": {}}, id="t_read")
    model.script += [
        tool_reply(create("Engine", "t1"), create("", "t_bad"), listing),
        Reply([Text("ok")]),
    ]
    headers = _auth(tokens, org)
    cid, _ = await _send(agent_client, headers)
    base = f"/agent/conversations/{cid}/undo"
    failed = await agent_client.post(f"{base}/t_bad", headers=headers)
    assert (failed.status_code, failed.json()["code"]) == (422, "undo_not_available")
    read = await agent_client.post(f"{base}/t_read", headers=headers)
    assert (read.status_code, read.json()["code"]) == (422, "undo_not_available")
    missing = await agent_client.post(f"{base}/nope", headers=headers)
    assert (missing.status_code, missing.json()["code"]) == (404, "not_found")
    for stranger in (_auth(tokens, org, "coach"), _auth(tokens, other_org)):
        foreign = await agent_client.post(f"{base}/t1", headers=stranger)
        assert (foreign.status_code, foreign.json()["code"]) == (404, "not_found")
    model.script += [tool_reply(archive(a, "t_pending"))]
    cid2, _ = await _send(agent_client, headers)
    pending = await agent_client.post(
        f"/agent/conversations/{cid2}/undo/t_pending", headers=headers
    )
    assert (pending.status_code, pending.json()["code"]) == (422, "undo_not_available")
    assert program_status(clean_db, a) == "active"
    assert [x[0] for x in _audits(clean_db)] == ["program.created"], "nothing was undone"


async def test_the_loader_shows_waiting_cards_abandoned_claims_as_failed_and_undos(
    agent_client: httpx.AsyncClient,
    model: ScriptedModel,
    tokens: TokenFactory,
    org: Org,
    clean_db: str,
) -> None:
    a, b = add_program(clean_db, org, "A"), add_program(clean_db, org, "B")
    model.script += [
        tool_reply(create("Engine", "t0"), archive(a, "t1"), ask("t2", "X", "Y"), archive(b, "t3"))
    ]
    headers = _auth(tokens, org)
    cid, _ = await _send(agent_client, headers)
    assert (
        await agent_client.post(f"/agent/conversations/{cid}/undo/t0", headers=headers)
    ).is_success
    with psycopg.connect(clean_db) as conn:  # t3 was claimed by a stream that died
        conn.execute(
            "UPDATE ai_tool_executions SET status = 'running',"
            " claimed_at = now() - interval '3 minutes' WHERE tool_use_id = 't3'"
        )
    detail = (await agent_client.get(f"/agent/conversations/{cid}", headers=headers)).json()
    shown = {t["toolUseId"]: t for t in detail["toolExecutions"]}
    assert (shown["t0"]["status"], shown["t0"]["undone"]) == ("succeeded", True)
    card = shown["t1"]
    assert (card["status"], card["awaitingUser"], card["confirm"]) == (
        "pending", True, "destructive",
    )  # fmt: skip
    assert card["confirmation"]["target"] == "A"
    picker = shown["t2"]
    assert picker["awaitingUser"] and picker["kind"] == "user_picker"
    assert [c["label"] for c in picker["input"]["args"]["candidates"]] == ["X", "Y"]
    assert (shown["t3"]["status"], shown["t3"]["error"]["code"]) == (
        "failed", "interrupted_not_applied",
    )  # fmt: skip
