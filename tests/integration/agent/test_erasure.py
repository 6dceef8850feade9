"""The assistant's records in a member's erasure (`agent.erasure`, issue 30 item 1): the attack's
path end to end, over HTTP."""

from __future__ import annotations

import json

import httpx

from spotter.providers.fake import Reply, ScriptedModel, Text, ToolUse, tool_reply
from tests.integration.memberships.test_erasure_everywhere import EMAIL, FIRST, NAME, gone
from tests.support.agent import sse_payloads
from tests.support.memberships import add_member
from tests.support.tokens import TokenFactory
from tests.support.world import Org


async def test_an_erasure_through_the_assistant_leaves_nothing_to_replay(
    agent_client: httpx.AsyncClient, model: ScriptedModel, tokens: TokenFactory, org: Org,
    clean_db: str,
) -> None:  # fmt: skip
    """The attack's path: a staff conversation reads her, then the owner erases her through
    the assistant (the card approved names her); `GET …/stream` of the earlier conversation,
    the loader and the database hold nothing of her."""
    dana = add_member(clean_db, org, NAME, EMAIL)
    headers = {
        "authorization": f"Bearer {tokens.token(org['owner'].clerk_user_id, org.clerk_org_id)}"
    }
    find = ToolUse("read", {"action": "find_members", "args": {"query": FIRST}}, id="t_find")
    model.script += [tool_reply(find), Reply([Text(f"{NAME} ({EMAIL}) is a member.")])]
    selection = {"memberName": NAME, "memberEmail": EMAIL, "membershipId": str(dana.membership_id)}
    body = {
        "text": f"Who is {FIRST}?",
        "pageContext": {"pathname": "/members", "selection": selection},
    }
    first = sse_payloads(
        (await agent_client.post("/agent/messages", json=body, headers=headers)).text
    )
    earlier = first[0]["conversationId"]
    assert NAME in json.dumps(first)

    erase = ToolUse(
        "memberships",
        {"action": "erase", "args": {"memberId": str(dana.membership_id)}},
        id="t_erase",
    )
    model.script += [tool_reply(erase), Reply([Text("Erased.")])]
    body = {"text": f"Erase {NAME}", "pageContext": {"pathname": "/members"}}
    asked = sse_payloads(
        (await agent_client.post("/agent/messages", json=body, headers=headers)).text
    )
    cid = asked[0]["conversationId"]
    confirmed = await agent_client.post(
        f"/agent/conversations/{cid}/confirm/t_erase", json={"approved": True}, headers=headers
    )
    assert [e["type"] for e in sse_payloads(confirmed.text)][-1] == "done"
    assert not [e for e in sse_payloads(confirmed.text) if e["type"] == "error"]

    replay = await agent_client.get(f"/agent/conversations/{earlier}/stream", headers=headers)
    detail = await agent_client.get(f"/agent/conversations/{earlier}", headers=headers)
    for shown in (replay.text, detail.text):
        assert NAME not in shown and EMAIL not in shown and "[erased]" in shown
    assert gone(clean_db, dana) == {}
