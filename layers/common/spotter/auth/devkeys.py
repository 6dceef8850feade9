"""A local RSA key for development: `spotter dev-token` signs with it and `spotter dev` trusts it.

There is no bypass switch: the dev server verifies dev tokens exactly as it verifies Clerk's,
it is just configured with this key's public half as CLERK_JWT_KEY.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

DEV_ISSUER = "https://spotter.dev.local"
DEV_AUTHORIZED_PARTY = "http://localhost:3000"


def _key_path(data_dir: Path) -> Path:
    return data_dir / "dev-jwt-key.pem"


def ensure_dev_key(data_dir: Path) -> rsa.RSAPrivateKey:
    path = _key_path(data_dir)
    if path.exists():
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
        assert isinstance(key, rsa.RSAPrivateKey)
        return key
    data_dir.mkdir(parents=True, exist_ok=True)
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    path.chmod(0o600)
    return key


def public_pem(key: rsa.RSAPrivateKey) -> str:
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )


def mint_token(
    key: rsa.RSAPrivateKey,
    *,
    clerk_user_id: str,
    clerk_org_id: str,
    org_role: str = "admin",
    ttl_seconds: int = 12 * 3600,
) -> str:
    """A session token in Clerk's v2 claim format."""
    now = int(time.time())
    payload = {
        "sub": clerk_user_id,
        "o": {"id": clerk_org_id, "rol": org_role},
        "v": 2,
        "iss": DEV_ISSUER,
        "azp": DEV_AUTHORIZED_PARTY,
        "sid": f"sess_dev_{uuid.uuid4().hex[:12]}",
        "iat": now,
        "nbf": now - 5,
        "exp": now + ttl_seconds,
    }
    return jwt.encode(payload, key, algorithm="RS256", headers={"kid": "spotter-dev"})
