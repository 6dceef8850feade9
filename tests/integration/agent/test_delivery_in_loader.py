"""GET /agent/conversations/{id}: each call that queued mail carries its delivery status."""

from __future__ import annotations

import httpx
import psycopg

from tests.support.executions import pending_message
from tests.support.tokens import TokenFactory
from tests.support.world import Org


async def test_the_loader_shows_each_outbound_calls_delivery_and_nothing_on_others(
    agent_client: httpx.AsyncClient, org: Org, tokens: TokenFactory, clean_db: str
) -> None:
    message = pending_message(clean_db, org, calls=2, external=True)
    with psycopg.connect(clean_db) as conn:
        first, second = (
            r[0]
            for r in conn.execute(
                "SELECT tool_use_id FROM ai_tool_executions WHERE message_id = %s ORDER BY position",
                (message.message_id,),
            ).fetchall()
        )
        for address, status in (
            ("a@example.com", "delivered"),
            ("b@example.com", "outcome_unknown"),
        ):
            conn.execute(
                "INSERT INTO outbox_messages (organization_id, source, conversation_id, tool_use_id,"
                " to_address, subject, body, status, claimed_at, delivered_at)"
                " VALUES (%s, 'messages.send', %s, %s, %s, 'S', 'B', %s, now(),"
                " CASE WHEN %s = 'delivered' THEN now() END)",
                (org.id, message.conversation_id, first, address, status, status),
            )
    headers = {
        "authorization": f"Bearer {tokens.token(org['owner'].clerk_user_id, org.clerk_org_id)}"
    }
    response = await agent_client.get(
        f"/agent/conversations/{message.conversation_id}", headers=headers
    )
    assert response.status_code == 200
    tools = {t["toolUseId"]: t for t in response.json()["toolExecutions"]}
    assert [(d["to"], d["status"]) for d in tools[first]["delivery"]] == [
        ("a@example.com", "delivered"),
        ("b@example.com", "outcome_unknown"),
    ]
    assert "deliveredAt" in tools[first]["delivery"][0]
    assert "delivery" not in tools[second]


async def test_the_loader_never_shows_another_orgs_mail(
    agent_client: httpx.AsyncClient, org: Org, other_org: Org, tokens: TokenFactory, clean_db: str
) -> None:
    message = pending_message(clean_db, org, calls=1, external=True)
    with psycopg.connect(clean_db) as conn:
        tool_use_id = conn.execute(
            "SELECT tool_use_id FROM ai_tool_executions WHERE message_id = %s",
            (message.message_id,),
        ).fetchone()[0]  # type: ignore[index]
        conn.execute(
            "INSERT INTO outbox_messages (organization_id, source, to_address, subject, body)"
            " VALUES (%s, 'x', 'z@example.com', 'S', 'B')",
            (other_org.id,),
        )
    headers = {
        "authorization": f"Bearer {tokens.token(org['owner'].clerk_user_id, org.clerk_org_id)}"
    }
    response = await agent_client.get(
        f"/agent/conversations/{message.conversation_id}", headers=headers
    )
    [tool] = response.json()["toolExecutions"]
    assert tool["toolUseId"] == tool_use_id and "delivery" not in tool
