"""Tool definitions computed when the common layer is built, read as bytes at run time (the
model's, here; the MCP tool lists, `spotter.mcp.catalog`, the same way through `read_text`).

A registry's definitions depend only on the tool catalog and its surface (role × day-grain
programming × whether the org keeps forms), and generating them (pydantic's `model_json_schema`
for every action) is the largest part of a fresh instance's first request. `layers/build.py`
runs `registry.write_prebuilt()` on the layer it just built, so the files sit beside the very
code that generated them. The source tree never holds them, so an edit in dev is never answered
with stale bytes (the registry builds them instead); tests/integration/deploy checks the built
files equal what the code builds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, get_args

from spotter.auth.caller import Role

DIRECTORY = Path(__file__).with_name("prebuilt_definitions")
Kind = Literal["full", "quick"]
Surface = tuple[Role, bool, bool]  # role, day-grain programming, forms (tools.registry)


def path_for(surface: Surface, kind: Kind, directory: Path = DIRECTORY) -> Path:
    role, day_grain, forms = surface
    return directory / f"{role}-{int(day_grain)}-{int(forms)}-{kind}.json"


def read_text(path: Path) -> str | None:
    """A file the layer build wrote, or None where nothing was built (dev, tests)."""
    try:
        return path.read_bytes().decode()
    except FileNotFoundError:
        return None


def read(surface: Surface, kind: Kind) -> str | None:
    """The built definitions JSON, or None where nothing was built (dev, tests)."""
    return read_text(path_for(surface, kind))


def surfaces() -> list[Surface]:
    """Every surface a registry is built for."""
    flags = (False, True)
    return [(role, grain, forms) for role in get_args(Role) for grain in flags for forms in flags]
