"""Settings, read once from the environment (in Lambda, the entry point fills it from secrets)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

Environment = Literal["dev", "test", "production"]


class Settings(BaseSettings):
    """Every knob Spotter reads. Names are the env vars, upper-cased (see README)."""

    model_config = SettingsConfigDict(env_prefix="", case_sensitive=False, extra="ignore")

    environment: Environment = "dev"
    # Owner connection: migrations and the demo seed. The app itself also connects with it
    # unless APP_DATABASE_URL is set, and then drops to the non-superuser role `spotter_app`
    # (SET ROLE) so row-level security applies.
    database_url: str | None = None
    app_database_url: str | None = None
    db_pool_max_size: int = Field(default=10, ge=1, le=100)
    data_dir: Path = Path(".spotter")

    clerk_jwt_key: str | None = None
    clerk_jwks_url: str | None = None
    clerk_issuer: str | None = None
    # Comma-separated origins; empty means "not checked".
    clerk_authorized_parties: str = ""
    clerk_leeway_seconds: int = Field(default=5, ge=0, le=60)

    max_body_bytes: int = Field(default=64 * 1024, ge=1024)
    log_level: str = "INFO"

    # Lambda: where `spotter.aws.secrets.load_secrets` finds credentials (Secrets Manager ARNs),
    # filled into DATABASE_URL, ANTHROPIC_API_KEY and VOYAGE_API_KEY before Settings is built.
    # The database secret holds {username, password}; host, port and name come from here.
    database_secret_arn: str | None = None
    database_host: str | None = None
    database_port: int = 5432
    database_name: str = "spotter"
    anthropic_secret_arn: str | None = None
    voyage_secret_arn: str | None = None
    # Which endpoint serves Anthropic models: the Anthropic API (key from ANTHROPIC_SECRET_ARN)
    # or Amazon Bedrock (the function role's IAM permission, no key).
    model_provider: Literal["anthropic", "bedrock"] = "anthropic"

    @property
    def authorized_parties(self) -> frozenset[str]:
        return frozenset(p.strip() for p in self.clerk_authorized_parties.split(",") if p.strip())


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
