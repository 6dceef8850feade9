"""The tools one caller may use: filtered by role (RBAC at build time) and org flags."""

from __future__ import annotations

from functools import cached_property, lru_cache
from itertools import groupby
from typing import Any

from spotter.auth.caller import Caller, Role
from spotter.tools.asking import needs_user
from spotter.tools.catalog import ToolCatalog, load_catalog
from spotter.tools.definitions import build_definitions, canonical_json
from spotter.tools.spec import ToolSpec


class ToolRegistry:
    def __init__(self, catalog: ToolCatalog, role: Role, *, day_grain: bool) -> None:
        self.role = role
        self.day_grain = day_grain
        self._catalog = catalog
        self._specs = {
            name: spec
            for name, spec in sorted(catalog.specs.items())
            if role in spec.roles and (day_grain or not spec.day_grain_only)
        }

    @property
    def specs(self) -> list[ToolSpec]:
        return list(self._specs.values())

    def get(self, router: str, action: str) -> ToolSpec | None:
        return self._specs.get(f"{router}.{action}")

    def exists_for_another_role(self, router: str, action: str) -> bool:
        return f"{router}.{action}" in self._catalog.specs

    @cached_property
    def definitions(self) -> list[dict[str, Any]]:
        return build_definitions(self.specs, self._catalog.router_descriptions)

    @cached_property
    def quick_specs(self) -> list[ToolSpec]:
        """What the T1 quick route may run: quick-action tools that never ask a person."""
        return [s for s in self.specs if s.quick_action and not needs_user(s.kind, s.confirm)]

    @cached_property
    def quick_definitions(self) -> list[dict[str, Any]]:
        return build_definitions(self.quick_specs, self._catalog.router_descriptions)

    @cached_property
    def action_index(self) -> str:
        """Every router of this surface and each of its actions by name, one line each: what
        the assistant can do (the T1 router reads it to tell what only the full loop does)."""
        lines: list[str] = []
        for router, specs in groupby(self.specs, key=lambda spec: spec.router):
            lines.append(f"{router}: {self._catalog.router_descriptions.get(router, '')}".rstrip())
            lines += [f"- {router}.{spec.action}: {spec.summary}" for spec in specs]
        return "\n".join(lines)

    @cached_property
    def definitions_json(self) -> str:
        return canonical_json(self.definitions)

    @cached_property
    def quick_definitions_json(self) -> str:
        return canonical_json(self.quick_definitions)


@lru_cache(maxsize=16)
def registry_for(role: Role, day_grain: bool) -> ToolRegistry:
    """One registry per role x org flags, shared by every org with that surface."""
    return ToolRegistry(load_catalog(), role, day_grain=day_grain)


def registry_for_caller(caller: Caller) -> ToolRegistry:
    return registry_for(caller.role, caller.day_grain_programming)
