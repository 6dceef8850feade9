"""`sam build` once per test session (cached) and what each built function is made of.

The build is exactly `make build` (same build dir, same cache, so each reuses the other's work):
a minute or two on a fresh clone or after a requirements.lock changes (that layer's pip install),
a few seconds when nothing changed, and about ten when only the spotter source did (the common
layer's dependencies are cached by layers/build.py in .aws-sam/layer-deps).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
SAM = ROOT / ".venv-tools" / "bin" / "sam"


def find_python() -> str:
    """The python3.12 `make build` uses: Lambda's runtime version, for builds and for probes."""
    return subprocess.run(
        [str(ROOT / "scripts" / "find-python")], capture_output=True, text=True, check=True
    ).stdout.strip()


class _CfnLoader(yaml.SafeLoader):
    """Reads template.yaml keeping `!Ref X` as {"Ref": X} and any other tag as its raw value."""


def _tagged(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    value: Any
    if isinstance(node, yaml.ScalarNode):
        value = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node)
    else:
        value = loader.construct_mapping(node)  # type: ignore[arg-type]
    return {"Ref": value} if suffix == "Ref" else {suffix: value}


_CfnLoader.add_multi_constructor("!", _tagged)


@dataclass(frozen=True)
class BuiltFunction:
    """A function as Lambda assembles it: its code (/var/task) and our layers' python/ dirs
    (merged into /opt/python), plus how many layers come from elsewhere (the Web Adapter)."""

    name: str
    code: Path
    layers: dict[str, Path]
    external_layers: int

    @property
    def pythonpath(self) -> str:
        return os.pathsep.join([str(self.code), *(str(p) for p in self.layers.values())])


def template() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.load((ROOT / "template.yaml").read_text(), _CfnLoader)
    return loaded


def built_functions(build_dir: Path) -> dict[str, BuiltFunction]:
    parsed = template()
    resources: dict[str, Any] = parsed["Resources"]
    global_layers = parsed["Globals"]["Function"].get("Layers", [])
    functions = {}
    for name, resource in resources.items():
        if resource["Type"] != "AWS::Serverless::Function":
            continue
        # SAM prepends the Globals layers to each function's own.
        refs = [*global_layers, *resource["Properties"].get("Layers", [])]
        ours = [r["Ref"] for r in refs if isinstance(r, dict) and "Ref" in r]
        functions[name] = BuiltFunction(
            name=name,
            code=build_dir / name,
            layers={layer: build_dir / layer / "python" for layer in ours},
            external_layers=len(refs) - len(ours),
        )
    return functions


BUILD_INPUTS = ("template.yaml", "samconfig.toml", "Makefile", "layers", "functions")


def _fingerprint() -> str:
    """Names, sizes and mtimes of everything `sam build` reads."""
    entries = []
    for name in BUILD_INPUTS:
        top = ROOT / name
        for path in sorted([top, *top.rglob("*")] if top.is_dir() else [top]):
            if path.is_file() and "__pycache__" not in path.parts:
                stat = path.stat()
                entries.append(f"{path.relative_to(ROOT)}:{stat.st_size}:{stat.st_mtime_ns}")
    return hashlib.sha256("\n".join(entries).encode()).hexdigest()


@pytest.fixture(scope="session")
def built() -> Path:
    assert SAM.exists(), "run `make tools` (make test does) to install the SAM CLI"
    python = find_python()
    env = {
        **os.environ,
        "PATH": f"{Path(python).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "SAM_CLI_TELEMETRY": "0",
    }
    # Test workers may reach this fixture at once and SAM cannot share a build dir: builds take
    # turns, and a worker whose inputs were just built by another does not rebuild (a rebuild
    # would swap files under the other worker's running probes).
    build_dir = ROOT / ".aws-sam" / "build"
    stamp = build_dir / ".tested-inputs"
    (ROOT / ".aws-sam").mkdir(exist_ok=True)
    with open(ROOT / ".aws-sam" / "test-build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        fingerprint = _fingerprint()
        if not stamp.is_file() or stamp.read_text() != fingerprint:
            # SAM's cache is keyed on each layer's folder, not on the script that builds them,
            # nor on the MCP lock the common layer's MCP tool lists are written with (Makefile)
            scripts = [ROOT / "layers" / "build.py", ROOT / "layers" / "mcp" / "requirements.lock"]
            marker = ROOT / ".aws-sam" / "cache" / ".layer-script"
            newest = max(script.stat().st_mtime for script in scripts)
            if not marker.is_file() or newest > marker.stat().st_mtime:
                shutil.rmtree(ROOT / ".aws-sam" / "cache", ignore_errors=True)
            result = subprocess.run(
                [str(SAM), "build"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900
            )
            assert result.returncode == 0, result.stdout + result.stderr
            marker.touch()
            stamp.write_text(fingerprint)
    return build_dir


@pytest.fixture(scope="session")
def functions(built: Path) -> dict[str, BuiltFunction]:
    return built_functions(built)
