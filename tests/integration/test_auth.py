"""Spec "Surface": a Clerk session and an active membership, or a 401/403 with a stable code."""

from __future__ import annotations

import base64
import json
import time

import httpx
import psycopg
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from tests.support.tokens import TokenFactory
from tests.support.world import Org, create_org

USAGE = "/agent/usage"


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def _row_counts(owner_url: str) -> tuple[int, ...]:
    with psycopg.connect(owner_url) as conn:
        row = conn.execute(
            "SELECT (SELECT count(*) FROM ai_conversations), (SELECT count(*) FROM ai_messages),"
            " (SELECT count(*) FROM audit_logs), (SELECT count(*) FROM ai_usage_daily)"
        ).fetchone()
    assert row is not None
    return tuple(row)


async def test_owner_with_valid_token_reads_usage(
    client: httpx.AsyncClient, tokens: TokenFactory, org: Org
) -> None:
    response = await client.get(
        USAGE, headers=bearer(tokens.token(org["owner"].clerk_user_id, org.clerk_org_id))
    )
    assert response.status_code == 200
    assert response.json()["spentUsdMicros"] == 0


async def test_missing_token_is_401_missing_token(client: httpx.AsyncClient) -> None:
    response = await client.get(USAGE)
    assert response.status_code == 401
    assert response.json()["code"] == "missing_token"


async def test_non_bearer_scheme_is_401_missing_token(client: httpx.AsyncClient) -> None:
    response = await client.get(USAGE, headers={"authorization": "Basic dXNlcjpwYXNz"})
    assert response.status_code == 401
    assert response.json()["code"] == "missing_token"


async def test_token_signed_by_another_key_is_401_invalid_token(
    client: httpx.AsyncClient, tokens: TokenFactory, org: Org
) -> None:
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    token = tokens.sign(tokens.claims(org["owner"].clerk_user_id, org.clerk_org_id), key=stranger)
    response = await client.get(USAGE, headers=bearer(token))
    assert response.status_code == 401
    assert response.json()["code"] == "invalid_token"


