"""`sam build` (no container) produces a deployable tree: the common layer's `python/spotter` with
its migrations and catalogs, each layer's dependencies, each function's entry point, and a total
size Lambda accepts. What the built functions import and how big each is:
test_built_artifacts.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.integration.deploy.conftest import ROOT, BuiltFunction

# Lambda's limit for a function and all its layers, unzipped; the Web Adapter layer needs room.
LAMBDA_UNZIPPED_LIMIT = 262_144_000
WEB_ADAPTER_ALLOWANCE = 10 * 2**20
ENTRY_POINTS = {
    "SendFunction": "run.sh",
    "ConfirmFunction": "run.sh",
    "PickFunction": "run.sh",
    "UndoFunction": "run.sh",
    "McpFunction": "run.sh",
    "StreamFunction": "run.sh",
    "ChatFunction": "run.sh",
    "ReadsFunction": "app.py",
    "MigrationFunction": "app.py",
    "SweepFunction": "app.py",
}
# What each layer must carry (import names): a dependency moved to the wrong layer fails here.
LAYER_CONTENTS = {
    "CommonLayer": ("spotter", "fastapi", "mangum", "psycopg", "aws_lambda_powertools", "uvicorn"),
    "ModelLayer": ("anthropic",),
    "EmbeddingLayer": ("voyageai", "numpy", "PIL"),
    "McpLayer": ("mcp", "mcp_types", "jsonschema", "sse_starlette"),
}


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


def test_common_layer_carries_the_spotter_package_with_its_data(built: Path) -> None:
    package = built / "CommonLayer" / "python" / "spotter"
    assert (package / "__init__.py").is_file()
    assert (package / "aws" / "migration.py").is_file()
    migrations = sorted(p.name for p in (package / "db" / "migrations").glob("*.sql"))
    expected = sorted(p.name for p in (ROOT / "layers/common/spotter/db/migrations").glob("*.sql"))
    assert migrations == expected
    assert {"en.json", "he.json", "ru.json"} <= {p.name for p in (package / "i18n").iterdir()}
    # Bytecode is the build's own: python3.12's, hash-based and never checked against the
    # source (PEP 552 flags = 1), not a dev run's timestamped files copied along.
    pycs = list(package.rglob("*.pyc"))
    assert pycs
    assert all(p.name.endswith(".cpython-312.pyc") for p in pycs)
    assert {int.from_bytes(p.read_bytes()[4:8], "little") for p in pycs} == {1}


@pytest.mark.parametrize(("layer", "packages"), LAYER_CONTENTS.items())
def test_each_layer_carries_its_packages(built: Path, layer: str, packages: tuple[str]) -> None:
    for package in packages:
        assert (built / layer / "python" / package).is_dir(), (layer, package)


def test_the_model_sdks_are_only_in_their_own_layers(built: Path) -> None:
    common = built / "CommonLayer" / "python"
    assert not (common / "anthropic").exists()
    assert not (common / "voyageai").exists()
    assert not (common / "mcp").exists()


@pytest.mark.parametrize(("function", "entry"), ENTRY_POINTS.items())
def test_each_function_has_its_entry_point(built: Path, function: str, entry: str) -> None:
    path = built / function / entry
    assert path.is_file()
    if entry == "run.sh":
        assert os.access(path, os.X_OK), "the Web Adapter executes run.sh"


def test_every_function_fits_lambdas_unzipped_limit(functions: dict[str, BuiltFunction]) -> None:
    assert set(functions) == set(ENTRY_POINTS)
    for function in functions.values():
        total = _size(function.code) + sum(_size(p.parent) for p in function.layers.values())
        allowance = function.external_layers * WEB_ADAPTER_ALLOWANCE
        assert total < LAMBDA_UNZIPPED_LIMIT - allowance, (function.name, total)
