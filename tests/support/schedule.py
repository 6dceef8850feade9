"""Helpers for schedule tests: calls that must succeed, local dates, sessions, undo."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any
from uuid import UUID
from zoneinfo import ZoneInfo

import psycopg

from spotter.auth.caller import Caller
from spotter.db import Database
from spotter.tools.calls import ToolOutcome
from spotter.tools.catalog import load_catalog
from spotter.tools.context import ToolContext
from spotter.tools.invoke import invoke_tool
from spotter.tools.registry import registry_for_caller
from spotter.tools.runner import execute, resolve_call

TZ = ZoneInfo("Asia/Jerusalem")  # the test org's zone (tests/support/world.py)


def today(offset: int = 0) -> date:
    return datetime.now(TZ).date() + timedelta(days=offset)


async def call(
    db: Database,
    caller: Caller,
    router: str,
    action: str,
    args: dict[str, Any],
    *,
    now: datetime | None = None,
) -> ToolOutcome:
    return await invoke_tool(db, caller, router, {"action": action, "args": args}, now=now)


async def ok(
    db: Database,
    caller: Caller,
    router: str,
    action: str,
    args: dict[str, Any],
    *,
    now: datetime | None = None,
) -> dict[str, Any]:
    outcome = await call(db, caller, router, action, args, now=now)
    assert outcome.ok, outcome.error
    output: dict[str, Any] = outcome.output
    return output


async def fails(
    db: Database,
    caller: Caller,
    router: str,
    action: str,
    args: dict[str, Any],
    *,
    now: datetime | None = None,
) -> str:
    """The error code of a call that must fail."""
    outcome = await call(db, caller, router, action, args, now=now)
    assert not outcome.ok and outcome.error is not None, outcome.output
    return str(outcome.error.code)


async def class_type(
    db: Database, owner: Caller, name: str = "CrossFit", capacity: int | None = None
) -> str:
    args: dict[str, Any] = {"name": name}
    if capacity is not None:
        args["capacity"] = capacity
    return str((await ok(db, owner, "class_types", "create", args))["id"])


async def session(
    db: Database,
    owner: Caller,
    class_type_id: str,
    day: date,
    start: str = "07:00",
    *,
    publish: bool = True,
    **extra: Any,
) -> str:
    created = await ok(
        db,
        owner,
        "class_sessions",
        "create",
        {"classTypeId": class_type_id, "slot": {"day": day.isoformat(), "start": start}, **extra},
    )
    if publish:
        await ok(db, owner, "class_sessions", "publish", {"sessionIds": [created["id"]]})
    return str(created["id"])


async def undo(
    db: Database, caller: Caller, router: str, action: str, original: ToolOutcome
) -> ToolOutcome:
    """Run the declared inverse of a succeeded call, as the undo endpoint does."""
    spec = load_catalog().specs[f"{router}.{action}"]
    assert spec.inverse is not None, spec.name
    call_input = {"action": spec.inverse.action, "args": spec.inverse.build_input(original.output)}
    resolved = resolve_call(registry_for_caller(caller), spec.inverse.router, call_input)
    async with db.org_tx(caller.org_id) as conn:
        return await execute(
            ToolContext(caller, conn, datetime.now(UTC)),
            resolved,
            reverses_audit_log_id=original.audit_log_id,
        )


def add_workout(owner_url: str, org_id: UUID, title: str) -> str:
    """A workout row as the workouts router would leave it (that router is not ours to call)."""
    with psycopg.connect(owner_url) as conn:
        row = conn.execute(
            "INSERT INTO workouts (organization_id, title) VALUES (%s, %s) RETURNING id",
            (org_id, title),
        ).fetchone()
    assert row is not None
    return str(row[0])


def audit_link(owner_url: str, audit_log_id: UUID | None) -> tuple[str, UUID | None]:
    """(action label, reversed row) of an audit row."""
    with psycopg.connect(owner_url) as conn:
        row = conn.execute(
            "SELECT action, reverses_audit_log_id FROM audit_logs WHERE id = %s", (audit_log_id,)
        ).fetchone()
    assert row is not None
    return row[0], row[1]
