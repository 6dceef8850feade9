"""Schemathesis against the app's own OpenAPI: every operation, bounded examples, as the owner
of a real org (so requests reach the handlers, not only the auth check), with the offline echo
model behind the streaming routes. No response may be a 5xx, and every error body has the
documented shape. Runs in `make test-slow` (and CI), not `make test`."""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import Case

from spotter.config import Settings
from spotter.http.app import create_app
from tests.support.tokens import TEST_ISSUER, TEST_PARTY, TokenFactory
from tests.support.world import create_org

pytestmark = pytest.mark.slow
EXAMPLES_PER_OPERATION = 15


@pytest.fixture(scope="module")
def fuzz_target(owner_url: str, app_url: str, tokens: TokenFactory) -> dict[str, Any]:
    app_settings = Settings(
        environment="test",
        database_url=owner_url,
        app_database_url=app_url,
        spotter_fake_model=True,
        clerk_jwt_key=tokens.public_pem,
        clerk_issuer=TEST_ISSUER,
        clerk_authorized_parties=TEST_PARTY,
    )
    org = create_org(owner_url, name="Fuzz Box")
    token = tokens.token(org["owner"].clerk_user_id, org.clerk_org_id)
    app = create_app(app_settings)
    return {"schema": schemathesis.openapi.from_asgi("/openapi.json", app), "token": token}


def test_no_operation_answers_a_server_error(fuzz_target: dict[str, Any]) -> None:
    headers = {"authorization": f"Bearer {fuzz_target['token']}"}
    failures: list[str] = []
    operations = calls = 0
    for result in fuzz_target["schema"].get_all_operations():
        operation = result.ok()
        operations += 1

        @given(case=operation.as_strategy())
        @settings(
            max_examples=EXAMPLES_PER_OPERATION,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            database=None,
        )
        def fuzz(case: Case) -> None:
            nonlocal calls
            calls += 1
            response = case.call(headers=headers)
            where = f"{case.method} {case.formatted_path}"
            if response.status_code >= 500:
                failures.append(f"{where}: {response.status_code} {response.text[:200]}")
            elif response.status_code >= 400 and "json" in response.headers.get("content-type", ""):
                body = response.json()
                if not {"code", "message", "traceId"} <= set(body):
                    failures.append(f"{where}: undocumented error shape {body}")

        fuzz()
    assert operations >= 5, "the schema lists the API's operations"
    assert calls >= operations * 2, "each operation was exercised"
    assert failures == []
