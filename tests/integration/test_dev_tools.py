"""`spotter seed-demo` and `spotter dev-token`: the demo gym and tokens the dev server trusts."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import psycopg

from spotter.auth.devkeys import DEV_ISSUER, ensure_dev_key, mint_token, public_pem
from spotter.config import Settings
from spotter.db import Database
from spotter.http.app import create_app
from spotter.seed.day_grain import DAY_GRAIN_STAFF
from spotter.seed.demo import DEMO_CLERK_ORG_ID, DEMO_STAFF, seed_demo
from spotter.seed.schedule import MEMBERS


def _counts(url: str) -> tuple[int, int, int]:
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT (SELECT count(*) FROM organizations), (SELECT count(*) FROM users),"
            " (SELECT count(*) FROM org_memberships)"
        ).fetchone()
    assert row is not None
    return (row[0], row[1], row[2])


def test_seed_demo_is_idempotent(clean_db: str) -> None:
    asyncio.run(seed_demo(clean_db))
    first = _counts(clean_db)
    asyncio.run(seed_demo(clean_db))
    people = len(DEMO_STAFF) + len(MEMBERS) + len(DAY_GRAIN_STAFF)
    assert _counts(clean_db) == first == (2, people, people)


def test_dev_key_is_created_once_and_reused(tmp_path: Path) -> None:
    first = ensure_dev_key(tmp_path)
    second = ensure_dev_key(tmp_path)
    assert public_pem(first) == public_pem(second)
    assert (tmp_path / "dev-jwt-key.pem").stat().st_mode & 0o077 == 0


async def test_dev_token_authenticates_a_demo_owner(
    db: Database, clean_db: str, tmp_path: Path
) -> None:
    await seed_demo(clean_db)
    key = ensure_dev_key(tmp_path)
    settings = Settings(environment="dev", clerk_jwt_key=public_pem(key), clerk_issuer=DEV_ISSUER)
    app = create_app(settings, db=db)
    token = mint_token(key, clerk_user_id="user_demo_owner", clerk_org_id=DEMO_CLERK_ORG_ID)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://t"
    ) as client:
        ok = await client.get("/agent/usage", headers={"authorization": f"Bearer {token}"})
        assert ok.status_code == 200
        member = mint_token(key, clerk_user_id="user_demo_member", clerk_org_id=DEMO_CLERK_ORG_ID)
        body = {"text": "hi", "pageContext": {"pathname": "/"}}
        refused = await client.post(
            "/agent/messages", json=body, headers={"authorization": f"Bearer {member}"}
        )
        assert refused.status_code == 403
