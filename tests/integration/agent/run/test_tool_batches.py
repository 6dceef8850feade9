"""Tool batches: reads side by side (≤ 4 in flight) but settled in tool_use order; others in turn."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from spotter.agent import events as ev
from spotter.auth import Caller
from spotter.db import Database
from spotter.providers.fake import Reply, ScriptedModel, Text, ToolUse, tool_reply
from spotter.tools.args import Args
from spotter.tools.catalog import ToolCatalog
from spotter.tools.context import ToolContext
from spotter.tools.registry import ToolRegistry
from spotter.tools.router import Router
from spotter.tools.spec import Inverse, Output
from tests.support.agent import conversation_id_of, deps_for, kinds, run_turn, stored_executions
from tests.support.callers import caller_for
from tests.support.world import Org


class PickCandidateArgs(Args):
    id: str
    label: str


class PickArgs(Args):
    kind: str
    prompt: str
    candidates: list[PickCandidateArgs]


class SlowArgs(Args):
    name: str
    seconds: float


class Probe:
    """Records when each handler runs, and how many run at once."""

    def __init__(self) -> None:
        self.in_flight = 0
        self.max_in_flight = 0
        self.spans: dict[str, tuple[float, float]] = {}

    async def run(self, name: str, seconds: float) -> dict[str, Any]:
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        start = time.perf_counter()
        await asyncio.sleep(seconds)
        self.spans[name] = (start, time.perf_counter())
        self.in_flight -= 1
        return {"name": name}


def _catalog(probe: Probe) -> ToolCatalog:
    slow = Router("slow", "Slow test tools.")

    @slow.read("read", "A slow read.")
    async def slow_read(ctx: ToolContext, args: SlowArgs) -> dict[str, Any]:
        return await probe.run(args.name, args.seconds)

    @slow.write(
        "write",
        "A slow write.",
        inverse=Inverse("read", SlowOut, lambda out: SlowArgs(name=out.name, seconds=0)),
    )
    async def slow_write(ctx: ToolContext, args: SlowArgs) -> SlowOut:
        return SlowOut.model_validate(
            {**(await probe.run(args.name, args.seconds)), "id": args.name}
        )

    @slow.read("pick", "Ask the user.", kind="user_picker")
    async def pick(ctx: ToolContext, args: PickArgs) -> dict[str, Any]:
        raise AssertionError("a picker handler never runs")

    return ToolCatalog([slow])


class SlowOut(Output):
    name: str


def _call(action: str, name: str, seconds: float) -> ToolUse:
    return ToolUse("slow", {"action": action, "args": {"name": name, "seconds": seconds}}, id=name)


def _registry(probe: Probe) -> Any:
    catalog = _catalog(probe)
    return lambda caller: ToolRegistry(catalog, caller.role, day_grain=False)


async def _owner(db: Database, org: Org) -> Caller:
    return await caller_for(db, org, "owner")


async def test_reads_run_concurrently_but_settle_in_tool_use_order(
    db: Database, org: Org, clean_db: str
) -> None:
    probe = Probe()
    # the first read is the slowest: later ones finish first, yet settle after it
    calls = [_call("read", "r1", 0.3), _call("read", "r2", 0.05), _call("read", "r3", 0.05)]
    model = ScriptedModel([tool_reply(*calls), Reply([Text("read all three")])])
    deps = deps_for(db, model, registry_for=_registry(probe))
    events = await run_turn(deps, await _owner(db, org), "read")

    assert probe.max_in_flight == 3
    assert probe.spans["r3"][0] < probe.spans["r1"][1], "the handlers overlapped"
    assert probe.spans["r2"][1] < probe.spans["r1"][1], "r2 finished before r1..."
    completed = [e.tool_use_id for e in events if isinstance(e, ev.ToolCompleted)]
    assert completed == ["r1", "r2", "r3"], "...but settled after it"
    started_ids = [e.tool_use_id for e in events if isinstance(e, ev.ToolStarted)]
    assert sorted(started_ids) == ["r1", "r2", "r3"]
    first_completed = next(i for i, e in enumerate(events) if isinstance(e, ev.ToolCompleted))
    assert all(
        i < first_completed for i, e in enumerate(events) if isinstance(e, ev.ToolStarted)
    ), "all three had started before the first settled"
    results = model.requests[1]["messages"][-1]["content"]
    assert [r["tool_use_id"] for r in results] == ["r1", "r2", "r3"]
    rows = stored_executions(clean_db, conversation_id_of(events))
    assert [(r["tool_use_id"], r["position"], r["status"]) for r in rows] == [
        ("r1", 0, "succeeded"), ("r2", 1, "succeeded"), ("r3", 2, "succeeded"),
    ]  # fmt: skip


async def test_at_most_four_reads_in_flight(db: Database, org: Org) -> None:
    probe = Probe()
    calls = [_call("read", f"r{i}", 0.05) for i in range(7)]
    model = ScriptedModel([tool_reply(*calls), Reply([Text("ok")])])
    events = await run_turn(
        deps_for(db, model, registry_for=_registry(probe)), await _owner(db, org)
    )
    assert probe.max_in_flight == 4
    assert [e.tool_use_id for e in events if isinstance(e, ev.ToolCompleted)] == [
        f"r{i}" for i in range(7)
    ]


async def test_a_batch_with_a_write_runs_one_call_at_a_time(db: Database, org: Org) -> None:
    probe = Probe()
    calls = [_call("read", "r1", 0.05), _call("write", "w1", 0.05), _call("read", "r2", 0.05)]
    model = ScriptedModel([tool_reply(*calls), Reply([Text("ok")])])
    events = await run_turn(
        deps_for(db, model, registry_for=_registry(probe)), await _owner(db, org)
    )
    assert probe.max_in_flight == 1
    tools = [
        (e.type, e.tool_use_id) for e in events if isinstance(e, ev.ToolStarted | ev.ToolCompleted)
    ]
    assert tools == [
        ("tool_started", "r1"), ("tool_completed", "r1"),
        ("tool_started", "w1"), ("tool_completed", "w1"),
        ("tool_started", "r2"), ("tool_completed", "r2"),
    ]  # fmt: skip
    write = next(e for e in events if isinstance(e, ev.ToolCompleted) and e.tool_use_id == "w1")
    assert write.inverse_available
    read = next(e for e in events if isinstance(e, ev.ToolCompleted) and e.tool_use_id == "r1")
    assert not read.inverse_available


async def test_a_picker_suspends_the_run_and_never_runs(
    db: Database, org: Org, clean_db: str
) -> None:
    probe = Probe()
    pick = ToolUse(
        "slow",
        {
            "action": "pick",
            "args": {
                "kind": "other",  # ids naming no record: the model's labels are shown
                "prompt": "Which Saar?",
                "candidates": [{"id": "a", "label": "Saar A"}, {"id": "b", "label": "Saar B"}],
            },
        },
        id="p1",
    )
    model = ScriptedModel([tool_reply(_call("read", "r1", 0), pick, _call("write", "w1", 0))])
    events = await run_turn(
        deps_for(db, model, registry_for=_registry(probe)), await _owner(db, org)
    )
    assert kinds(events)[-4:] == [
        "tool_started",
        "tool_completed",
        "disambiguation_pending",
        "done",
    ]
    [asked] = [e for e in events if isinstance(e, ev.DisambiguationPending)]
    assert (asked.prompt, [c.label for c in asked.candidates]) == (
        "Which Saar?",
        ["Saar A", "Saar B"],
    )
    rows = stored_executions(clean_db, conversation_id_of(events))
    assert [(r["tool_use_id"], r["status"]) for r in rows] == [
        ("r1", "succeeded"), ("p1", "pending"), ("w1", "pending"),
    ]  # fmt: skip
    assert "w1" not in probe.spans, "a held sibling waits for the pick"
