"""GET /agent/insights: the dashboard's cards for staff, filtered by role like the tools, each
with the page context that opens Spotter on it; scoped to the caller's org; cached per org."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from spotter.domain.insights import INSIGHT_KINDS
from spotter.domain.insights.kinds import COACH_KINDS
from tests.support.analytics import plan
from tests.support.memberships import add_member
from tests.support.tokens import TokenFactory
from tests.support.world import Org


def _auth(tokens: TokenFactory, org: Org, role: str) -> dict[str, str]:
    return {"authorization": f"Bearer {tokens.token(org[role].clerk_user_id, org.clerk_org_id)}"}


async def _cards(
    client: httpx.AsyncClient, tokens: TokenFactory, org: Org, role: str
) -> dict[str, Any]:
    response = await client.get("/agent/insights", headers=_auth(tokens, org, role))
    assert response.status_code == 200, response.text
    return {card["kind"]: card for card in response.json()["insights"]}


def _pause(clean_db: str, org: Org, name: str) -> None:
    monthly = plan(clean_db, org, f"Plan {name}", 10_000)
    add_member(clean_db, org, name, plan_id=monthly, subscription="paused")


async def test_an_owner_sees_every_kind_with_the_page_context_that_opens_it(
    client: httpx.AsyncClient, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    _pause(clean_db, org, "Pia Paused")
    cards = await _cards(client, tokens, org, "owner")
    assert list(cards) == list(INSIGHT_KINDS)  # growth tier: leads included
    paused = cards["paused_memberships"]
    assert (paused["count"], paused["subjects"][0]["name"]) == (1, "Pia Paused")
    assert paused["pageContext"] == {
        "pathname": "/dashboard",
        "selection": {"insight": "paused_memberships"},
    }


async def test_a_coach_sees_class_and_attendance_insights_not_revenue(
    client: httpx.AsyncClient, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    _pause(clean_db, org, "Pia Paused")
    cards = await _cards(client, tokens, org, "coach")
    assert set(cards) == set(COACH_KINDS)
    assert "paused_memberships" not in cards and "credits_running_low" not in cards


async def test_a_member_is_refused(
    client: httpx.AsyncClient, tokens: TokenFactory, org: Org
) -> None:
    response = await client.get("/agent/insights", headers=_auth(tokens, org, "member"))
    assert response.status_code == 403


async def test_another_orgs_rows_never_appear(
    client: httpx.AsyncClient, tokens: TokenFactory, org: Org, other_org: Org, clean_db: str
) -> None:
    _pause(clean_db, other_org, "Oren Elsewhere")
    cards = await _cards(client, tokens, org, "owner")
    assert cards["paused_memberships"]["count"] == 0


async def test_the_cards_are_cached_per_org_for_a_few_minutes(
    client: httpx.AsyncClient, tokens: TokenFactory, org: Org, other_org: Org, clean_db: str
) -> None:
    first = (await client.get("/agent/insights", headers=_auth(tokens, org, "owner"))).json()
    _pause(clean_db, org, "Pia Paused")
    _pause(clean_db, other_org, "Oren Elsewhere")
    again = (await client.get("/agent/insights", headers=_auth(tokens, org, "coach"))).json()
    assert again["computedAt"] == first["computedAt"]
    computed = datetime.fromisoformat(first["computedAt"])
    assert datetime.now(UTC) - computed < timedelta(minutes=1)
    cards = await _cards(client, tokens, org, "owner")
    assert cards["paused_memberships"]["count"] == 0  # still the cached answer
    other = await _cards(client, tokens, other_org, "owner")
    assert other["paused_memberships"]["count"] == 1  # its own entry, computed now
