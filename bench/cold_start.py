"""Cold start per function, from the `sam build` output (run `make build` first), with and without
SnapStart, with and without bytecode.

    .venv/bin/python bench/cold_start.py [--runs 5] [--only streaming|mcp|reads|sweep ...]
        [--bytecode-only]

Each figure is the median of `--runs` fresh processes (bench/cold_start_probe.py: `python3.12 -S`,
PYTHONPATH = the function's built code and layers only). A process imports the entry module,
builds the app, and answers its function's first request from events/ (send-message, reads-usage,
sweep-scheduled; MCP's tools/list) through the handler, with the offline fake model: no network.
"SnapStart" is the same process after the before-snapshot hook and then the after-restore hook
(reseed, secrets, pool), as on a warmed instance: the user waits for restore + first request
(plus Lambda's own restore of the memory, which no local run measures). "No bytecode" runs on a
copy of the build without `__pycache__`, as layers shipped before bytecode was built in.
Postgres: DATABASE_URL, else a throwaway embedded server. Warm page cache throughout.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
from bench_support import bench_server, seed_owner
from cryptography.hazmat.primitives.asymmetric import rsa

from spotter.auth.devkeys import DEV_AUTHORIZED_PARTY, DEV_ISSUER, mint_token, public_pem
from spotter.db.migrate import migrate
from spotter.db.server import ensure_database

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / ".aws-sam" / "build"
PROBE = Path(__file__).with_name("cold_start_probe.py")
EVENTS = ROOT / "events"
PYTHON = subprocess.run(
    [str(ROOT / "scripts" / "find-python")], capture_output=True, text=True, check=True
).stdout.strip()
STREAMING = ["CommonLayer", "ModelLayer", "EmbeddingLayer"]
# function label → (built function, its layers, probe kind)
FUNCTIONS = {
    "send (confirm, pick, undo, stream)": ("SendFunction", STREAMING, "streaming"),
    "mcp": ("McpFunction", ["CommonLayer", "McpLayer"], "mcp"),
    "reads": ("ReadsFunction", ["CommonLayer"], "reads"),
    "sweep": ("SweepFunction", ["CommonLayer"], "sweep"),
}
# issue 27's aims on this machine: SnapStart first request (to its first byte) and, without
# SnapStart, with bytecode, import + build + first request
SNAPSTART_AIM_MS = {"streaming": 100.0}
ON_DEMAND_AIM_MS = {"streaming": 900.0, "mcp": 500.0, "reads": 350.0, "sweep": 250.0}
HOOK_PATHS = {
    "AWS_LWA_SNAPSTART_BEFORE_CHECKPOINT_PATH": "/_snapstart/before",
    "AWS_LWA_SNAPSTART_AFTER_RESTORE_PATH": "/_snapstart/after",
}


@contextmanager
def database() -> Iterator[str]:
    with bench_server() as server:
        url = ensure_database(server, "spotter_bench_cold", recreate=True)
        import asyncio

        asyncio.run(migrate(url))
        yield url


def _event(name: str, token: str) -> dict[str, Any]:
    event: dict[str, Any] = json.loads((EVENTS / f"{name}.json").read_text())
    if "headers" in event:  # a Function URL request (the scheduled sweep's event has none)
        event["headers"]["authorization"] = f"Bearer {token}"
    return event


def _as_request(event: dict[str, Any]) -> dict[str, Any]:
    query = event.get("rawQueryString") or ""
    return {
        "method": event["requestContext"]["http"]["method"],
        "target": event["rawPath"] + (f"?{query}" if query else ""),
        "headers": {k: v for k, v in event["headers"].items() if k not in ("host",)},
        "body": event.get("body") or "",
    }


def _mcp_request(token: str) -> dict[str, Any]:
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}
    return {
        "method": "POST",
        "target": "/mcp",
        "headers": {
            "authorization": f"Bearer {token}",
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "tools/list",
        },
        "body": json.dumps(body),
    }


def _inputs(kind: str, token: str) -> dict[str, Any]:
    if kind == "streaming":
        return {"request": _as_request(_event("send-message", token))}
    if kind == "mcp":
        return {"request": _mcp_request(token)}
    if kind == "reads":
        return {"event": _event("reads-usage", token)}
    return {"event": _event("sweep-scheduled", token)}


def _stripped(build: Path, into: Path) -> Path:
    """A copy of the build without bytecode."""
    shutil.copytree(build, into, ignore=shutil.ignore_patterns("__pycache__"), symlinks=True)
    return into


def _run(
    build: Path, function: str, layers: list[str], kind: str, path: str, env: dict[str, str]
) -> dict[str, float]:
    code = build / function
    probe_env = {
        **env,
        "PYTHONPATH": os.pathsep.join([str(code), *(str(build / x / "python") for x in layers)]),
        **(HOOK_PATHS | {"AWS_LAMBDA_INITIALIZATION_TYPE": "snap-start"} if path == "snapstart"
           else {}),
    }  # fmt: skip
    result = subprocess.run(
        [PYTHON, "-S", str(PROBE), kind, path],
        cwd=code,
        env=probe_env,
        input=json.dumps(_inputs(kind, env["BENCH_TOKEN"])),
        capture_output=True,
        text=True,
        timeout=300,
    )
    if result.returncode != 0:
        raise SystemExit(f"{function} {path}: {result.stderr[-3000:]}")
    timings: dict[str, float] = json.loads(result.stdout.strip().splitlines()[-1])
    return timings


def _median(runs: list[dict[str, float]]) -> dict[str, float]:
    return {key: statistics.median(run[key] for run in runs) for key in runs[0]}


def main(runs: int, only: list[str] | None = None, bytecode_only: bool = False) -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores;"
          f" load average before: {os.getloadavg()[0]:.1f}")  # fmt: skip
    with database() as url, tempfile.TemporaryDirectory(prefix="spotter-cold-") as tmp:
        with psycopg.connect(url, autocommit=True) as conn:
            _, clerk_org, clerk_user = seed_owner(conn)
        token = mint_token(key, clerk_user_id=clerk_user, clerk_org_id=clerk_org, org_role="admin")
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": os.environ.get("HOME", "/tmp"),
            "DATABASE_URL": url,
            "ENVIRONMENT": "test",
            "SPOTTER_FAKE_MODEL": "1",
            "CLERK_JWT_KEY": public_pem(key),
            "CLERK_ISSUER": DEV_ISSUER,
            "CLERK_AUTHORIZED_PARTIES": DEV_AUTHORIZED_PARTY,
            "MCP_RESOURCE_URL": "http://127.0.0.1:8080/mcp",
            "PYTHONDONTWRITEBYTECODE": "1",  # /opt and /var/task are read-only in Lambda
            "BENCH_TOKEN": token,
        }
        builds = {"bytecode": BUILD}
        if not bytecode_only:
            builds["no bytecode"] = _stripped(BUILD, Path(tmp) / "build")
        print()
        print(
            "| function | bytecode | on demand: import | build | first request"
            " | total | CPU | aim | SnapStart: restore | first byte | first request | CPU | aim |"
        )
        print("| --- | --- |" + " ---: |" * 11)
        for label, (function, layers, kind) in FUNCTIONS.items():
            if only and kind not in only:
                continue
            for variant, build in builds.items():
                cold = _median(
                    [_run(build, function, layers, kind, "on-demand", env) for _ in range(runs)]
                )
                snap = _median([
                    _run(build, function, layers, kind, "snapstart", env) for _ in range(runs)
                ])  # fmt: skip
                total = cold["import"] + cold.get("build", 0.0) + cold["first"]
                aim = ON_DEMAND_AIM_MS[kind] if variant == "bytecode" else None
                snap_aim = SNAPSTART_AIM_MS.get(kind) if variant == "bytecode" else None
                snap_first = snap.get("first_byte", snap["first"])
                print(
                    f"| {label} | {variant} | {cold['import']:,.0f} | {cold.get('build', 0):,.0f}"
                    f" | {cold['first']:,.0f} | {total:,.0f} | {cold['cpu']:,.0f}"
                    f" | {_verdict(total, aim)} | {snap['restore']:,.0f}"
                    f" | {snap.get('first_byte', snap['first']):,.0f} | {snap['first']:,.0f}"
                    f" | {snap['cpu']:,.0f} | {_verdict(snap_first, snap_aim)} |"
                )
                sys.stdout.flush()
    print()
    for layer in ["CommonLayer", "ModelLayer", "EmbeddingLayer", "McpLayer"]:
        size = sum(f.stat().st_size for f in (BUILD / layer).rglob("*") if f.is_file())
        print(f"{layer}: {size / 1e6:.1f} MB unzipped")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


def _verdict(ms: float, aim: float | None) -> str:
    if aim is None:
        return ""
    return f"≤ {aim:,.0f} {'met' if ms <= aim else 'MISSED'}"


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", nargs="+", choices=sorted(ON_DEMAND_AIM_MS), default=None)
    parser.add_argument("--bytecode-only", action="store_true", help="skip the no-bytecode copy")
    arguments = parser.parse_args()
    main(arguments.runs, arguments.only, arguments.bytecode_only)
