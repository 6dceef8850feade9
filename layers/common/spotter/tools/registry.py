"""The tools one caller may use: filtered by role (RBAC at build time) and org flags.

A registry is built once per surface — role × day-grain programming × whether the org's type
keeps forms — and shared by every org with that surface (`registry_for`, cached), so its tool
definitions are serialized once.
"""

from __future__ import annotations

from functools import cached_property, lru_cache
from itertools import groupby
from pathlib import Path
from typing import Any

from spotter.auth.caller import Caller, Role
from spotter.domain.form_compliance import keeps_forms
from spotter.tools import prebuilt
from spotter.tools.asking import needs_user
from spotter.tools.catalog import ToolCatalog, load_catalog
from spotter.tools.definitions import build_definitions, canonical_json
from spotter.tools.errors import CallRefused, FeatureUnavailable, Forbidden, UnknownTool
from spotter.tools.spec import ToolSpec


class ToolRegistry:
    def __init__(
        self,
        catalog: ToolCatalog,
        role: Role,
        *,
        day_grain: bool,
        forms: bool = True,
        prebuilt: bool = True,
    ) -> None:
        self.role = role
        self.day_grain = day_grain
        self.forms = forms
        # Read the layer's prebuilt bytes (spotter.tools.prebuilt) instead of building them.
        self._prebuilt = prebuilt
        self._catalog = catalog
        self._specs = {
            name: spec
            for name, spec in sorted(catalog.specs.items())
            if role in spec.roles and self._org_lacks(spec) is None
        }

    def _org_lacks(self, spec: ToolSpec) -> str | None:
        """The org flag this surface lacks for the tool, if any."""
        if spec.day_grain_only and not self.day_grain:
            return "day-grain programming"
        if spec.forms_only and not self.forms:
            return "forms"
        return None

    @property
    def surface(self) -> prebuilt.Surface:
        return self.role, self.day_grain, self.forms

    @property
    def specs(self) -> list[ToolSpec]:
        return list(self._specs.values())

    def get(self, router: str, action: str) -> ToolSpec | None:
        return self._specs.get(f"{router}.{action}")

    def refusal(self, router: str, action: str) -> CallRefused:
        """Why a tool this registry does not hold is refused: the org lacks what it needs
        (`feature_unavailable`), another role may use it (`forbidden`), or it does not exist."""
        name = f"{router}.{action}"
        spec = self._catalog.specs.get(name)
        if spec is None:
            return UnknownTool(name)
        lacking = self._org_lacks(spec)
        if lacking is not None:
            return FeatureUnavailable(name, lacking)
        return Forbidden(name)

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
        built = prebuilt.read(self.surface, "full") if self._prebuilt else None
        return built if built is not None else canonical_json(self.definitions)

    @cached_property
    def quick_definitions_json(self) -> str:
        built = prebuilt.read(self.surface, "quick") if self._prebuilt else None
        return built if built is not None else canonical_json(self.quick_definitions)


@lru_cache(maxsize=32)
def registry_for(role: Role, day_grain: bool, forms: bool) -> ToolRegistry:
    """One registry per surface (role × day-grain × forms), shared by every org with it."""
    return ToolRegistry(load_catalog(), role, day_grain=day_grain, forms=forms)


def surface_of(caller: Caller) -> tuple[Role, bool, bool]:
    """The registry key of a caller: role, day-grain programming, whether its org keeps forms."""
    return caller.role, caller.day_grain_programming, keeps_forms(caller.org_type)


def registry_for_caller(caller: Caller) -> ToolRegistry:
    return registry_for(*surface_of(caller))


def write_prebuilt(directory: Path = prebuilt.DIRECTORY) -> list[Path]:
    """Build every surface's definitions (reading no prebuilt file) and write them as bytes
    for `prebuilt.read` (layers/build.py, on the layer it built)."""
    directory.mkdir(exist_ok=True)
    written = []
    for role, day_grain, forms in prebuilt.surfaces():
        registry = ToolRegistry(
            load_catalog(), role, day_grain=day_grain, forms=forms, prebuilt=False
        )
        texts: dict[prebuilt.Kind, str] = {
            "full": registry.definitions_json,
            "quick": registry.quick_definitions_json,
        }
        for kind, text in texts.items():
            path = prebuilt.path_for((role, day_grain, forms), kind, directory)
            path.write_bytes(text.encode())
            written.append(path)
    return written
