"""The JSON reads: usage for today's UTC day, and conversations scoped to the caller."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import httpx
import psycopg

from tests.support.tokens import TokenFactory
from tests.support.world import Org, create_org, sync_next_ordinals


def _auth(tokens: TokenFactory, org: Org, role: str) -> dict[str, str]:
    return {"authorization": f"Bearer {tokens.token(org[role].clerk_user_id, org.clerk_org_id)}"}


def _spend(owner_url: str, org: Org, role: str, micros: int, day: str | None = None) -> None:
    with psycopg.connect(owner_url) as conn:
        conn.execute(
            "INSERT INTO ai_usage_daily (organization_id, user_id, day, cost_usd_micros, turns)"
            " VALUES (%s, %s, %s, %s, 1)",
            (org.id, org[role].user_id, day or datetime.now(UTC).date().isoformat(), micros),
        )


async def test_usage_sums_the_orgs_spend_today_across_users(
    client: httpx.AsyncClient, tokens: TokenFactory, org: Org, other_org: Org, clean_db: str
) -> None:
    _spend(clean_db, org, "owner", 1_000_000)
    _spend(clean_db, org, "coach", 500_000)
    _spend(clean_db, org, "coach", 9_000_000, day="2020-01-01")
    _spend(clean_db, other_org, "owner", 4_000_000)
    body = (await client.get("/agent/usage", headers=_auth(tokens, org, "coach"))).json()
    assert body["spentUsdMicros"] == 1_500_000
    assert body["capUsdMicros"] == 5_000_000  # growth tier
    assert body["percentUsed"] == 0.3
    assert body["remainingUsdMicros"] == 3_500_000
    assert body["resetsAt"].endswith("T00:00:00+00:00")


async def test_usage_tells_the_estimated_part_of_the_spend(
    client: httpx.AsyncClient, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    _spend(clean_db, org, "owner", 1_000_000)
    with psycopg.connect(clean_db) as conn:  # what the sweep charged for a dead run's hold
        conn.execute(
            "INSERT INTO ai_usage_daily (organization_id, user_id, day, cost_usd_micros,"
            " estimated_usd_micros) VALUES (%s, %s, current_date, 300, 300)",
            (org.id, org["coach"].user_id),
        )
    body = (await client.get("/agent/usage", headers=_auth(tokens, org, "owner"))).json()
    assert body["spentUsdMicros"] == 1_000_300
    assert body["estimatedUsdMicros"] == 300


async def test_unmetered_tier_reports_no_cap(
    client: httpx.AsyncClient, tokens: TokenFactory, clean_db: str
) -> None:
    big = create_org(clean_db, tier="enterprise", roles=("owner",))
    body = (await client.get("/agent/usage", headers=_auth(tokens, big, "owner"))).json()
    assert body["unmetered"] is True
    assert body["capUsdMicros"] == -1
    assert body["percentUsed"] is None


async def test_conversation_list_shows_only_the_callers_own(
    client: httpx.AsyncClient, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    mine, theirs = uuid.uuid4(), uuid.uuid4()
    with psycopg.connect(clean_db) as conn:
        for cid, role in ((mine, "owner"), (theirs, "coach")):
            conn.execute(
                "INSERT INTO ai_conversations (id, organization_id, user_id, title) VALUES (%s, %s, %s, %s)",
                (cid, org.id, org[role].user_id, f"{role} chat"),
            )
    body = (await client.get("/agent/conversations", headers=_auth(tokens, org, "owner"))).json()
    assert [c["id"] for c in body["conversations"]] == [str(mine)]
    assert body["conversations"][0]["compacting"] is False


async def test_conversation_detail_shows_visible_text_only(
    client: httpx.AsyncClient, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    cid, run = uuid.uuid4(), uuid.uuid4()
    user_content = [
        {"type": "text", "text": "post this WOD for Monday"},
        {"type": "text", "text": "<turn_context>\nCurrent date & time: ...\n</turn_context>"},
    ]
    with psycopg.connect(clean_db) as conn:
        conn.execute(
            "INSERT INTO ai_conversations (id, organization_id, user_id) VALUES (%s, %s, %s)",
            (cid, org.id, org["owner"].user_id),
        )
        conn.execute(
            "INSERT INTO ai_messages (organization_id, conversation_id, run_id, ordinal, role, content)"
            " VALUES (%s, %s, %s, 0, 'user', %s)",
            (org.id, cid, run, psycopg.types.json.Jsonb(user_content)),
        )
        sync_next_ordinals(conn)
    body = (
        await client.get(f"/agent/conversations/{cid}", headers=_auth(tokens, org, "owner"))
    ).json()
    assert [m["text"] for m in body["messages"]] == ["post this WOD for Monday"]


async def test_foreign_or_missing_conversation_is_404_not_found(
    client: httpx.AsyncClient, tokens: TokenFactory, org: Org, other_org: Org, clean_db: str
) -> None:
    theirs = uuid.uuid4()
    with psycopg.connect(clean_db) as conn:
        conn.execute(
            "INSERT INTO ai_conversations (id, organization_id, user_id) VALUES (%s, %s, %s)",
            (theirs, other_org.id, other_org["owner"].user_id),
        )
    for cid in (theirs, uuid.uuid4()):
        response = await client.get(
            f"/agent/conversations/{cid}", headers=_auth(tokens, org, "owner")
        )
        assert response.status_code == 404
        assert response.json()["code"] == "not_found"
