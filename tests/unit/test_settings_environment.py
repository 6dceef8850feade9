"""`Settings` reads each field from the environment variable of its name, in any case, under
what the code passes; a bad value is refused, other variables are ignored."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from spotter.config import Settings


def test_each_field_is_read_from_its_variable_in_any_case(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DB_POOL_MAX_SIZE", "3")
    monkeypatch.setenv("spotter_fake_model", "true")
    monkeypatch.setenv("Mcp_Resource_Url", "https://example.test/mcp")
    settings = Settings()
    assert settings.db_pool_max_size == 3
    assert settings.spotter_fake_model is True
    assert settings.mcp_resource_url == "https://example.test/mcp"


def test_a_value_the_code_passes_wins_over_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ENVIRONMENT", "production")
    monkeypatch.setenv("LOG_LEVEL", "DEBUG")
    settings = Settings(environment="test")
    assert settings.environment == "test"
    assert settings.log_level == "DEBUG"


def test_a_bad_value_in_the_environment_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DB_POOL_MAX_SIZE", "0")
    with pytest.raises(ValidationError, match="db_pool_max_size"):
        Settings()


def test_variables_that_name_no_field_are_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPOTTER_NOT_A_SETTING", "x")
    assert not hasattr(Settings(), "spotter_not_a_setting")
