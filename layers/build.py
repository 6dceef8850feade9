"""Builds one Lambda layer: `python layers/build.py LAYER_DIR ARTIFACTS_DIR` (the Makefile's
`build-<Layer>` targets, run by `sam build`; see docs/deploy.md, "Size").

- `requirements.lock`: every distribution of the layer, pinned, installed with `--no-deps`, as
  Linux x86_64 CPython 3.12 wheels whatever the build machine. What a library declares but never
  imports is left out by not listing it: each `# excluded: <name>` line says why, and
  tests/integration/deploy/test_built_artifacts.py runs every function on its built layers alone.
- `prune.txt` (optional): files of installed distributions that nothing imports (test suites,
  type stubs, data of services we never call). A `!` line keeps what an earlier line matched. A
  rule that matches nothing fails the build, so no rule outlives what it was written for.
- `spotter/` (the common layer): the package itself, with its migrations and catalogs.

The pip install is cached by the lock's content in .aws-sam/layer-deps, so a change to the spotter
source rebuilds the common layer in about a second.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".aws-sam" / "layer-deps"
# Lambda's python3.12 runs on Amazon Linux 2023 (glibc 2.34).
PLATFORMS = ("manylinux_2_34_x86_64", "manylinux_2_28_x86_64", "manylinux2014_x86_64")
PIP_TARGET = [
    "--no-deps",
    "--only-binary=:all:",
    "--implementation=cp",
    "--python-version=3.12",
    "--no-compile",  # /opt is read-only in Lambda; .pyc files would only add size
    *(f"--platform={p}" for p in PLATFORMS),
]


def _installed(lock: Path) -> Path:
    key = hashlib.sha256(lock.read_bytes() + repr(PIP_TARGET).encode()).hexdigest()[:16]
    target = CACHE / key  # sam build runs us in a scratch copy: the name says nothing
    if not target.is_dir():
        partial = target.with_suffix(".partial")
        shutil.rmtree(partial, ignore_errors=True)
        command = [sys.executable, "-m", "pip", "install", "--quiet", "--target", str(partial)]
        subprocess.run([*command, *PIP_TARGET, "-r", str(lock)], check=True)
        partial.rename(target)
    return target


def _rules(prune: Path) -> list[str]:
    if not prune.is_file():
        return []
    lines = (line.split("#", 1)[0].strip() for line in prune.read_text().splitlines())
    return [line for line in lines if line]


def _pattern(rule: str) -> re.Pattern[str]:
    """A glob over the whole relative path: `*` stays inside one name, `**/` spans folders."""
    parts = re.split(r"(\*\*/|\*|\?)", rule.removeprefix("!"))
    wild = {"**/": "(?:.*/)?", "*": "[^/]*", "?": "[^/]"}
    return re.compile("".join(wild.get(part, re.escape(part)) for part in parts))


def _prune(python: Path, rules: list[str]) -> None:
    """As .gitignore: the last rule matching a path or one of its parents decides."""
    paths = sorted(str(p.relative_to(python)) for p in python.rglob("*"))
    patterns = [(_pattern(rule), not rule.startswith("!")) for rule in rules]
    for rule, (pattern, _) in zip(rules, patterns, strict=True):
        if not any(pattern.fullmatch(path) for path in paths):
            raise SystemExit(f"layers/build.py: prune rule {rule!r} matches nothing")
    doomed: set[str] = set()
    for path in paths:
        lineage = [path, *(str(parent) for parent in Path(path).parents if str(parent) != ".")]
        verdict = False
        for pattern, remove in patterns:
            if any(pattern.fullmatch(p) for p in lineage):
                verdict = remove
        if verdict:
            doomed.add(path)
    # A directory holding something kept stays (its doomed entries go one by one); any other
    # doomed path goes whole, with what is inside it.
    holding = {str(Path(p).parent) for p in paths if p not in doomed}
    holding |= {str(parent) for p in holding for parent in Path(p).parents}
    for path in sorted(doomed):
        target = python / path
        if path in holding or not (target.exists() or target.is_symlink()):
            continue
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        else:
            target.unlink()


def main(layer: Path, artifacts: Path) -> None:
    python = artifacts / "python"
    shutil.rmtree(python, ignore_errors=True)
    shutil.copytree(_installed(layer / "requirements.lock"), python, symlinks=True)
    _prune(python, _rules(layer / "prune.txt"))
    if (layer / "spotter").is_dir():
        shutil.copytree(
            layer / "spotter",
            python / "spotter",
            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
        )


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve())
