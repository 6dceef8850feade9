"""What a turn costs us, early and late in one conversation: time by where it goes, SQL round
trips, bytes written.

    .venv/bin/python bench/turn_overhead.py [--turns 100] [--runs 3] [--json report.json]

Runs the real orchestrator (`spotter.agent.run.send_message`) against PostgreSQL (DATABASE_URL,
else a throwaway embedded server) with the scripted fake model answering instantly through the
real `anthropic` SDK. Two kinds of turn, each as one conversation of `--turns` turns: a
plain-text turn, and a turn whose reply calls three read tools at once. Each figure is the
median over turns 1–10 and over the last ten turns (91–100), and their ratio; with `--runs`,
the median of the runs' medians.

Every conversation is run three times, each pass measuring one thing, after a warm-up
conversation of its own (process caches, the pool's connections, prepared statements):

- time: end to end per turn (`send_message` called until its last event), nothing patched;
- split: the same with the model client, the fake model server and the database timed
  (bench/turn_clock.py); own time = end to end − model client − fake server − database;
- wire: the pool reaches Postgres through a counting proxy (bench/wire_counter.py): SQL round
  trips per turn, counted on the wire; commits per turn, the transactions that wrote (each is
  assigned a transaction id, read-only ones none: the ids assigned between before and after the
  turn, from pg_current_snapshot()'s xmax; a subtransaction that writes would count too, and
  none does in these turns). A probe connection of its own reads, between turns, the
  WAL the turn wrote (pg_current_wal_insert_lsn before and after) and the rows it left: the
  pg_column_size of the live ai_messages / ai_tool_executions / ai_run_events / ai_usage_daily
  rows written by the turn's transactions (xmin at or after the turn's first transaction id).
  A statement trigger on ai_messages counts every UPDATE, DELETE or TRUNCATE of history.

The run's JSON log lines are written as in production, to /dev/null instead of stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import platform
import statistics
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
from bench_support import bench_server, seed_owner
from turn_clock import TurnClock
from wire_counter import RoundTripProxy, self_check

from spotter.agent.run import SendMessage, send_message
from spotter.agent.state import AgentDeps
from spotter.auth import resolve_caller
from spotter.auth.clerk import SessionClaims
from spotter.config import Settings
from spotter.db import Database
from spotter.db.migrate import migrate
from spotter.db.server import LOCAL_APP_PASSWORD, app_login_url, ensure_database
from spotter.observability import logger
from spotter.providers.fake import Reply, ScriptedModel, Text, ToolUse, tool_reply

WINDOW = 10
WARM_UP_TURNS = 10
TIME_FIGURES = ("e2e_ms", "split_e2e_ms", "model_ms", "fake_ms", "db_ms", "own_ms")
# the tables whose rows make a turn's stored record (the usage row is rewritten per turn)
ROW_TABLES = ("ai_messages", "ai_tool_executions", "ai_run_events", "ai_usage_daily")
WIRE_FIGURES = (
    "round_trips", "commits", "wal_bytes", "row_bytes", *(f"rows:{t}" for t in ROW_TABLES),
    "rewrites",
)  # fmt: skip
FIGURES = TIME_FIGURES + WIRE_FIGURES
# issue 15's aims: end to end and round trips per kind; turns 91–100 within 1.1× of 1–10;
# issue 22's: commits per kind (docs/performance.md: what each commit is, each fold's durability)
AIMS: dict[str, dict[str, float]] = {
    "plain": {"e2e_ms": 6, "round_trips": 8, "commits": 2},
    "three_reads": {"e2e_ms": 12, "round_trips": 16, "commits": 3},
}
FLAT_RATIO = 1.1

_REWRITE_TRIGGER = """
CREATE SEQUENCE IF NOT EXISTS public.bench_history_rewrites;
GRANT USAGE ON SEQUENCE public.bench_history_rewrites TO spotter_app;
CREATE OR REPLACE FUNCTION public.bench_note_history_rewrite() RETURNS trigger
  LANGUAGE plpgsql
  AS $$ BEGIN PERFORM nextval('public.bench_history_rewrites'); RETURN NULL; END $$;
