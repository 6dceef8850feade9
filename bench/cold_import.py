"""Per-function unzipped size and cold import time, on the `sam build` output (run `make build`).

    .venv/bin/python bench/cold_import.py [runs]

Each import runs in a fresh `python3.12 -S` whose PYTHONPATH is the function's built code and
layers only (as Lambda's /var/task and /opt/python); the figure is the median of `runs` (7) of
the time around the entry point's import (and, for the streaming functions, `create_app()`, what
uvicorn calls before /healthz answers). Warm page cache: Lambda's first start reads from a cold
one, so expect it slower there; the proportions hold. Prints the docs/deploy.md tables.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / ".aws-sam" / "build"
PYTHON = subprocess.run(
    [str(ROOT / "scripts" / "find-python")], capture_output=True, text=True, check=True
).stdout.strip()
STREAMING = ["CommonLayer", "ModelLayer", "EmbeddingLayer"]
FUNCTIONS = {
    "SendFunction (and Confirm, Pick, Undo)": (
        "SendFunction",
        STREAMING,
        "from spotter.aws.api import create_app; create_app()",
    ),
    "ReadsFunction": ("ReadsFunction", ["CommonLayer"], "import app"),
    "SweepFunction": ("SweepFunction", ["CommonLayer"], "import app"),
    "MigrationFunction": ("MigrationFunction", ["CommonLayer"], "import app"),
}
# What the streaming functions import later, on their first model call and first embedding.
LATER = {
    "`anthropic` alone (the run loop's modules import it)": "import anthropic",
    "`voyageai` (first embedding: numpy, pillow, huggingface-hub, langchain-text-splitters)": (
        "from voyageai.client_async import AsyncClient"
    ),
}
# Wall time, and this process's CPU time (what a shared, loaded machine distorts least).
TIMED = (
    "import time; t, c = time.perf_counter(), time.process_time(); {code}; "
    "print(time.perf_counter() - t, time.process_time() - c)"
)


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


def _seconds(function: str, layers: list[str], code: str, runs: int) -> tuple[float, float]:
    """Median (wall, CPU) seconds."""
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONHOME")},
        "PYTHONPATH": os.pathsep.join(
            [str(BUILD / function), *(str(BUILD / layer / "python") for layer in layers)]
        ),
        "ENVIRONMENT": "test",
        "PYTHONDONTWRITEBYTECODE": "1",  # as in Lambda, where /opt and /var/task are read-only
        "CLERK_JWKS_URL": "https://clerk.example.com/.well-known/jwks.json",
    }
    walls, cpus = [], []
    for _ in range(runs):
        out = subprocess.run(
            [PYTHON, "-S", "-c", TIMED.format(code=code)],
            cwd=BUILD / function,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        wall, cpu = out.strip().splitlines()[-1].split()
        walls.append(float(wall))
        cpus.append(float(cpu))
    return statistics.median(walls), statistics.median(cpus)


def main(runs: int) -> None:
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    print("| function | layers | unzipped (ours) | cold import, CPU | wall |")
    print("| --- | --- | ---: | ---: | ---: |")
    for label, (function, layers, code) in FUNCTIONS.items():
        size = _size(BUILD / function) + sum(_size(BUILD / layer) for layer in layers)
        wall, cpu = _seconds(function, layers, code, runs)
        print(
            f"| {label} | {', '.join(layers)} | {size / 1e6:.1f} MB"
            f" | {cpu * 1000:,.0f} ms | {wall * 1000:,.0f} ms |"
        )
    print()
    print("| later, in a streaming function | import, CPU | wall |")
    print("| --- | ---: | ---: |")
    for label, code in LATER.items():
        wall, cpu = _seconds("SendFunction", STREAMING, code, runs)
        print(f"| {label} | {cpu * 1000:,.0f} ms | {wall * 1000:,.0f} ms |")
    print()
    for layer in ["CommonLayer", "ModelLayer", "EmbeddingLayer"]:
        print(f"{layer}: {_size(BUILD / layer) / 1e6:.1f} MB")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
