"""Session tokens for tests, signed with a test key the app under test trusts."""

from __future__ import annotations

import time
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa

from spotter.auth.devkeys import public_pem

TEST_ISSUER = "https://clerk.test.spotter"
TEST_PARTY = "https://dashboard.test.spotter"


class TokenFactory:
    def __init__(self) -> None:
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.public_pem = public_pem(self.key)

    def claims(self, clerk_user_id: str, clerk_org_id: str | None, **extra: Any) -> dict[str, Any]:
        now = int(time.time())
        claims: dict[str, Any] = {
            "sub": clerk_user_id,
            "iss": TEST_ISSUER,
            "azp": TEST_PARTY,
            "iat": now,
            "nbf": now - 1,
            "exp": now + 600,
            "v": 2,
            "sid": "sess_test",
        }
        if clerk_org_id is not None:
            claims["o"] = {"id": clerk_org_id, "rol": "admin"}
        claims.update(extra)
        return claims

    def sign(
        self,
        claims: dict[str, Any],
        key: Any = None,
        algorithm: str = "RS256",
        headers: dict[str, Any] | None = None,
    ) -> str:
        return jwt.encode(
            claims, key if key is not None else self.key, algorithm=algorithm, headers=headers
        )

    def token(self, clerk_user_id: str, clerk_org_id: str | None, **extra: Any) -> str:
        return self.sign(self.claims(clerk_user_id, clerk_org_id, **extra))
