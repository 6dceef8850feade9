"""The pinned Node packages the AI SDK tests run: `examples/ai-sdk-chat`'s package.json and
package-lock.json (`ai`, `@ai-sdk/react`, `react`, `react-dom`, `esbuild`).

They are installed with `npm ci` once per lockfile into a cache folder outside the repository
(`~/.cache/spotter/node-<lock hash>`, or under $SPOTTER_NODE_CACHE), shared by runs and pytest
workers; npm's own download cache sits beside it, so a second install of the same lockfile needs
no network. A test that needs them fails with a clear message when Node.js 20+ or npm is missing.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "ai-sdk-chat"
MANIFESTS = ("package.json", "package-lock.json")
MIN_NODE = 20


def _cache_root() -> Path:
    return Path(os.environ.get("SPOTTER_NODE_CACHE") or Path.home() / ".cache" / "spotter")


def node() -> str:
    """The `node` executable, or the test fails saying what to install."""
    found, npm = shutil.which("node"), shutil.which("npm")
    if found is None or npm is None:
        pytest.fail(
            "The AI SDK tests need Node.js 20+ and npm on PATH (they run the pinned `ai` and "
            "`@ai-sdk/react` packages): install them (Debian: apt-get install -y nodejs npm) "
            "and run again.",
            pytrace=False,
        )
    version = subprocess.run([found, "--version"], capture_output=True, text=True, check=True)
    major = int(version.stdout.strip().lstrip("v").split(".")[0])
    if major < MIN_NODE:
        pytest.fail(f"The AI SDK tests need Node.js {MIN_NODE}+, found {version.stdout}")
    return found


def node_modules() -> Path:
    """The folder whose `node_modules` holds the example's locked packages."""
    node()
    digest = hashlib.sha256(b"".join((EXAMPLE / m).read_bytes() for m in MANIFESTS))
    folder = _cache_root() / f"node-{digest.hexdigest()[:16]}"
    folder.mkdir(parents=True, exist_ok=True)
    installed = folder / "node_modules" / ".spotter-installed"
    with open(folder / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one worker installs, the others wait and reuse it
        if not installed.exists():
            for manifest in MANIFESTS:
                shutil.copyfile(EXAMPLE / manifest, folder / manifest)
            npm = shutil.which("npm")
            assert npm is not None
            done = subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund", "--prefer-offline",
                 "--cache", str(_cache_root() / "npm")],
                cwd=folder, capture_output=True, text=True, timeout=600,
            )  # fmt: skip
            if done.returncode != 0:
                pytest.fail(f"npm ci of {EXAMPLE} failed:\n{done.stderr[-4000:]}")
            installed.touch()
    return folder


def build_example(out_dir: Path) -> Path:
    """The example page bundled with esbuild (as its `npm run build` does) into `out_dir`:
    index.html beside dist/app.js. Returns the folder to serve."""
    packages = node_modules()
    shutil.copyfile(EXAMPLE / "index.html", out_dir / "index.html")
    esbuild = packages / "node_modules" / ".bin" / "esbuild"
    done = subprocess.run(
        [str(esbuild), str(EXAMPLE / "src" / "main.jsx"), "--bundle", "--format=esm",
         "--jsx=automatic", '--define:process.env.NODE_ENV="production"',
         f"--outfile={out_dir / 'dist' / 'app.js'}", "--log-level=warning"],
        env={**os.environ, "NODE_PATH": str(packages / "node_modules")},
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    if done.returncode != 0:
        pytest.fail(f"esbuild could not bundle the example:\n{done.stderr[-4000:]}")
    return out_dir
