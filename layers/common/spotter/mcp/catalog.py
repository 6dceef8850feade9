"""The MCP tool list: one tool per action of the caller's registry, byte-stable per registry.

Names are `<router>_<action>` (`workouts_parse`): MCP clients show and call tools one by one,
so the agent's `{action, args}` router envelope is unwrapped. The input schema is the action's
args model (plus the fields only MCP may send), the description its `mcp_summary` or summary,
and the annotations say what the declaration says: reads are read-only and idempotent, a
`destructive` confirm is destructive, `external_effects` reach the open world.

Every list the server serves (staff role x org flags x toolset x write scope) is written as
bytes when the common layer is built (`write_prebuilt`, run by layers/build.py on the built
layer), so a fresh instance's first tools/list reads a file instead of importing every tool
module and generating ~200 JSON schemas; the specs (the args models a call validates against)
load on the first tools/call. The source tree never holds the files: dev and tests build.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from mcp_types import Tool, ToolAnnotations

from spotter.auth.caller import STAFF_ROLES, Role
from spotter.mcp.toolsets import TOOLSETS
from spotter.tools import prebuilt
from spotter.tools.definitions import canonical_json, compact_schema, slim_json_schema
from spotter.tools.registry import ToolRegistry, registry_for
from spotter.tools.spec import ToolSpec

# The one tool that is not an action: undo an MCP-made write by its execution id.
UNDO_TOOL = "spotter_undo"
DIRECTORY = Path(__file__).with_name("prebuilt_catalogs")


def mcp_name(spec: ToolSpec) -> str:
    return spec.action_tool_name


def _title(spec: ToolSpec) -> str:
    return f"{spec.router.replace('_', ' ').capitalize()}: {spec.action.replace('_', ' ')}"


def input_schema(spec: ToolSpec) -> dict[str, Any]:
    schema = spec.args_model.model_json_schema(by_alias=True, ref_template="#/$defs/{model}")
    compact: dict[str, Any] = slim_json_schema(compact_schema(schema))
    if spec.mcp_fields:
        compact["properties"] = {**compact.get("properties", {}), **spec.mcp_fields}
    compact.setdefault("properties", {})
    return compact


def tool_annotations(spec: ToolSpec) -> ToolAnnotations:
    read = spec.side_effects == "read"
    return ToolAnnotations(
        title=_title(spec),
        read_only_hint=read,
        destructive_hint=None if read else spec.confirm == "destructive",
        idempotent_hint=spec.idempotent,
        open_world_hint=spec.external_effects,
    )


def _tool(spec: ToolSpec) -> Tool:
    return Tool(
        name=mcp_name(spec),
        title=_title(spec),
        description=spec.mcp_summary or spec.summary,
        input_schema=input_schema(spec),
        annotations=tool_annotations(spec),
    )


def _undo_tool() -> Tool:
    return Tool(
        name=UNDO_TOOL,
        title="Undo",
        description="Undo a write you made here, by the executionId its result gave"
        " (when undoAvailable). Runs the write's inverse once.",
        input_schema={
            "type": "object",
            "properties": {"executionId": {"type": "string", "format": "uuid"}},
            "required": ["executionId"],
            "additionalProperties": False,
        },
        annotations=ToolAnnotations(
            title="Undo",
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=True,
            open_world_hint=False,
        ),
    )


@dataclass(frozen=True)
class CatalogKey:
    """One tool list: a surface (`tools.registry.surface_of`), a toolset (None: all) and
    whether the token may write."""

    role: Role
    day_grain: bool
    forms: bool
    toolset: str | None = None
    writes: bool = True

    @property
    def file_name(self) -> str:
        scope = "rw" if self.writes else "r"
        grain, forms = int(self.day_grain), int(self.forms)
        return f"{self.role}-{grain}-{forms}-{self.toolset or 'all'}-{scope}.json"


def catalog_keys() -> list[CatalogKey]:
    """Every tool list the server serves (a member is served none)."""
    return [
        CatalogKey(role, day_grain, forms, toolset, writes)
        for role, day_grain, forms in prebuilt.surfaces()
        if role in STAFF_ROLES
        for toolset in (None, *sorted(TOOLSETS))
        for writes in (True, False)
    ]


class McpCatalog:
    """The tools of one list, as `tools/list` sends them, and the specs its calls run.

    `tools` comes from the prebuilt file when there is one (validated into the SDK's `Tool`,
    which is no schema generation), else it is built from the specs; `specs` loads the tool
    catalog when first read (a tools/call), never for a list.
    """

    def __init__(
        self, load_specs: Callable[[], dict[str, ToolSpec]], prebuilt_file: Path | None = None
    ) -> None:
        self._load_specs = load_specs
        self._prebuilt_file = prebuilt_file

    @cached_property
    def specs(self) -> dict[str, ToolSpec]:
        return self._load_specs()

    @cached_property
    def tools(self) -> tuple[Tool, ...]:
        text = prebuilt.read_text(self._prebuilt_file) if self._prebuilt_file else None
        if text is not None:
            return tuple(Tool.model_validate(item) for item in json.loads(text))
        tools = [_tool(spec) for spec in self.specs.values()]
        if any(spec.inverse is not None for spec in self.specs.values()):
            tools.append(_undo_tool())
        return tuple(sorted(tools, key=lambda t: t.name))

    @cached_property
    def tools_json(self) -> str:
        """The list's bytes, as the layer build writes them."""
        return canonical_json([_wire(tool) for tool in self.tools])


def _wire(tool: Tool) -> dict[str, Any]:
    wire: dict[str, Any] = tool.model_dump(mode="json", by_alias=True, exclude_none=True)
    return wire


def _chosen(registry: ToolRegistry, toolset: str | None, writes: bool) -> dict[str, ToolSpec]:
    chosen = TOOLSETS[toolset] if toolset is not None else None
    return {
        mcp_name(spec): spec
        for spec in registry.specs
        if (chosen is None or chosen.holds(spec.router, spec.action))
        and (writes or spec.side_effects == "read")
    }


def build_catalog(
    registry: ToolRegistry, toolset: str | None = None, *, writes: bool = True
) -> McpCatalog:
    """The tools of a registry, of one toolset (None: all), writes only when the token may;
    built, never read from a prebuilt file."""
    return McpCatalog(lambda: _chosen(registry, toolset, writes))


def catalog_at(key: CatalogKey, directory: Path | None) -> McpCatalog:
    """The catalog of a key, its tools read from the file `directory` holds for it (None, or no
    such file: built)."""

    def load_specs() -> dict[str, ToolSpec]:
        return _chosen(registry_for(key.role, key.day_grain, key.forms), key.toolset, key.writes)

    return McpCatalog(load_specs, directory / key.file_name if directory else None)


@lru_cache(maxsize=256)
def catalog_for(
    role: Role, day_grain: bool, forms: bool, toolset: str | None = None, *, writes: bool = True
) -> McpCatalog:
    """One per surface (role × org flags: `tools.registry.surface_of`) × toolset × write
    scope, like the registry it comes from, so `tools/list` is byte-stable; its tools read
    from the layer's prebuilt bytes where they were built."""
    return catalog_at(CatalogKey(role, day_grain, forms, toolset, writes), DIRECTORY)


def write_prebuilt(directory: Path = DIRECTORY) -> list[Path]:
    """Build every list the server serves (reading no prebuilt file) and write its bytes
    (layers/build.py, on the layer it built)."""
    directory.mkdir(exist_ok=True)
    written = []
    for key in catalog_keys():
        path = directory / key.file_name
        path.write_bytes(catalog_at(key, None).tools_json.encode())
        written.append(path)
    return written
