"""The MCP tool list: one tool per action of the caller's registry, byte-stable per registry.

Names are `<router>_<action>` (`workouts_parse`): MCP clients show and call tools one by one,
so the agent's `{action, args}` router envelope is unwrapped. The input schema is the action's
args model (plus the fields only MCP may send), the description its `mcp_summary` or summary,
and the annotations say what the declaration says: reads are read-only and idempotent, a
`destructive` confirm is destructive, `external_effects` reach the open world.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from mcp_types import Tool, ToolAnnotations

from spotter.auth.caller import Role
from spotter.mcp.toolsets import TOOLSETS
from spotter.tools.definitions import compact_schema, slim_json_schema
from spotter.tools.registry import ToolRegistry, registry_for
from spotter.tools.spec import ToolSpec

# The one tool that is not an action: undo an MCP-made write by its execution id.
UNDO_TOOL = "spotter_undo"


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
class McpCatalog:
    tools: tuple[Tool, ...]
    specs: dict[str, ToolSpec]


def build_catalog(
    registry: ToolRegistry, toolset: str | None = None, *, writes: bool = True
) -> McpCatalog:
    """The tools of a registry, of one toolset (None: all), writes only when the token may."""
    chosen = TOOLSETS[toolset] if toolset is not None else None
    specs = {
        mcp_name(spec): spec
        for spec in registry.specs
        if (chosen is None or chosen.holds(spec.router, spec.action))
        and (writes or spec.side_effects == "read")
    }
    tools = [_tool(spec) for spec in specs.values()]
    if any(spec.inverse is not None for spec in specs.values()):
        tools.append(_undo_tool())
    return McpCatalog(tuple(sorted(tools, key=lambda t: t.name)), specs)


@lru_cache(maxsize=256)
def catalog_for(
    role: Role, day_grain: bool, forms: bool, toolset: str | None = None, *, writes: bool = True
) -> McpCatalog:
    """Built once per surface (role × org flags: `tools.registry.surface_of`) × toolset × write
    scope, like the registry it comes from, so `tools/list` is byte-stable."""
    return build_catalog(registry_for(role, day_grain, forms), toolset, writes=writes)