async def test_alg_none_is_401_invalid_token(
    client: httpx.AsyncClient, tokens: TokenFactory, org: Org
) -> None:
    def part(obj: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()

    claims = tokens.claims(org["owner"].clerk_user_id, org.clerk_org_id)
    token = f"{part({'alg': 'none', 'typ': 'JWT'})}.{part(claims)}."
    response = await client.get(USAGE, headers=bearer(token))
    assert response.status_code == 401
    assert response.json()["code"] == "invalid_token"


async def test_hs256_token_using_public_key_as_secret_is_rejected(
    client: httpx.AsyncClient, tokens: TokenFactory, org: Org
) -> None:
    # The classic algorithm-confusion attack: only RS256 is ever accepted.
    import hmac
    from hashlib import sha256

    def part(obj: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()

    signing_input = f"{part({'alg': 'HS256', 'typ': 'JWT'})}.{part(tokens.claims(org['owner'].clerk_user_id, org.clerk_org_id))}"
    signature = hmac.new(tokens.public_pem.encode(), signing_input.encode(), sha256).digest()
    token = signing_input + "." + base64.urlsafe_b64encode(signature).rstrip(b"=").decode()
    response = await client.get(USAGE, headers=bearer(token))
    assert response.status_code == 401
    assert response.json()["code"] == "invalid_token"


async def test_garbage_token_is_401_invalid_token(client: httpx.AsyncClient) -> None:
    response = await client.get(USAGE, headers=bearer("not-a-jwt"))
    assert response.status_code == 401
    assert response.json()["code"] == "invalid_token"


async def test_expired_token_is_401_token_expired(
    client: httpx.AsyncClient, tokens: TokenFactory, org: Org
) -> None:
    past = int(time.time()) - 3600
    token = tokens.token(
        org["owner"].clerk_user_id, org.clerk_org_id, exp=past, iat=past - 60, nbf=past - 60
    )
    response = await client.get(USAGE, headers=bearer(token))
    assert response.status_code == 401
    assert response.json()["code"] == "token_expired"


async def test_token_within_leeway_of_expiry_is_accepted(
    client: httpx.AsyncClient, tokens: TokenFactory, org: Org
) -> None:
    token = tokens.token(org["owner"].clerk_user_id, org.clerk_org_id, exp=int(time.time()) - 2)
    response = await client.get(USAGE, headers=bearer(token))
    assert response.status_code == 200


async def test_token_not_yet_valid_is_401_invalid_token(
    client: httpx.AsyncClient, tokens: TokenFactory, org: Org
) -> None:
    token = tokens.token(org["owner"].clerk_user_id, org.clerk_org_id, nbf=int(time.time()) + 300)
    response = await client.get(USAGE, headers=bearer(token))
    assert response.status_code == 401
    assert response.json()["code"] == "invalid_token"


async def test_token_without_exp_is_401_invalid_token(
    client: httpx.AsyncClient, tokens: TokenFactory, org: Org
) -> None:
    claims = tokens.claims(org["owner"].clerk_user_id, org.clerk_org_id)
    del claims["exp"]
    response = await client.get(USAGE, headers=bearer(tokens.sign(claims)))
    assert response.status_code == 401
    assert response.json()["code"] == "invalid_token"


async def test_wrong_issuer_is_401_invalid_issuer(
    client: httpx.AsyncClient, tokens: TokenFactory, org: Org
) -> None:
    token = tokens.token(org["owner"].clerk_user_id, org.clerk_org_id, iss="https://evil.example")
    response = await client.get(USAGE, headers=bearer(token))
    assert response.status_code == 401
    assert response.json()["code"] == "invalid_issuer"


async def test_wrong_authorized_party_is_401(
    client: httpx.AsyncClient, tokens: TokenFactory, org: Org
) -> None:
    token = tokens.token(org["owner"].clerk_user_id, org.clerk_org_id, azp="https://evil.example")
    response = await client.get(USAGE, headers=bearer(token))
    assert response.status_code == 401
    assert response.json()["code"] == "invalid_authorized_party"


# A signed token's claims are text Postgres may be asked to compare: one it cannot hold (a NUL,
# a lone surrogate) is no valid subject or org (issue 30 item 7: this was a 500)
UNSTORABLE_CLAIMS = [
    {"sub": "user_a\u0000b"},
    {"sub": "user_\ud800"},
    {"o": {"id": "org_a\u0000b", "rol": "admin"}},
    {"o": None, "org_id": "org_\udfff", "org_role": "org:admin", "v": 1},
]


@pytest.mark.parametrize("claims", UNSTORABLE_CLAIMS)
async def test_a_signed_token_whose_claims_hold_a_nul_or_a_lone_surrogate_is_401(
    client: httpx.AsyncClient, tokens: TokenFactory, org: Org, claims: dict[str, object]
) -> None:
    token = tokens.token(org["owner"].clerk_user_id, org.clerk_org_id, **claims)
    response = await client.get(USAGE, headers=bearer(token))
    assert response.status_code == 401
    assert response.json()["code"] == "invalid_token"


async def test_token_without_active_org_is_403_no_active_organization(
    client: httpx.AsyncClient, tokens: TokenFactory, org: Org
) -> None:
    response = await client.get(
        USAGE, headers=bearer(tokens.token(org["owner"].clerk_user_id, None))
    )
    assert response.status_code == 403
    assert response.json()["code"] == "no_active_organization"


async def test_v1_claim_format_is_read(
    client: httpx.AsyncClient, tokens: TokenFactory, org: Org
) -> None:
    claims = tokens.claims(
        org["coach"].clerk_user_id, None, org_id=org.clerk_org_id, org_role="org:admin"
    )
    response = await client.get(USAGE, headers=bearer(tokens.sign(claims)))
    assert response.status_code == 200


async def test_user_of_another_org_is_403_not_a_member(
    client: httpx.AsyncClient, tokens: TokenFactory, org: Org, other_org: Org
) -> None:
    token = tokens.token(other_org["owner"].clerk_user_id, org.clerk_org_id)
    response = await client.get(USAGE, headers=bearer(token))
    assert response.status_code == 403
    assert response.json()["code"] == "not_a_member"


async def test_unknown_org_is_403_not_a_member(
    client: httpx.AsyncClient, tokens: TokenFactory, org: Org
) -> None:
    response = await client.get(
        USAGE, headers=bearer(tokens.token(org["owner"].clerk_user_id, "org_nope"))
    )
    assert response.status_code == 403
    assert response.json()["code"] == "not_a_member"


async def test_suspended_membership_is_403_membership_inactive(
    client: httpx.AsyncClient, tokens: TokenFactory, clean_db: str
) -> None:
    suspended = create_org(clean_db, roles=("coach",), status="suspended")
    token = tokens.token(suspended["coach"].clerk_user_id, suspended.clerk_org_id)
    response = await client.get(USAGE, headers=bearer(token))
    assert response.status_code == 403
    assert response.json()["code"] == "membership_inactive"


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/agent/messages", {"text": "hi", "pageContext": {"pathname": "/"}}),
        ("POST", "/agent/conversations/{cid}/confirm/toolu_1", {"approved": True}),
        (
            "POST",
            "/agent/conversations/{cid}/confirm-batch",
            {"decisions": [{"toolUseId": "t", "approved": True}]},
        ),
        ("POST", "/agent/conversations/{cid}/pick/toolu_1", {"id": "x"}),
    ],
)
async def test_member_role_is_403_staff_only_on_agent_writes(
    client: httpx.AsyncClient,
    tokens: TokenFactory,
    org: Org,
    method: str,
    path: str,
    body: dict[str, object],
) -> None:
    token = tokens.token(org["member"].clerk_user_id, org.clerk_org_id)
    url = path.format(cid="00000000-0000-0000-0000-000000000001")
    response = await client.request(method, url, json=body, headers=bearer(token))
    assert response.status_code == 403
    assert response.json()["code"] == "staff_only"


async def test_a_member_sees_no_spend(
    client: httpx.AsyncClient, tokens: TokenFactory, org: Org
) -> None:
    """The gym's AI spend is the staff's business (issue 25): a member's usage read is refused."""
    response = await client.get(
        USAGE, headers=bearer(tokens.token(org["member"].clerk_user_id, org.clerk_org_id))
    )
    assert response.status_code == 403
    assert response.json()["code"] == "staff_only"


async def test_rejected_requests_write_nothing(
    client: httpx.AsyncClient, tokens: TokenFactory, org: Org, clean_db: str
) -> None:
    before = _row_counts(clean_db)
    body = {"text": "erase Dana Levi", "pageContext": {"pathname": "/members"}}
    await client.post("/agent/messages", json=body)
    await client.post("/agent/messages", json=body, headers=bearer("garbage"))
    member = tokens.token(org["member"].clerk_user_id, org.clerk_org_id)
    await client.post("/agent/messages", json=body, headers=bearer(member))
    assert _row_counts(clean_db) == before
