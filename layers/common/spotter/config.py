"""Settings, read once from the environment (in Lambda, the entry point fills it from secrets).

A plain pydantic model whose every field is read from the environment variable of its name, in
any case, under what the code passes: all that pydantic-settings did for us, without the ~40 ms
of CPU its import (every settings source: dotenv, CLI, cloud secret stores) added to every
function's cold start (docs/deploy.md, "Cold start").
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Environment = Literal["dev", "test", "production"]


class Settings(BaseModel):
    """Every knob Spotter reads. Names are the env vars, upper-cased (see README); a value the
    code passes wins over the environment's."""

    model_config = ConfigDict(extra="ignore", validate_default=True)

    @model_validator(mode="before")
    @classmethod
    def _from_environment(cls, values: Any) -> Any:
        if not isinstance(values, dict):
            return values
        fields = cls.model_fields
        found = {k.lower(): v for k, v in os.environ.items() if k.lower() in fields}
        return {**found, **values}

    environment: Environment = "dev"
    # Owner connection: migrations and the demo seed, never the app's.
    database_url: str | None = None
    # The app's own login, role `spotter_app` (row-level security binds it; the pool refuses any
    # other). Unset outside production: spotter_app on DATABASE_URL's server with the local
    # password, which migrating outside production sets (`db.server.app_pool_url`).
    app_database_url: str | None = None
    # One request at a time per Lambda instance: a pool needs what one request holds at once
    # (docs/deploy.md, "Connections"); `spotter dev` serves many, so its default is larger.
    db_pool_max_size: int = Field(default=10, ge=1, le=100)
    data_dir: Path = Path(".spotter")

    clerk_jwt_key: str | None = None
    clerk_jwks_url: str | None = None
    clerk_issuer: str | None = None
    # Comma-separated origins; empty means "not checked".
    clerk_authorized_parties: str = ""
    clerk_leeway_seconds: int = Field(default=5, ge=0, le=60)
    # OAuth access tokens (MCP clients): the issuer of Clerk's OAuth JWTs (default: CLERK_ISSUER),
    # and for opaque tokens Clerk's verification endpoint, called with the secret key (opaque
    # tokens are refused while CLERK_SECRET_KEY is unset).
    clerk_oauth_issuer: str | None = None
    clerk_secret_key: str | None = Field(default=None, repr=False)
    clerk_oauth_verify_url: str = "https://api.clerk.com/oauth_applications/access_tokens/verify"

    # Ambient RAG: semantic search needs Voyage; without a key it runs lexical-only.
    voyage_api_key: str | None = None
    voyage_base_url: str | None = None
    # How long a send waits for ambient RAG before going on without it (the spec's 800 ms).
    ambient_rag_budget_seconds: float = Field(default=0.8, gt=0, le=10)

    # The MCP server (spotter.mcp): its public URL (the OAuth protected-resource identifier;
    # default: the request's own origin + /mcp) and the key that seals its request state
    # (>= 32 bytes, shared by every instance; unset outside production = a per-process key).
    mcp_resource_url: str | None = None
    mcp_state_key: str | None = Field(default=None, repr=False)
    # The dashboard's approval page of a pending MCP call ({id}: its execution id); default: the
    # MCP server's own origin + /approvals/{id} (the dev console serves it there).
    mcp_approval_url: str | None = None

    # Sends per user (POST /agent/messages): at most AGENT_SEND_LIMIT in any
    # AGENT_SEND_WINDOW_SECONDS, counted in Postgres so every instance sees every send; one more
    # is 429 `rate_limited` with Retry-After. A person types far fewer: this stops a script or a
    # runaway client, the daily budget stops cost.
    agent_send_limit: int = Field(default=30, ge=1, le=10_000)
    agent_send_window_seconds: int = Field(default=60, ge=1, le=86_400)

    max_body_bytes: int = Field(default=64 * 1024, ge=1024)
    # The AI SDK chat's POST carries every message of the chat (the SDK's own body, of which
    # only the newest is read): a long conversation's tool outputs need far more room.
    chat_max_body_bytes: int = Field(default=2 * 1024 * 1024, ge=1024)
    # Origins allowed to call the API from a browser (comma-separated) when the app answers CORS
    # itself (`spotter dev`: any localhost origin when empty). On AWS the Function URLs answer
    # it, for the stack's DashboardOrigin (spotter.http.cors).
    cors_allowed_origins: str = ""
    log_level: str = "INFO"

    # The Anthropic API's client settings (MODEL_PROVIDER below chooses the API or Bedrock).
    anthropic_api_key: str | None = Field(default=None, repr=False)
    anthropic_base_url: str | None = None
    anthropic_max_retries: int = Field(default=2, ge=0, le=10)
    anthropic_timeout_seconds: float = Field(default=120.0, gt=0)
    # Bedrock's region: AWS_BEDROCK_REGION if set, else the function's own AWS_REGION.
    aws_bedrock_region: str | None = None
    aws_region: str | None = None
    # Model policy overrides (spotter.agent.cost.model_policy): the loop, and the small calls.
    spotter_loop_model: str | None = None
    spotter_fast_model: str | None = None
    # Compact a conversation whose estimated context exceeds this many tokens (also at 24
    # messages past the last summary). Clamped up to 32k and below the context window - 16k;
    # never rejected (spotter.agent.compaction.context_size.effective_threshold).
    compaction_threshold_tokens: int = 150_000
    # Dev only: with no key and no Bedrock, answer with the offline demo model (providers/demo.py);
    # `spotter dev` turns it on when no provider is configured. Refused in production.
    spotter_fake_model: bool = False

    # Observability beyond the JSON log: Sentry breadcrumbs and soft-terminal reports; PostHog
    # product analytics (sent only when ENVIRONMENT=production).
    sentry_dsn: str | None = Field(default=None, repr=False)
    posthog_api_key: str | None = Field(default=None, repr=False)
    posthog_host: str = "https://us.i.posthog.com"
    # Lambda: where `spotter.aws.secrets.load_secrets` finds credentials (Secrets Manager ARNs),
    # filled into DATABASE_URL, ANTHROPIC_API_KEY and VOYAGE_API_KEY before Settings is built.
    # The database secret holds {username, password}; host, port and name come from here.
    database_secret_arn: str | None = None
    # The app role's secret ({username, password}): fills APP_DATABASE_URL the same way.
    app_database_secret_arn: str | None = None
    database_host: str | None = None
    database_port: int = 5432
    database_name: str = "spotter"
    anthropic_secret_arn: str | None = None
    voyage_secret_arn: str | None = None
    mcp_state_secret_arn: str | None = None
    # the Clerk secret key (sk_...) for opaque OAuth tokens: the MCP function only, if used
    clerk_secret_arn: str | None = None
    # Which endpoint serves Anthropic models: the Anthropic API (key from ANTHROPIC_SECRET_ARN)
    # or Amazon Bedrock (the function role's IAM permission, no key).
    model_provider: Literal["anthropic", "bedrock"] = "anthropic"

    # Outbound email (spotter.providers.email): Amazon SES in AWS, where EMAIL_FROM_ADDRESS is a
    # verified identity; `none` (a stack without one) refuses every send, so nothing is ever
    # marked delivered that was not; dev and tests use a local sender that records.
    email_sender: Literal["local", "ses", "none"] = "local"
    email_from_address: str | None = None
    ses_configuration_set: str | None = None

    @property
    def cors_origins(self) -> frozenset[str]:
        return frozenset(o.strip() for o in self.cors_allowed_origins.split(",") if o.strip())

    @property
    def authorized_parties(self) -> frozenset[str]:
        return frozenset(p.strip() for p in self.clerk_authorized_parties.split(",") if p.strip())

    @property
    def provider_configured(self) -> bool:
        """A real model is reachable: an API key, or Bedrock (credentials from the AWS chain)."""
        return bool(self.anthropic_api_key) or self.model_provider == "bedrock"

    @property
    def uses_demo_model(self) -> bool:
        """The offline demo model answers: asked for, outside production, and no real provider.
        Stated here so the model policy (which prices calls) knows it without the model SDK."""
        return (
            self.spotter_fake_model
            and self.environment != "production"
            and not self.provider_configured
        )


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
