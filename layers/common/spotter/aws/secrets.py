"""Secrets Manager → environment, once per container, before `Settings` is built.

Lambda keeps no credentials in its configuration: the template passes secret ARNs, and each entry
point calls `load_secrets()` first. Values land in the environment variables the rest of the code
(and the Anthropic / Voyage SDKs) already read, so dev, tests and Lambda share one config path.
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection, Mapping
from typing import Any
from urllib.parse import quote

from spotter.config import Settings, get_settings

# Secrets rotate rarely; a container re-reads after this many seconds at most (powertools cache).
SECRET_MAX_AGE_SECONDS = 900


def _fetch(arn: str) -> str:
    # Imported here: powertools Parameters pulls in boto3, which only Lambda needs.
    from aws_lambda_powertools.utilities import parameters

    value = parameters.get_secret(arn, max_age=SECRET_MAX_AGE_SECONDS)
    if isinstance(value, bytes):
        return value.decode()
    return str(value)


def database_url_from_secret(secret: Mapping[str, Any], settings: Settings) -> str:
    """A URL from a database secret ({username, password}[, host, port, dbname]): the owner's
    (the cluster's managed master secret) or the app role's.

    Host, port and name in the settings win: the app's functions reach the RDS Proxy endpoint,
    the migration the cluster endpoint (its runner holds a session-level advisory lock).
    """
    host = settings.database_host or secret.get("host")
    if not host:
        raise RuntimeError("DATABASE_HOST is not set and the database secret names no host")
    port = settings.database_port if settings.database_host else secret.get("port", 5432)
    name = settings.database_name if settings.database_host else secret.get("dbname", "spotter")
    user = quote(str(secret["username"]), safe="")
    password = quote(str(secret["password"]), safe="")
    return f"postgresql://{user}:{password}@{host}:{port}/{name}?sslmode=require"


def load_secrets(
    settings: Settings | None = None, *, only: Collection[str] | None = None
) -> list[str]:
    """Fill DATABASE_URL, APP_DATABASE_URL, ANTHROPIC_API_KEY, VOYAGE_API_KEY, MCP_STATE_KEY and
    CLERK_SECRET_KEY from their secrets (or only the variables named in `only`).

    A variable already set is left alone (an explicit value beats a secret, and a second call
    reads nothing twice), and a missing ARN means "not used here". Returns the names it set.
    Clears the settings cache, so the next `get_settings()` sees the values.
    """
    settings = settings or Settings()
    filled: dict[str, str] = {}
    wanted = set(only) if only is not None else None
    urls = {"DATABASE_URL": settings.database_secret_arn,
            "APP_DATABASE_URL": settings.app_database_secret_arn}  # fmt: skip
    for env_name, arn in urls.items():
        if arn and not os.environ.get(env_name) and (wanted is None or env_name in wanted):
            filled[env_name] = database_url_from_secret(json.loads(_fetch(arn)), settings)
    keys = {
        # Bedrock authenticates with the function's role; no Anthropic key is read.
        "ANTHROPIC_API_KEY": None
        if settings.model_provider == "bedrock"
        else settings.anthropic_secret_arn,
        "VOYAGE_API_KEY": settings.voyage_secret_arn,
        "MCP_STATE_KEY": settings.mcp_state_secret_arn,
        "CLERK_SECRET_KEY": settings.clerk_secret_arn,
    }
    for env_name, arn in keys.items():
        if arn and not os.environ.get(env_name) and (wanted is None or env_name in wanted):
            filled[env_name] = _fetch(arn).strip()
    os.environ.update(filled)
    get_settings.cache_clear()
    return sorted(filled)
