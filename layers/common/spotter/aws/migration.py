"""The schema-migration custom resource: CloudFormation runs it on every deploy that changes the
layer (the resource's `LayerVersion` property), before the functions are updated.

Create and Update apply pending migrations (`migrate` is idempotent and takes an advisory lock)
as the cluster's owner, and give the app role the password in its own secret;
Delete is a no-op success, since a stack deletion must never drop data. Whatever happens, the
handler answers CloudFormation: a custom resource that never answers hangs the stack for an hour.
"""

from __future__ import annotations

import asyncio
import json
import urllib.request
from typing import Any

from spotter.aws.secrets import load_secrets
from spotter.config import get_settings
from spotter.db.migrate import migrate
from spotter.db.server import app_login_password
from spotter.observability import log_event

# Constant, so an Update never looks like a replacement (which would make CloudFormation send a
# Delete for the "old" resource).
PHYSICAL_RESOURCE_ID = "spotter-schema"
_REASON_LIMIT = 400


def _apply() -> list[str]:
    load_secrets()
    settings = get_settings()
    if not settings.database_url:
        raise RuntimeError("DATABASE_URL is not set and DATABASE_SECRET_ARN gave none")
    # the app role's login: its password from its own secret, set on every deploy
    return asyncio.run(migrate(settings.database_url, app_password=app_login_password(settings)))


def send_response(
    event: dict[str, Any], status: str, reason: str, data: dict[str, str] | None = None
) -> None:
    body = json.dumps(
        {
            "Status": status,
            "Reason": reason,
            "PhysicalResourceId": event.get("PhysicalResourceId", PHYSICAL_RESOURCE_ID),
            "StackId": event["StackId"],
            "RequestId": event["RequestId"],
            "LogicalResourceId": event["LogicalResourceId"],
            "NoEcho": False,
            "Data": data or {},
        }
    ).encode()
    # The ResponseURL is a pre-signed S3 URL: it must get no content type at all.
    request = urllib.request.Request(
        event["ResponseURL"],
        data=body,
        method="PUT",
        headers={"content-type": "", "content-length": str(len(body))},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        log_event("migration.responded", status=status, http_status=answer.status)


def handler(event: dict[str, Any], context: Any) -> None:
    request_type = event.get("RequestType")
    status, reason, data = "SUCCESS", "", {}
    try:
        if request_type in ("Create", "Update"):
            applied = _apply()
            data = {"Applied": ",".join(applied) or "none"}
            reason = f"applied {len(applied)} migration(s)"
        else:
            reason = "delete: the schema is kept"
        log_event("migration.done", request_type=request_type, reason=reason)
    except Exception as exc:
        # The reason reaches the stack events: the error class and its text, never a secret
        # (psycopg's messages name host and user, not the password).
        status = "FAILED"
        reason = f"{type(exc).__name__}: {exc}"[:_REASON_LIMIT]
        log_event("migration.failed", level="exception", error=type(exc).__name__)
    stream = getattr(context, "log_stream_name", None)
    if stream:
        reason = f"{reason} (log stream {stream})"
    send_response(event, status, reason, data)
