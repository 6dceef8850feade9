"""`sam build` (no container) produces a deployable tree: the layer's `python/spotter` with its
migrations and catalogs, each function's entry point, and a total size Lambda accepts.

The test runs exactly `make build` (same build dir, same cache, so each reuses the other's work):
30-60 s on a fresh clone or after layers/common/requirements.txt changes (the layer's pip
install), a few seconds otherwise (SAM keeps the installed dependencies in .aws-sam/deps and only
copies changed source).
"""

from __future__ import annotations

import fcntl
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SAM = ROOT / ".venv-tools" / "bin" / "sam"
# Lambda's limit for a function and all its layers, unzipped; the Web Adapter layer needs room.
LAMBDA_UNZIPPED_LIMIT = 262_144_000
WEB_ADAPTER_ALLOWANCE = 10 * 2**20
ENTRY_POINTS = {
    "SendFunction": "run.sh",
    "ConfirmFunction": "run.sh",
    "PickFunction": "run.sh",
    "UndoFunction": "run.sh",
    "StreamFunction": "run.sh",
    "ReadsFunction": "app.py",
    "MigrationFunction": "app.py",
    "SweepFunction": "app.py",
}


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


@pytest.fixture(scope="module")
def built() -> Path:
    assert SAM.exists(), "run `make tools` (make test does) to install the SAM CLI"
    python = subprocess.run(
        [str(ROOT / "scripts" / "find-python")], capture_output=True, text=True, check=True
    ).stdout.strip()
    env = {
        **os.environ,
        "PATH": f"{Path(python).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "SAM_CLI_TELEMETRY": "0",
    }
    # samconfig.toml turns on cached and parallel builds. Test workers may reach this fixture
    # at once and SAM cannot share a build dir, so builds take turns (the second is cached).
    (ROOT / ".aws-sam").mkdir(exist_ok=True)
    with open(ROOT / ".aws-sam" / "test-build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        result = subprocess.run(
            [str(SAM), "build"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
        )
    assert result.returncode == 0, result.stdout + result.stderr
    return ROOT / ".aws-sam" / "build"


def test_layer_carries_the_spotter_package_with_its_data(built: Path) -> None:
    package = built / "CommonLayer" / "python" / "spotter"
    assert (package / "__init__.py").is_file()
    assert (package / "aws" / "migration.py").is_file()
    migrations = sorted(p.name for p in (package / "db" / "migrations").glob("*.sql"))
    expected = sorted(p.name for p in (ROOT / "layers/common/spotter/db/migrations").glob("*.sql"))
    assert migrations == expected
    assert {"en.json", "he.json", "ru.json"} <= {p.name for p in (package / "i18n").iterdir()}
    for dependency in ("fastapi", "mangum", "psycopg", "aws_lambda_powertools", "uvicorn"):
        assert (built / "CommonLayer" / "python" / dependency).is_dir(), dependency


@pytest.mark.parametrize(("function", "entry"), ENTRY_POINTS.items())
def test_each_function_has_its_entry_point(built: Path, function: str, entry: str) -> None:
    path = built / function / entry
    assert path.is_file()
    if entry == "run.sh":
        assert os.access(path, os.X_OK), "the Web Adapter executes run.sh"


def test_every_function_fits_lambdas_unzipped_limit(built: Path) -> None:
    layer = _size(built / "CommonLayer")
    for function in ENTRY_POINTS:
        total = layer + _size(built / function)
        assert total < LAMBDA_UNZIPPED_LIMIT - WEB_ADAPTER_ALLOWANCE, (function, total)