CREATE OR REPLACE TRIGGER bench_history_rewrite
  BEFORE UPDATE OR DELETE OR TRUNCATE ON ai_messages
  FOR EACH STATEMENT EXECUTE FUNCTION public.bench_note_history_rewrite();
"""
_DROP_REWRITE_TRIGGER = """
DROP TRIGGER IF EXISTS bench_history_rewrite ON ai_messages;
DROP FUNCTION IF EXISTS public.bench_note_history_rewrite();
DROP SEQUENCE IF EXISTS public.bench_history_rewrites;
"""


def _plain() -> list[Reply]:
    return [Reply([Text("Sure.")])]


def _three_reads() -> list[Reply]:
    calls = [ToolUse("programs", {"action": "list", "args": {}}) for _ in range(3)]
    return [tool_reply(*calls), Reply([Text("Done.")])]


KINDS: dict[str, Callable[[], list[Reply]]] = {"plain": _plain, "three_reads": _three_reads}


@dataclass
class Org:
    org_id: uuid.UUID
    clerk_org: str
    clerk_user: str


@dataclass
class Probe:
    """A connection of the benchmark's own (never the pool's): what a turn wrote."""

    conn: psycopg.Connection[Any]
    org_id: uuid.UUID
    lsn: str = "0/0"
    first_xid: int = 0
    rewrites: int = 0

    def before_turn(self) -> None:
        row = self.conn.execute(
            "SELECT pg_current_wal_insert_lsn()::text,"
            " pg_snapshot_xmax(pg_current_snapshot())::text::bigint % 4294967296"
        ).fetchone()
        assert row is not None
        self.lsn, self.first_xid = row
        self.rewrites = self._rewrites()

    def after_turn(self) -> dict[str, float]:
        # the WAL first, before this probe's own reads can set a hint bit
        row = self.conn.execute(
            "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), %s::pg_lsn),"
            " pg_snapshot_xmax(pg_current_snapshot())::text::bigint %% 4294967296",
            (self.lsn,),
        ).fetchone()
        assert row is not None
        # a transaction id is assigned to each transaction that writes, and only to those
        # (this probe's reads take none): the turn's commits that reach the WAL's fsync
        commits = (int(row[1]) - self.first_xid) % 4294967296
        per_table: dict[str, float] = {}
        for table in ROW_TABLES:
            size = self.conn.execute(
                f"SELECT coalesce(sum(pg_column_size(t.*)), 0) FROM {table} t"
                " WHERE t.organization_id = %s AND t.xmin::text::bigint >= %s",
                (self.org_id, self.first_xid),
            ).fetchone()
            assert size is not None
            per_table[f"rows:{table}"] = float(size[0])
        return {
            "commits": float(commits),
            "wal_bytes": float(row[0]),
            "row_bytes": sum(per_table.values()),
            **per_table,
            "rewrites": float(self._rewrites() - self.rewrites),
        }

    def _rewrites(self) -> int:
        return history_rewrites(self.conn)


def install_rewrite_trigger(owner_url: str) -> None:
    with psycopg.connect(owner_url, autocommit=True) as conn:
        conn.execute(_REWRITE_TRIGGER)


def drop_rewrite_trigger(owner_url: str) -> None:
    with psycopg.connect(owner_url, autocommit=True) as conn:
        conn.execute(_DROP_REWRITE_TRIGGER)


def history_rewrites(conn: psycopg.Connection[Any]) -> int:
    """Statements that updated, deleted or truncated ai_messages since the trigger went in."""
    row = conn.execute(
        "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM public.bench_history_rewrites"
    ).fetchone()
    assert row is not None
    return int(row[0])


@dataclass
class Turn:
    figures: dict[str, float]
    compacted: bool


@dataclass
class KindReport:
    """Medians of one kind of turn: over turns 1–10 (`early`) and the last ten (`late`)."""

    early: dict[str, float]
    late: dict[str, float]
    compacted_early: int
    compacted_late: int

    def ratio(self, figure: str) -> float | None:
        early = self.early[figure]
        return self.late[figure] / early if early else None


@dataclass
class Report:
    machine: str
    turns: int
    runs: int
    kinds: dict[str, KindReport]
    counter_check: dict[str, int]
    per_run: list[dict[str, KindReport]] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        def kind(k: KindReport) -> dict[str, Any]:
            ratios = {f: k.ratio(f) for f in FIGURES}
            return {**k.__dict__, "ratio": ratios}

        return {
            "machine": self.machine,
            "turns": self.turns,
            "runs": self.runs,
            "counter_check": self.counter_check,
            "kinds": {name: kind(k) for name, k in self.kinds.items()},
            "per_run": [{n: kind(k) for n, k in run.items()} for run in self.per_run],
        }


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (
        f"{cpu}, {os.cpu_count()} cores ({usable} usable), load {os.getloadavg()[0]:.1f};"
        f" {platform.python_implementation()} {platform.python_version()}; {platform.platform()}"
    )


@contextmanager
def logs_to_devnull() -> Iterator[None]:
    """The run's JSON log lines are formatted and written as in production (the work stays in
    the measured time), to /dev/null rather than the terminal."""
    handler = logger().registered_handler
    assert isinstance(handler, logging.StreamHandler)
    with open(os.devnull, "w") as sink:
        previous = handler.setStream(sink)
        try:
            yield
        finally:
            handler.setStream(previous)


def _lane_of(body: dict[str, Any]) -> str | None:
    # side calls (title, compaction: a plain-string system; the quick router: one block; the
    # loop has two) answer from a side lane; the router's answer declines
    return None if len(body["system"]) == 2 else "side"


class Conversation:
    def __init__(self, db: Database, caller: Any, steps: Callable[[], list[Reply]]) -> None:
        self.model = ScriptedModel(
            lane_of=_lane_of, lane_default=lambda lane, body: Reply([Text("Side answer")])
        )
        self.deps = AgentDeps(
            db=db, client=self.model.client(), settings=Settings(environment="test")
        )
        self.caller, self.steps = caller, steps
        self.conversation_id: uuid.UUID | None = None
        self.number = 0

    async def turn(self) -> tuple[float, bool]:
        """Sends one message; returns the milliseconds it took and whether it compacted."""
        self.number += 1
        self.model.script.extend(self.steps())
        request = SendMessage(
            text=f"turn {self.number}", pathname="/", conversation_id=self.conversation_id
        )
        started = time.perf_counter()
        events = [event async for event in send_message(self.deps, self.caller, request)]
        elapsed = (time.perf_counter() - started) * 1000
        # the run's `done` (a turn that makes the conversation due compacts after it)
        done = next((e for e in reversed(events) if e.type == "done"), events[-1])
        errors = [e for e in events if e.type == "error"]
        if done.type != "done" or errors:
            raise RuntimeError(f"turn {self.number} failed: {errors or done}")
        self.conversation_id = uuid.UUID(done.conversation_id)
        return elapsed, any(e.type == "compaction_finished" for e in events)


async def _caller(db: Database, org: Org) -> Any:
    return await resolve_caller(db, SessionClaims(org.clerk_user, org.clerk_org, None, None), "en")


def _new_org(owner_url: str) -> Org:
    with psycopg.connect(owner_url) as conn:
        org_id, clerk_org, clerk_user = seed_owner(conn)
    return Org(org_id, clerk_org, clerk_user)


async def _timed_turns(conversation: Conversation, turns: int) -> list[Turn]:
    out = []
    for _ in range(turns):
        elapsed, compacted = await conversation.turn()
        out.append(Turn({"e2e_ms": elapsed}, compacted))
    return out


async def _split_turns(conversation: Conversation, turns: int) -> list[Turn]:
    out = []
    clock = TurnClock()
    with clock.installed():
        for _ in range(turns):
            clock.restart()
            elapsed, compacted = await conversation.turn()
            spent = clock.read()
            own = elapsed - sum(spent.values())
            out.append(Turn({"split_e2e_ms": elapsed, **spent, "own_ms": own}, compacted))
    return out


async def _wire_turns(
    conversation: Conversation, turns: int, proxy: RoundTripProxy, probe: Probe
) -> list[Turn]:
    out = []
    for _ in range(turns):
        probe.before_turn()
        before = proxy.round_trips
        _, compacted = await conversation.turn()
        figures = {"round_trips": float(proxy.round_trips - before), **probe.after_turn()}
        out.append(Turn(figures, compacted))
    return out


async def _run_pass(
    owner_url: str, steps: Callable[[], list[Reply]], turns: int, how: str
) -> list[Turn]:
    """One measured conversation of `turns` turns of `how` ("time", "split" or "wire"), in a
    fresh org, after a warm-up conversation on the same pool."""
    org = _new_org(owner_url)
    with ExitStack() as stack:
        url = app_login_url(owner_url)
        if how == "wire":
            proxy = stack.enter_context(RoundTripProxy.for_url(owner_url))
            url = proxy.url(url)
            probe_conn = stack.enter_context(psycopg.connect(owner_url, autocommit=True))
        db = await Database.open(url, max_size=8)
        try:
            caller = await _caller(db, org)
            warm = Conversation(db, caller, steps)
            for _ in range(min(WARM_UP_TURNS, turns)):
                await warm.turn()
            conversation = Conversation(db, caller, steps)
            if how == "time":
                return await _timed_turns(conversation, turns)
            if how == "split":
                return await _split_turns(conversation, turns)
            return await _wire_turns(conversation, turns, proxy, Probe(probe_conn, org.org_id))
        finally:
            await db.close()


def _window(turns: list[Turn], late: bool) -> list[Turn]:
    return turns[-WINDOW:] if late else turns[:WINDOW]


def _medians(passes: list[list[Turn]], late: bool) -> dict[str, float]:
    figures: dict[str, float] = {}
    for turns in passes:
        window = _window(turns, late)
        for name in window[0].figures:
            figures[name] = statistics.median(t.figures[name] for t in window)
    return figures


async def measure_run(owner_url: str, turns: int) -> dict[str, KindReport]:
    """One run: every kind, every pass. The database at `owner_url` must be migrated."""
    report: dict[str, KindReport] = {}
    for name, steps in KINDS.items():
        passes = {
            how: await _run_pass(owner_url, steps, turns, how) for how in ("time", "split", "wire")
        }
        timed = passes["time"]
        report[name] = KindReport(
            early=_medians(list(passes.values()), late=False),
            late=_medians(list(passes.values()), late=True),
            compacted_early=sum(t.compacted for t in _window(timed, late=False)),
            compacted_late=sum(t.compacted for t in _window(timed, late=True)),
        )
    return report


def _median_of_runs(runs: list[dict[str, KindReport]]) -> dict[str, KindReport]:
    def median(values: list[float]) -> float:
        return statistics.median(values)

    merged: dict[str, KindReport] = {}
    for name in runs[0]:
        reports = [run[name] for run in runs]
        merged[name] = KindReport(
            early={f: median([r.early[f] for r in reports]) for f in reports[0].early},
            late={f: median([r.late[f] for r in reports]) for f in reports[0].late},
            compacted_early=round(median([r.compacted_early for r in reports])),
            compacted_late=round(median([r.compacted_late for r in reports])),
        )
    return merged


async def measure(owner_url: str, turns: int, runs: int = 1) -> Report:
    """The whole benchmark against the migrated database at `owner_url`."""
    with psycopg.connect(owner_url) as conn:
        version = conn.execute("SHOW server_version").fetchone()
    where = f"{machine()}; PostgreSQL {version[0] if version else '?'}"  # the load at the start
    install_rewrite_trigger(owner_url)
    try:
        counter_check = self_check(owner_url)
        with logs_to_devnull():
            per_run = [await measure_run(owner_url, turns) for _ in range(runs)]
    finally:
        drop_rewrite_trigger(owner_url)
    return Report(where, turns, runs, _median_of_runs(per_run), counter_check, per_run)


_LABELS = {
    "e2e_ms": "end to end, ms",
    "split_e2e_ms": "  (split pass) ms",
    "model_ms": "model client, ms",
    "fake_ms": "fake model server, ms",
    "db_ms": "database, ms",
    "own_ms": "own, ms",
    "round_trips": "SQL round trips",
    "commits": "commits (writing)",
    "wal_bytes": "WAL bytes",
    "row_bytes": "row bytes",
    **{f"rows:{t}": f"  {t}" for t in ROW_TABLES},
    "rewrites": "history rewrites",
}


def _aim(kind: str, figure: str, report: KindReport) -> str:
    notes = []
    limit = AIMS[kind].get(figure)
    if limit is not None:
        met = max(report.early[figure], report.late[figure]) <= limit
        notes.append(f"≤ {limit:g} {'met' if met else 'NOT met'}")
    if figure == "e2e_ms":
        ratio = report.ratio(figure)
        flat = ratio is not None and ratio <= FLAT_RATIO
        notes.append(f"ratio ≤ {FLAT_RATIO} {'met' if flat else 'NOT met'}")
    if figure == "rewrites":
        notes.append(
            "must be 0" + ("" if report.late[figure] == report.early[figure] == 0 else " NOT met")
        )
    return "; ".join(notes)


def _ratio(k: KindReport, figure: str) -> str:
    ratio = k.ratio(figure)
    return "-" if ratio is None else f"{ratio:.2f}"


def render(report: Report) -> str:
    last = (
        f"{report.turns - WINDOW + 1}–{report.turns}"
        if report.turns > WINDOW
        else f"1–{report.turns}"
    )
    first = f"1–{min(WINDOW, report.turns)}"
    check = report.counter_check
    lines = [
        f"machine: {report.machine}",
        f"one conversation of {report.turns} turns per kind and pass, medians per window;"
        f" median of {report.runs} run(s)",
        f"round-trip counter check: {check['statements']} SELECT 1 → {check['plain']},"
        f" a pipeline of {check['statements']} with one sync → {check['pipeline']}",
    ]
    for kind, k in report.kinds.items():
        lines.append("")
        lines.append(f"{kind:24} {'turns ' + first:>12} {'turns ' + last:>12} {'ratio':>7}  aim")
        for figure in FIGURES:
            lines.append(
                f"{_LABELS[figure]:24} {k.early[figure]:12.2f} {k.late[figure]:12.2f}"
                f" {_ratio(k, figure):>7}  {_aim(kind, figure, k)}"
            )
        lines.append(f"{'compacted turns':24} {k.compacted_early:12d} {k.compacted_late:12d}")
    return "\n".join(lines)


async def main(turns: int, runs: int, json_path: Path | None) -> None:
    with bench_server() as server:
        owner_url = ensure_database(server, "spotter_bench", recreate=True)
        await migrate(owner_url, app_password=LOCAL_APP_PASSWORD)
        report = await measure(owner_url, turns, runs)
    print(render(report))
    if json_path is not None:
        with open(json_path, "w") as out:  # noqa: ASYNC230 - after the measuring
            json.dump(report.as_json(), out, indent=2, default=str)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--turns", type=int, default=100, help="turns per conversation (≥ 1)")
    parser.add_argument("--runs", type=int, default=3, help="runs; figures are the median of runs")
    parser.add_argument("--json", type=Path, default=None, help="also write the full report here")
    args = parser.parse_args()
    asyncio.run(main(args.turns, args.runs, args.json))
