"""Secrets Manager → environment, against moto's Secrets Manager."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from spotter.aws.secrets import database_url_from_secret, load_secrets
from spotter.config import Settings, get_settings
from spotter.db.server import app_login_password, app_pool_url

FILLED = ("APP_DATABASE_URL", "DATABASE_URL", "ANTHROPIC_API_KEY", "VOYAGE_API_KEY")


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    for name in FILLED:
        monkeypatch.delenv(name, raising=False)
    with mock_aws():
        yield boto3.client("secretsmanager", region_name="eu-west-1")
    # load_secrets wrote os.environ directly; monkeypatch only restores what it set itself.
    for name in FILLED:
        os.environ.pop(name, None)
    get_settings.cache_clear()


def _secret(client: Any, value: str) -> str:
    # Unique names: powertools caches by name across tests.
    arn: str = client.create_secret(Name=f"spotter-{uuid.uuid4().hex}", SecretString=value)["ARN"]
    return arn


def test_fills_the_environment_before_settings_are_built(
    aws: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    db_arn = _secret(aws, json.dumps({"username": "spotter_owner", "password": "p@ss/w:rd"}))
    app_arn = _secret(aws, json.dumps({"username": "spotter_app", "password": "app-pass"}))
    monkeypatch.setenv("DATABASE_SECRET_ARN", db_arn)
    monkeypatch.setenv("APP_DATABASE_SECRET_ARN", app_arn)
    monkeypatch.setenv("DATABASE_HOST", "proxy.example.internal")
    monkeypatch.setenv("ANTHROPIC_SECRET_ARN", _secret(aws, "sk-ant-test\n"))
    monkeypatch.setenv("VOYAGE_SECRET_ARN", _secret(aws, "pa-voyage-test"))

    assert load_secrets() == sorted(FILLED)
    settings = get_settings()
    assert settings.database_url == (
        "postgresql://spotter_owner:p%40ss%2Fw%3Ard@proxy.example.internal:5432/spotter"
        "?sslmode=require"
    )
    assert app_pool_url(settings) == (
        "postgresql://spotter_app:app-pass@proxy.example.internal:5432/spotter?sslmode=require"
    )
    assert app_login_password(settings) == "app-pass"
    assert os.environ["ANTHROPIC_API_KEY"] == "sk-ant-test"
    assert os.environ["VOYAGE_API_KEY"] == "pa-voyage-test"


def test_explicit_values_win_and_missing_arns_are_skipped(
    aws: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql://local/spotter")
    monkeypatch.setenv(
        "DATABASE_SECRET_ARN", "arn:aws:secretsmanager:eu-west-1:1:secret:never-read"
    )
    monkeypatch.delenv("ANTHROPIC_SECRET_ARN", raising=False)
    monkeypatch.setenv("VOYAGE_SECRET_ARN", _secret(aws, "pa-voyage-test"))
    assert load_secrets() == ["VOYAGE_API_KEY"]
    assert os.environ["DATABASE_URL"] == "postgresql://local/spotter"
    assert "ANTHROPIC_API_KEY" not in os.environ


def test_bedrock_reads_no_anthropic_key(aws: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MODEL_PROVIDER", "bedrock")
    monkeypatch.setenv("ANTHROPIC_SECRET_ARN", _secret(aws, "sk-ant-test"))
    monkeypatch.delenv("VOYAGE_SECRET_ARN", raising=False)
    monkeypatch.delenv("DATABASE_SECRET_ARN", raising=False)
    assert load_secrets() == []
    assert "ANTHROPIC_API_KEY" not in os.environ


def test_a_secret_is_fetched_once_per_container(aws: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    arn = _secret(aws, "pa-voyage-v1")
    monkeypatch.setenv("VOYAGE_SECRET_ARN", arn)
    monkeypatch.delenv("DATABASE_SECRET_ARN", raising=False)
    monkeypatch.delenv("ANTHROPIC_SECRET_ARN", raising=False)
    load_secrets()
    aws.put_secret_value(SecretId=arn, SecretString="pa-voyage-v2")
    os.environ.pop("VOYAGE_API_KEY")
    load_secrets()  # within the cache age: powertools answers without calling AWS
    assert os.environ["VOYAGE_API_KEY"] == "pa-voyage-v1"


def test_database_url_falls_back_to_the_secrets_own_host() -> None:
    secret = {"username": "u", "password": "p", "host": "db.internal", "port": 6543, "dbname": "x"}
    url = database_url_from_secret(secret, Settings(database_host=None))
    assert url == "postgresql://u:p@db.internal:6543/x?sslmode=require"
    with pytest.raises(RuntimeError, match="DATABASE_HOST"):
        database_url_from_secret({"username": "u", "password": "p"}, Settings())


def test_mcp_state_key_comes_from_its_secret(aws: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MCP_STATE_KEY", raising=False)
    for arn in ("DATABASE_SECRET_ARN", "ANTHROPIC_SECRET_ARN", "VOYAGE_SECRET_ARN"):
        monkeypatch.delenv(arn, raising=False)
    monkeypatch.setenv("MCP_STATE_SECRET_ARN", _secret(aws, "k" * 64))
    try:
        assert load_secrets() == ["MCP_STATE_KEY"]
        assert get_settings().mcp_state_key == "k" * 64
    finally:
        os.environ.pop("MCP_STATE_KEY", None)


def test_the_clerk_secret_key_comes_from_its_secret(
    aws: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CLERK_SECRET_KEY", raising=False)
    for arn in ("DATABASE_SECRET_ARN", "APP_DATABASE_SECRET_ARN", "ANTHROPIC_SECRET_ARN",
                "VOYAGE_SECRET_ARN", "MCP_STATE_SECRET_ARN"):  # fmt: skip
        monkeypatch.delenv(arn, raising=False)
    monkeypatch.setenv("CLERK_SECRET_ARN", _secret(aws, "sk_live_abc\n"))
    try:
        assert load_secrets() == ["CLERK_SECRET_KEY"]
        assert get_settings().clerk_secret_key == "sk_live_abc"
    finally:
        os.environ.pop("CLERK_SECRET_KEY", None)
