"""Human-in-the-loop tests: suspended conversations, resolutions, and special test-local tools.

`gate.hold` (database-only) and `gate.send` (declares external effects) both confirm, insert a
program named by their label, say so on stdout and in `STARTED`, then block until released (or
for an hour in a subprocess, which is killed instead).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import psycopg

from spotter.agent import events as ev
from spotter.auth import Caller
from spotter.db import Database
from spotter.domain import programs
from spotter.providers.fake import ScriptedModel, ToolUse, tool_reply
from spotter.tools.args import Args
from spotter.tools.catalog import ToolCatalog, load_catalog
from spotter.tools.context import ToolContext
from spotter.tools.registry import ToolRegistry
from spotter.tools.router import Router
from spotter.tools.spec import NameTarget
from tests.support.agent import conversation_id_of, deps_for, run_turn
from tests.support.world import Org

STARTED: dict[str, asyncio.Event] = {}
RELEASE: dict[str, asyncio.Event] = {}


class HoldArgs(Args):
    label: str


async def _hold(ctx: ToolContext, args: HoldArgs) -> dict[str, Any]:
    row = await programs.create_program(ctx.scope, name=args.label, description=None)
    print(f"HOLDING {args.label}", flush=True)
    if (started := STARTED.get(args.label)) is not None:
        started.set()
    release = RELEASE.get(args.label)
    if release is not None:
        await release.wait()
    else:
        await asyncio.sleep(3600)
    return {"id": str(row["id"]), "name": args.label}


class StallArgs(Args):
    label: str


async def _stall(ctx: ToolContext, args: StallArgs) -> dict[str, Any]:
    """A read that blocks: a process killed here dies during a tool's execution."""
    print(f"STALLING {args.label}", flush=True)
    await asyncio.sleep(3600)
    return {"label": args.label}


def gate_catalog() -> ToolCatalog:
    """The real catalog plus `gate.hold`, `gate.send` and the read `gate.stall`."""
    gate = Router("gate", "Test tools that block until released.")
    gate.read("stall", "Block (a read).")(_stall)
    for action, external in (("hold", False), ("send", True)):
        gate.write(
            action,
            "Write, then block.",
            confirm="always",
            target=NameTarget(("label",)),
            external_effects=external,
        )(_hold)
    return ToolCatalog([*load_catalog().routers, gate])


_GATE = gate_catalog()


def gate_registry(caller: Caller) -> ToolRegistry:
    return ToolRegistry(_GATE, caller.role, day_grain=caller.day_grain_programming)


async def collect(events: AsyncIterator[ev.AgentEvent]) -> list[ev.AgentEvent]:
    return [event async for event in events]


def add_program(url: str, org: Org, name: str) -> uuid.UUID:
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "INSERT INTO programs (organization_id, name) VALUES (%s, %s) RETURNING id",
            (org.id, name),
        ).fetchone()
    assert row is not None
    return uuid.UUID(str(row[0]))


def archive(program_id: uuid.UUID, tool_use_id: str) -> ToolUse:
    return ToolUse(
        "programs", {"action": "archive", "args": {"programId": str(program_id)}}, id=tool_use_id
    )


def create(name: str, tool_use_id: str) -> ToolUse:
    return ToolUse("programs", {"action": "create", "args": {"name": name}}, id=tool_use_id)


def ask(tool_use_id: str, *labels: str) -> ToolUse:
    """A picker of kind `other`: ids that name no record, labels shown as the model wrote them
    (a record's candidates are named by the server: `tools.pickers`)."""
    candidates = [{"id": f"id_{label}", "label": label} for label in labels]
    args = {"kind": "other", "prompt": "Which one?", "candidates": candidates}
    return ToolUse("read", {"action": "ask_user_to_pick", "args": args}, id=tool_use_id)


def stall(label: str, tool_use_id: str) -> ToolUse:
    return ToolUse("gate", {"action": "stall", "args": {"label": label}}, id=tool_use_id)


def hold(label: str, tool_use_id: str, *, external: bool = False) -> ToolUse:
    action = "send" if external else "hold"
    return ToolUse("gate", {"action": action, "args": {"label": label}}, id=tool_use_id)


async def suspend(
    db: Database, caller: Caller, model: ScriptedModel, *calls: ToolUse, gate: bool = False
) -> tuple[uuid.UUID, list[ev.AgentEvent]]:
    """A run whose one model turn asks for `calls`; returns the conversation and its events."""
    model.script.insert(0, tool_reply(*calls))
    deps = deps_for(db, model, registry_for=gate_registry) if gate else deps_for(db, model)
    events = await run_turn(deps, caller, "please")
    assert isinstance(events[-1], ev.Done)
    return uuid.UUID(conversation_id_of(events)), events


def audit_count(url: str, action: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT count(*) FROM audit_logs WHERE action = %s", (action,)
        ).fetchone()
    assert row is not None
    return int(row[0])


def program_status(url: str, program_id: uuid.UUID) -> str:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT status FROM programs WHERE id = %s", (program_id,)).fetchone()
    assert row is not None
    return str(row[0])


def program_names(url: str) -> list[str]:
    with psycopg.connect(url) as conn:
        return [r[0] for r in conn.execute("SELECT name FROM programs ORDER BY name").fetchall()]


def of_type(events: list[ev.AgentEvent], kind: type[Any]) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]
