"""Both Clerk session-token claim formats read to the same caller facts."""

from __future__ import annotations

import pytest

from spotter.auth.clerk import read_claims
from spotter.errors import AuthError


def test_v2_claims_read_org_from_o_object() -> None:
    claims = read_claims(
        {"sub": "user_1", "v": 2, "o": {"id": "org_1", "rol": "admin"}, "sid": "s"}
    )
    assert (claims.clerk_user_id, claims.clerk_org_id, claims.token_org_role) == (
        "user_1",
        "org_1",
        "admin",
    )


def test_v1_claims_read_org_id_and_strip_role_prefix() -> None:
    claims = read_claims({"sub": "user_1", "org_id": "org_9", "org_role": "org:member"})
    assert (claims.clerk_org_id, claims.token_org_role) == ("org_9", "member")


def test_claims_without_org_have_no_org() -> None:
    assert read_claims({"sub": "user_1"}).clerk_org_id is None


def test_claims_without_subject_are_invalid() -> None:
    with pytest.raises(AuthError) as info:
        read_claims({"o": {"id": "org_1"}})
    assert info.value.code == "invalid_token"
